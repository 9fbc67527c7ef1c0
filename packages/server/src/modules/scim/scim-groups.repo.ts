import type { Db } from '../../db/database.ts';

/** The company's departments as SCIM Groups read them (all but the root), and their externalIds. */

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
  const byGroup = new Map<string, { value: string; display: string }[]>();
  if (!ids.length) return byGroup;
  const rows = await db
    .selectFrom('department_members as dm')
    .innerJoin('accounts as a', 'a.id', 'dm.account_id')
    .select(['dm.department_id', 'a.id', 'a.username', 'a.display_name'])
    .where('dm.company_id', '=', companyId)
    .where('dm.department_id', 'in', ids)
    .orderBy('a.username')
    .execute();
  for (const row of rows) {
    const list = byGroup.get(row.department_id) ?? [];
    list.push({ value: row.id, display: row.display_name ?? row.username });
    byGroup.set(row.department_id, list);
  }
  return byGroup;
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
