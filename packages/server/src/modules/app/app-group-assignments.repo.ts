import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { assertDepartmentsInCompany } from '../department/department.repo.ts';

/** SQL of an application's assigned departments and permission roles (app-group-assignments.service.ts). */

export interface GroupAssignmentRow {
  kind: 'department' | 'role';
  target_id: string;
  name: string;
  path: string | null;
  people: number;
  expires_at: Date | null;
  created_at: Date;
  expired: boolean;
}

/**
 * The departments and roles assigned to an application: each department with its place in the
 * tree and the people it reaches (members of it or of a department below it), each role with its
 * members.
 */
export async function listGroupAssignments(db: Db, appId: string): Promise<GroupAssignmentRow[]> {
  const { rows } = await sql<GroupAssignmentRow>`
    with recursive below (top, id) as (
      select department_id, department_id from app_department_assignments where app_id = ${appId}
      union
      select b.top, d.id from departments d join below b on d.parent_id = b.id
    ), up (top, parent_id, path) as (
      select d.id, d.parent_id, d.name::text
      from app_department_assignments ad join departments d on d.id = ad.department_id
      where ad.app_id = ${appId}
      union all
      select up.top, p.parent_id, p.name || ' / ' || up.path from up join departments p on p.id = up.parent_id
    )
    select 'department' as kind, ad.department_id as target_id, d.name,
      (select up.path from up where up.top = ad.department_id and up.parent_id is null) as path,
      (select count(distinct dm.account_id) from department_members dm
        where dm.department_id in (select b.id from below b where b.top = ad.department_id))::int as people,
      ad.expires_at, ad.created_at, coalesce(ad.expires_at <= now(), false) as expired
    from app_department_assignments ad join departments d on d.id = ad.department_id
    where ad.app_id = ${appId}
    union all
    select 'role', ar.role_id, r.name, null,
      (select count(*) from permission_role_members rm where rm.role_id = ar.role_id)::int,
      ar.expires_at, ar.created_at, coalesce(ar.expires_at <= now(), false)
    from app_role_assignments ar join permission_roles r on r.id = ar.role_id
    where ar.app_id = ${appId}
    order by kind, name, target_id`.execute(db);
  return rows;
}

/** Throws `role.not_found` unless every id names a permission role of the company. */
export async function assertRolesInCompany(db: Db, companyId: string, ids: readonly string[]) {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return;
  const found = await db
    .selectFrom('permission_roles')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', 'in', wanted)
    .execute();
  if (found.length !== wanted.length) throw new AppError('role.not_found');
}

/** Throws "not found" unless every department and role is the company's. */
export async function assertGroupsInCompany(
  db: Db,
  companyId: string,
  groups: { departmentIds: readonly string[]; roleIds: readonly string[] },
) {
  await assertDepartmentsInCompany(db, companyId, groups.departmentIds);
  await assertRolesInCompany(db, companyId, groups.roleIds);
}

/** The people reached by departments (with those below them) and roles. */
export async function peopleReachedBy(
  db: Db,
  companyId: string,
  groups: { departmentIds: readonly string[]; roleIds: readonly string[] },
): Promise<string[]> {
  const { departmentIds, roleIds } = groups;
  const reached = new Set<string>();
  if (departmentIds.length) {
    const { rows } = await sql<{ account_id: string }>`
      with recursive below (id) as (
        select id from departments where company_id = ${companyId}
          and id in (${sql.join(departmentIds.map((id) => sql`${id}`))})
        union
        select d.id from departments d join below b on d.parent_id = b.id
      )
      select distinct account_id from department_members
      where company_id = ${companyId} and department_id in (select id from below)`.execute(db);
    for (const row of rows) reached.add(row.account_id);
  }
  if (roleIds.length) {
    const rows = await db
      .selectFrom('permission_role_members')
      .select('account_id')
      .where('company_id', '=', companyId)
      .where('role_id', 'in', roleIds)
      .execute();
    for (const row of rows) reached.add(row.account_id);
  }
  return [...reached];
}
