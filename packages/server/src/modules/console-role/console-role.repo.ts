import type { ConsoleGrants } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';

export interface ConsoleRoleRow {
  id: string;
  company_id: string;
  name: string;
  description: string | null;
  grants: ConsoleGrants;
  member_count: number;
  created_at: Date;
  updated_at: Date;
}

const rolesOf = (db: Db, companyId: string) =>
  db
    .selectFrom('console_roles as r')
    .select([
      'r.id',
      'r.company_id',
      'r.name',
      'r.description',
      'r.grants',
      'r.created_at',
      'r.updated_at',
      sql<number>`(select count(*) from company_members m where m.company_id = r.company_id
        and m.console_role_id = r.id)::int`.as('member_count'),
    ])
    .where('r.company_id', '=', companyId);

export const findConsoleRoles = async (db: Db, companyId: string) =>
  (await rolesOf(db, companyId).orderBy('r.name').orderBy('r.id').execute()) as ConsoleRoleRow[];

export const findConsoleRole = async (db: Db, companyId: string, roleId: string) =>
  (await rolesOf(db, companyId).where('r.id', '=', roleId).executeTakeFirst()) as ConsoleRoleRow | undefined;

/** The console role of the company, locked until the transaction ends; another company's is not found. */
export async function lockConsoleRole(trx: Db, companyId: string, roleId: string) {
  const row = await trx
    .selectFrom('console_roles')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', roleId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new AppError('console_role.not_found');
  return (await findConsoleRole(trx, companyId, roleId)) as ConsoleRoleRow;
}

export async function assertConsoleRoleExists(db: Db, companyId: string, roleId: string) {
  const row = await db
    .selectFrom('console_roles')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', roleId)
    .executeTakeFirst();
  if (!row) throw new AppError('console_role.not_found');
}

/** Holders of a deleted console role become members of the company again. */
export async function returnHoldersToMembers(trx: Db, companyId: string, roleId: string) {
  const result = await trx
    .updateTable('company_members')
    .set({ role: 'member', console_role_id: null, updated_at: sql`now()` })
    .where('company_id', '=', companyId)
    .where('console_role_id', '=', roleId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
