import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { effectiveStatus, type UserRow, userColumns, usersOf } from '../user/user.repo.ts';
import { fullyManagedColumn } from '../user/user-authority.ts';

/** The company's people as SCIM reads them: user rows with what SCIM keeps of them (scim_users). */

export interface ScimUserRow extends UserRow {
  updated_at: Date;
  external_id: string | null;
  attributes: unknown;
}

const scimUsersOf = (db: Db, companyId: string) =>
  usersOf(db, companyId)
    .leftJoin('scim_users as s', (join) =>
      join.onRef('s.company_id', '=', 'm.company_id').onRef('s.account_id', '=', 'm.account_id'),
    )
    .select([
      ...userColumns,
      effectiveStatus.as('status'),
      fullyManagedColumn.as('fully_managed'),
      'm.updated_at',
      's.external_id',
      's.attributes',
    ]);

export async function findScimUsers(
  db: Db,
  companyId: string,
  query: {
    where?: RawBuilder<SqlBool>;
    orderBy?: RawBuilder<unknown>;
    descending?: boolean;
    offset?: number;
    limit?: number;
    ids?: string[];
  },
): Promise<ScimUserRow[]> {
  let q = scimUsersOf(db, companyId);
  if (query.where) q = q.where(query.where);
  if (query.ids) q = q.where('m.account_id', 'in', query.ids.length ? query.ids : ['']);
  const direction = query.descending ? sql`desc` : sql`asc`;
  q = query.orderBy
    ? q.orderBy(sql`${query.orderBy} ${direction} nulls last`).orderBy('m.account_id')
    : q.orderBy('m.created_at').orderBy('m.account_id');
  if (query.offset) q = q.offset(query.offset);
  if (query.limit !== undefined) q = q.limit(query.limit);
  return (await q.execute()) as ScimUserRow[];
}

export async function countScimUsers(db: Db, companyId: string, where?: RawBuilder<SqlBool>) {
  let q = usersOf(db, companyId).leftJoin('scim_users as s', (join) =>
    join.onRef('s.company_id', '=', 'm.company_id').onRef('s.account_id', '=', 'm.account_id'),
  );
  if (where) q = q.where(where);
  const row = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findScimUser(db: Db, companyId: string, accountId: string) {
  return (await findScimUsers(db, companyId, { ids: [accountId] }))[0];
}

export async function saveScimUserExtras(
  db: Db,
  companyId: string,
  accountId: string,
  extras: { externalId: string | null; attributes: object },
) {
  const attributes = JSON.stringify(extras.attributes);
  await db
    .insertInto('scim_users')
    .values({ company_id: companyId, account_id: accountId, external_id: extras.externalId, attributes })
    .onConflict((oc) =>
      oc.columns(['company_id', 'account_id']).doUpdateSet({ external_id: extras.externalId, attributes }),
    )
    .execute();
}

/** Whether another person of the company has this externalId. */
export async function externalIdTaken(
  db: Db,
  companyId: string,
  externalId: string,
  exceptAccountId?: string,
) {
  let q = db
    .selectFrom('scim_users')
    .select('account_id')
    .where('company_id', '=', companyId)
    .where('external_id', '=', externalId);
  if (exceptAccountId) q = q.where('account_id', '<>', exceptAccountId);
  return Boolean(await q.executeTakeFirst());
}
