import {
  type ConsoleGrants,
  consoleMemberRoles,
  fullConsoleGrants,
  type MemberRole,
} from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export const adminRoles: readonly MemberRole[] = consoleMemberRoles;

/** Where a person stands in the console of a company: their role, and what it lets them do there. */
export interface ConsoleStanding {
  role: MemberRole;
  grants: ConsoleGrants;
}

/** A person of the company as the administrators card lists them, with a delegated administrator's console role. */
const memberColumns = [
  'a.id',
  'a.username',
  'a.email',
  'a.phone',
  'm.role',
  'm.created_at',
  'r.id as console_role_id',
  'r.name as console_role_name',
] as const;

export function createCompaniesRepo(db: Db) {
  return {
    /** Companies the account administers, oldest membership first (a disabled or locked record does not count). */
    findCompaniesAdministeredBy: (accountId: string) =>
      db
        .selectFrom('company_members as m')
        .innerJoin('companies as c', 'c.id', 'm.company_id')
        .select(['c.id', 'c.name', 'c.icon_file_id', 'm.role'])
        .where('m.account_id', '=', accountId)
        .where('m.role', 'in', adminRoles)
        .where('m.status', '=', 'enabled')
        .orderBy('m.created_at')
        .orderBy('c.id')
        .execute(),

    /**
     * The tenant check: the caller's role in the company, when an enabled record gives one that
     * reaches the console, with what it may do there (everything, or its console role's grants).
     */
    findConsoleStanding: async (
      companyId: string,
      accountId: string,
    ): Promise<ConsoleStanding | undefined> => {
      const row = await db
        .selectFrom('company_members as m')
        .leftJoin('console_roles as r', (join) =>
          join.onRef('r.id', '=', 'm.console_role_id').onRef('r.company_id', '=', 'm.company_id'),
        )
        .select(['m.role', 'r.grants'])
        .where('m.company_id', '=', companyId)
        .where('m.account_id', '=', accountId)
        .where('m.role', 'in', adminRoles)
        .where('m.status', '=', 'enabled')
        .executeTakeFirst();
      if (!row) return undefined;
      if (row.role !== 'delegated_admin') return { role: row.role, grants: fullConsoleGrants };
      return {
        role: row.role,
        grants: (row.grants as ConsoleGrants | null) ?? { groups: {}, abilities: [] },
      };
    },

    findCompanyById: (db2: Db, companyId: string) =>
      db2
        .selectFrom('companies as c')
        .innerJoin('accounts as o', 'o.id', 'c.owner_account_id')
        .select([
          'c.id',
          'c.name',
          'c.client_key',
          'c.code',
          'c.icon_file_id',
          'c.default_language',
          'c.created_at',
          'o.username as owner_username',
        ])
        .where('c.id', '=', companyId)
        .executeTakeFirst(),

    findMember: (db2: Db, companyId: string, accountId: string) =>
      db2
        .selectFrom('company_members as m')
        .innerJoin('accounts as a', 'a.id', 'm.account_id')
        .leftJoin('console_roles as r', 'r.id', 'm.console_role_id')
        .select(memberColumns)
        .where('m.company_id', '=', companyId)
        .where('m.account_id', '=', accountId)
        .executeTakeFirst(),

    findMembers: async (
      companyId: string,
      page: number,
      pageSize: number,
      keyword?: string,
      adminsOnly = false,
    ) => {
      let query = db
        .selectFrom('company_members as m')
        .innerJoin('accounts as a', 'a.id', 'm.account_id')
        .leftJoin('console_roles as r', 'r.id', 'm.console_role_id')
        .where('m.company_id', '=', companyId);
      if (adminsOnly) query = query.where('m.role', '<>', 'member');
      if (keyword) {
        const pattern = `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%`;
        query = query.where((eb) =>
          eb.or([
            eb(sql<string>`lower(a.username)`, 'like', pattern),
            eb(sql<string>`lower(coalesce(a.email, ''))`, 'like', pattern),
            eb(sql<string>`coalesce(a.phone, '')`, 'like', pattern),
          ]),
        );
      }
      const [rows, count] = await Promise.all([
        query
          .select(memberColumns)
          .orderBy(sql`m.role = 'owner'`, 'desc')
          .orderBy('m.created_at')
          .orderBy('a.id')
          .limit(pageSize)
          .offset((page - 1) * pageSize)
          .execute(),
        query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },

    countAdmins: async (db2: Db, companyId: string) => {
      const row = await db2
        .selectFrom('company_members')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('company_id', '=', companyId)
        .where('role', 'in', adminRoles)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type CompaniesRepo = ReturnType<typeof createCompaniesRepo>;
