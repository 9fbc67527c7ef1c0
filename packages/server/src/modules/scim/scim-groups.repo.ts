import type { Db } from '../../db/database.ts';

/** SCIM Groups as stored: the company's departments (all but the root) or its permission roles, per token. */

type GroupMember = { value: string; display: string };

const memberOf = (row: { id: string; username: string; display_name: string | null }): GroupMember => ({
  value: row.id,
  display: row.display_name ?? row.username,
});

/** The rows' values in lists, by key. */
function listsBy<R, V>(rows: R[], keyOf: (row: R) => string, itemOf: (row: R) => V) {
  const lists = new Map<string, V[]>();
  for (const row of rows) {
    const list = lists.get(keyOf(row)) ?? [];
    list.push(itemOf(row));
    lists.set(keyOf(row), list);
  }
  return lists;
}

/** The departments as SCIM Groups read them (all but the root), and their externalIds. */
export function findGroupRows(db: Db, companyId: string, ids?: string[]) {
  let q = db
    .selectFrom('departments as d')
    .leftJoin('scim_groups as g', 'g.department_id', 'd.id')
    .select(['d.id', 'd.name', 'd.created_at', 'd.updated_at', 'g.external_id'])
    .where('d.company_id', '=', companyId)
    .where('d.parent_id', 'is not', null);
  if (ids) q = q.where('d.id', 'in', ids.length ? ids : ['']);
  return q.orderBy('d.created_at').orderBy('d.id').execute();
}

/** The members of each of these departments: their account id and name. */
export async function findGroupMembers(db: Db, companyId: string, ids: string[]) {
  if (!ids.length) return new Map<string, GroupMember[]>();
  const rows = await db
    .selectFrom('department_members as dm')
    .innerJoin('accounts as a', 'a.id', 'dm.account_id')
    .select(['dm.department_id', 'a.id', 'a.username', 'a.display_name'])
    .where('dm.company_id', '=', companyId)
    .where('dm.department_id', 'in', ids)
    .orderBy('a.username')
    .execute();
  return listsBy(rows, (row) => row.department_id, memberOf);
}

/** Whether another department of the company has this externalId. */
export async function groupExternalIdTaken(
  db: Db,
  companyId: string,
  externalId: string,
  exceptDepartmentId?: string,
) {
  let q = db
    .selectFrom('scim_groups')
    .select('department_id')
    .where('company_id', '=', companyId)
    .where('external_id', '=', externalId);
  if (exceptDepartmentId) q = q.where('department_id', '<>', exceptDepartmentId);
  return Boolean(await q.executeTakeFirst());
}

export async function saveGroupExternalId(
  db: Db,
  companyId: string,
  departmentId: string,
  externalId: string | null,
) {
  await db
    .insertInto('scim_groups')
    .values({ company_id: companyId, department_id: departmentId, external_id: externalId })
    .onConflict((oc) => oc.column('department_id').doUpdateSet({ external_id: externalId }))
    .execute();
}

/** How many of these account ids are people of the company. */
export async function countPeople(db: Db, companyId: string, ids: string[]) {
  if (!ids.length) return 0;
  const found = await db
    .selectFrom('company_members')
    .select('account_id')
    .where('company_id', '=', companyId)
    .where('account_id', 'in', ids)
    .execute();
  return found.length;
}

/** The company's permission roles as SCIM Groups read them (tokens whose groups are roles), and their externalIds. */
export function findRoleGroupRows(db: Db, companyId: string, ids?: string[]) {
  let q = db
    .selectFrom('permission_roles as r')
    .leftJoin('scim_roles as g', 'g.role_id', 'r.id')
    .select(['r.id', 'r.name', 'r.created_at', 'r.updated_at', 'g.external_id'])
    .where('r.company_id', '=', companyId);
  if (ids) q = q.where('r.id', 'in', ids.length ? ids : ['']);
  return q.orderBy('r.created_at').orderBy('r.id').execute();
}

/** The people of each of these roles (as the console's role members: people of the company). */
export async function findRoleGroupMembers(db: Db, companyId: string, ids: string[]) {
  if (!ids.length) return new Map<string, GroupMember[]>();
  const rows = await db
    .selectFrom('permission_role_members as rm')
    .innerJoin('company_members as m', (join) =>
      join.onRef('m.company_id', '=', 'rm.company_id').onRef('m.account_id', '=', 'rm.account_id'),
    )
    .innerJoin('accounts as a', 'a.id', 'rm.account_id')
    .select(['rm.role_id', 'a.id', 'a.username', 'a.display_name'])
    .where('rm.company_id', '=', companyId)
    .where('rm.role_id', 'in', ids)
    .orderBy('a.username')
    .execute();
  return listsBy(rows, (row) => row.role_id, memberOf);
}

/** Whether another role of the company has this externalId. */
export async function roleExternalIdTaken(
  db: Db,
  companyId: string,
  externalId: string,
  exceptRoleId?: string,
) {
  let q = db
    .selectFrom('scim_roles')
    .select('role_id')
    .where('company_id', '=', companyId)
    .where('external_id', '=', externalId);
  if (exceptRoleId) q = q.where('role_id', '<>', exceptRoleId);
  return Boolean(await q.executeTakeFirst());
}

export async function saveRoleExternalId(
  db: Db,
  companyId: string,
  roleId: string,
  externalId: string | null,
) {
  await db
    .insertInto('scim_roles')
    .values({ company_id: companyId, role_id: roleId, external_id: externalId })
    .onConflict((oc) => oc.column('role_id').doUpdateSet({ external_id: externalId }))
    .execute();
}

/** The roles of each of these people (a SCIM User's groups, for tokens whose groups are roles). */
export async function findRoleRefs(db: Db, companyId: string, accountIds: readonly string[]) {
  if (!accountIds.length) return new Map<string, { id: string; name: string }[]>();
  const rows = await db
    .selectFrom('permission_role_members as rm')
    .innerJoin('permission_roles as r', 'r.id', 'rm.role_id')
    .select(['rm.account_id', 'r.id', 'r.name'])
    .where('rm.company_id', '=', companyId)
    .where('rm.account_id', 'in', [...new Set(accountIds)])
    .orderBy('r.name')
    .orderBy('r.id')
    .execute();
  return listsBy(
    rows,
    (row) => row.account_id,
    (row) => ({ id: row.id, name: row.name }),
  );
}
