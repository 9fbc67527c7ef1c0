import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';

/**
 * Departments of a company. Every function takes the handle to run on (inside a transaction: the
 * `trx`, never `db`) and the company first: a department of another company is never found.
 */

export interface DepartmentRow {
  id: string;
  company_id: string;
  parent_id: string | null;
  name: string;
  manager_account_id: string | null;
}

const columns = ['id', 'company_id', 'parent_id', 'name', 'manager_account_id'] as const;

/**
 * The ids of a department and of all departments below it (recursive CTE), the department itself
 * first. Throws `department.not_found` when the department is not one of the company's.
 * For the users helper: list users by department, including sub departments.
 */
export async function subtreeIds(trx: Db, companyId: string, departmentId: string): Promise<string[]> {
  const result = await sql<{ id: string; depth: number }>`
    with recursive subtree (id, depth) as (
      select id, 0 from departments where company_id = ${companyId} and id = ${departmentId}
      union all
      select d.id, s.depth + 1 from departments d join subtree s on d.parent_id = s.id
      where d.company_id = ${companyId}
    )
    select id, depth from subtree order by depth, id`.execute(trx);
  if (!result.rows.length) throw new AppError('department.not_found');
  return result.rows.map((row) => row.id);
}

/**
 * Throws `department.not_found` unless every id names a department of the company (duplicates
 * allowed). For the users helper: validates the departments given on user create/update.
 */
export async function assertDepartmentsInCompany(
  trx: Db,
  companyId: string,
  ids: readonly string[],
): Promise<void> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return;
  const found = await trx
    .selectFrom('departments')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', 'in', wanted)
    .execute();
  if (found.length !== wanted.length) throw new AppError('department.not_found');
}

/**
 * The company's root department, created if missing (companies created before departments
 * existed get theirs on first use). Named after the company. Safe against a parallel first use:
 * the one-root unique index makes the second insert a no-op.
 */
export async function ensureRoot(trx: Db, companyId: string): Promise<DepartmentRow> {
  const existing = await findRoot(trx, companyId);
  if (existing) return existing;
  const company = await trx
    .selectFrom('companies')
    .select('name')
    .where('id', '=', companyId)
    .executeTakeFirst();
  if (!company) throw new AppError('company.not_found');
  await trx
    .insertInto('departments')
    .values({
      id: newId(),
      company_id: companyId,
      parent_id: null,
      name: company.name,
      manager_account_id: null,
    })
    .onConflict((oc) => oc.column('company_id').where('parent_id', 'is', null).doNothing())
    .execute();
  const root = await findRoot(trx, companyId);
  if (!root) throw new AppError('department.not_found');
  return root;
}

export async function findRoot(trx: Db, companyId: string): Promise<DepartmentRow | undefined> {
  return trx
    .selectFrom('departments')
    .select(columns)
    .where('company_id', '=', companyId)
    .where('parent_id', 'is', null)
    .executeTakeFirst();
}

export async function findDepartment(
  trx: Db,
  companyId: string,
  id: string,
): Promise<DepartmentRow | undefined> {
  return trx
    .selectFrom('departments')
    .select(columns)
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Like findDepartment, and locks the row for the rest of the transaction. */
export async function lockDepartment(trx: Db, companyId: string, id: string): Promise<DepartmentRow> {
  const row = await trx
    .selectFrom('departments')
    .select(columns)
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new AppError('department.not_found');
  return row;
}

/** Every department of the company with its manager's name and its direct member count. */
export async function findDepartmentsWithCounts(trx: Db, companyId: string) {
  return trx
    .selectFrom('departments as d')
    .leftJoin('accounts as m', 'm.id', 'd.manager_account_id')
    .select([
      'd.id',
      'd.parent_id',
      'd.name',
      'd.manager_account_id',
      'm.display_name as manager_display_name',
      'm.username as manager_username',
      (eb) =>
        eb
          .selectFrom('department_members as dm')
          .select((inner) => inner.fn.countAll<string>().as('n'))
          .whereRef('dm.department_id', '=', 'd.id')
          .as('member_count'),
    ])
    .where('d.company_id', '=', companyId)
    .orderBy('d.sort_order')
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}

/**
 * People in each department or any department below it, each person once (someone in two sub
 * departments counts one): department id -> count; departments without anyone are absent.
 */
export async function subtreeMemberCounts(trx: Db, companyId: string): Promise<Map<string, number>> {
  const result = await sql<{ id: string; n: string }>`
    with recursive below (ancestor_id, id) as (
      select id, id from departments where company_id = ${companyId}
      union all
      select b.ancestor_id, d.id from departments d join below b on d.parent_id = b.id
      where d.company_id = ${companyId}
    )
    select b.ancestor_id as id, count(distinct dm.account_id) as n
    from below b join department_members dm on dm.department_id = b.id and dm.company_id = ${companyId}
    group by b.ancestor_id`.execute(trx);
  return new Map(result.rows.map((row) => [row.id, Number(row.n)]));
}

/** Levels from the root to the department: the root is at depth 1. */
export async function depthOf(trx: Db, companyId: string, id: string): Promise<number> {
  const result = await sql<{ depth: number }>`
    with recursive up (id, parent_id, depth) as (
      select id, parent_id, 1 from departments where company_id = ${companyId} and id = ${id}
      union all
      select d.id, d.parent_id, u.depth + 1 from departments d join up u on d.id = u.parent_id
      where d.company_id = ${companyId}
    )
    select max(depth)::int as depth from up`.execute(trx);
  return Number(result.rows[0]?.depth ?? 0);
}

/** Levels of the subtree below and including the department: a leaf has height 1. */
export async function heightOf(trx: Db, companyId: string, id: string): Promise<number> {
  const result = await sql<{ height: number }>`
    with recursive down (id, depth) as (
      select id, 1 from departments where company_id = ${companyId} and id = ${id}
      union all
      select d.id, s.depth + 1 from departments d join down s on d.parent_id = s.id
      where d.company_id = ${companyId}
    )
    select max(depth)::int as height from down`.execute(trx);
  return Number(result.rows[0]?.height ?? 0);
}

export async function hasChildren(trx: Db, companyId: string, id: string): Promise<boolean> {
  const row = await trx
    .selectFrom('departments')
    .select('id')
    .where('company_id', '=', companyId)
    .where('parent_id', '=', id)
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/** Whether a sibling (same parent) other than `exceptId` already has this name, case-insensitively. */
export async function siblingNameTaken(
  trx: Db,
  companyId: string,
  parentId: string,
  name: string,
  exceptId?: string,
): Promise<boolean> {
  let query = trx
    .selectFrom('departments')
    .select('id')
    .where('company_id', '=', companyId)
    .where('parent_id', '=', parentId)
    .where(sql<boolean>`lower(name) = lower(${name})`);
  if (exceptId) query = query.where('id', '<>', exceptId);
  return Boolean(await query.limit(1).executeTakeFirst());
}

export async function insertDepartment(
  trx: Db,
  companyId: string,
  values: { parentId: string; name: string; managerId: string | null },
): Promise<string> {
  const id = newId();
  await trx
    .insertInto('departments')
    .values({
      id,
      company_id: companyId,
      parent_id: values.parentId,
      name: values.name,
      manager_account_id: values.managerId,
    })
    .execute();
  return id;
}

export async function updateDepartmentById(
  trx: Db,
  companyId: string,
  id: string,
  set: { name?: string; manager_account_id?: string | null; parent_id?: string },
): Promise<void> {
  await trx
    .updateTable('departments')
    .set({ ...set, updated_at: sql`now()` })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .execute();
}

/** Deletes the department; its department_members rows go with it (on delete cascade). */
export async function deleteDepartmentById(trx: Db, companyId: string, id: string): Promise<void> {
  await trx.deleteFrom('departments').where('company_id', '=', companyId).where('id', '=', id).execute();
}

/**
 * Runs `query` on the distinct account ids and answers the account ids of the rows it found or
 * changed; with no ids it answers [] without running a query (`in ()` is not valid SQL).
 */
async function forDistinctAccounts(
  accountIds: readonly string[],
  query: (wanted: string[]) => Promise<{ account_id: string }[]>,
): Promise<string[]> {
  const wanted = [...new Set(accountIds)];
  if (!wanted.length) return [];
  return (await query(wanted)).map((row) => row.account_id);
}

/** The ids among `accountIds` that are user records (company_members) of the company. */
export async function findMemberIds(
  trx: Db,
  companyId: string,
  accountIds: readonly string[],
): Promise<string[]> {
  return forDistinctAccounts(accountIds, (wanted) =>
    trx
      .selectFrom('company_members')
      .select('account_id')
      .where('company_id', '=', companyId)
      .where('account_id', 'in', wanted)
      .execute(),
  );
}

/** The roles of the user records among `accountIds` (who may move whom: user-authority.ts). */
export async function findMemberRoles(trx: Db, companyId: string, accountIds: readonly string[]) {
  const wanted = [...new Set(accountIds)];
  if (!wanted.length) return [];
  return trx
    .selectFrom('company_members')
    .select(['account_id', 'role'])
    .where('company_id', '=', companyId)
    .where('account_id', 'in', wanted)
    .execute();
}

export async function findDepartmentMemberIds(
  trx: Db,
  companyId: string,
  departmentId: string,
): Promise<string[]> {
  const rows = await trx
    .selectFrom('department_members')
    .select('account_id')
    .where('company_id', '=', companyId)
    .where('department_id', '=', departmentId)
    .orderBy('account_id')
    .execute();
  return rows.map((row) => row.account_id);
}

/** Adds the members; those already in the department are skipped. Returns how many were added. */
export async function insertDepartmentMembers(
  trx: Db,
  companyId: string,
  departmentId: string,
  accountIds: readonly string[],
): Promise<string[]> {
  return forDistinctAccounts(accountIds, (wanted) =>
    trx
      .insertInto('department_members')
      .values(
        wanted.map((accountId) => ({
          department_id: departmentId,
          company_id: companyId,
          account_id: accountId,
        })),
      )
      .onConflict((oc) => oc.columns(['department_id', 'account_id']).doNothing())
      .returning('account_id')
      .execute(),
  );
}

export async function deleteDepartmentMembers(
  trx: Db,
  companyId: string,
  departmentId: string,
  accountIds: readonly string[],
): Promise<string[]> {
  return forDistinctAccounts(accountIds, (wanted) =>
    trx
      .deleteFrom('department_members')
      .where('company_id', '=', companyId)
      .where('department_id', '=', departmentId)
      .where('account_id', 'in', wanted)
      .returning('account_id')
      .execute(),
  );
}

/**
 * The departments a person is in, in one company, as paths below the root (`Sales/East`): what
 * the `groups` claim of the company's applications carries.
 */
export async function departmentPathsOf(db: Db, companyId: string, accountId: string): Promise<string[]> {
  const { rows } = await sql<{ path: string }>`
    with recursive up (parent_id, path) as (
      select d.parent_id, d.name::text
      from department_members m
      join departments d on d.id = m.department_id
      where m.account_id = ${accountId} and m.company_id = ${companyId} and d.parent_id is not null
      union all
      select p.parent_id, p.name || '/' || up.path
      from up join departments p on p.id = up.parent_id
      where p.parent_id is not null
    )
    select up.path from up
    join departments root on root.id = up.parent_id and root.parent_id is null
    order by up.path`.execute(db);
  return rows.map((row) => row.path);
}
