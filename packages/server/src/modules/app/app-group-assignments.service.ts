import type { app as contract } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';
import { revokeAccountTokens } from './app.repo.ts';
import { refusedAmong } from './app-access.ts';
import * as repo from './app-group-assignments.repo.ts';
import {
  type Actor,
  type AppServiceContext,
  appOf,
  audit,
  type Body,
  dateOf,
  seconds,
} from './app-service-shared.ts';

/**
 * Who may use an application, besides assigned people: assigned departments (their sub
 * departments included) and permission roles, each until an optional expiry. The decision itself
 * is taken at every hop by app-access.ts, which reads these assignments.
 */
export function createAppGroupAssignmentsService({ db }: Pick<AppServiceContext, 'db'>) {
  async function groupAssignments(companyId: string, body: Body<typeof contract.listAppGroupAssignments>) {
    const app = await appOf(db, companyId, body.appId);
    const rows = await repo.listGroupAssignments(db, app.id);
    return {
      list: rows.map((row) => ({
        kind: row.kind,
        targetId: row.target_id,
        name: row.name,
        path: row.path,
        people: row.people,
        expiresAt: seconds(row.expires_at),
        expired: row.expired,
        createdAt: seconds(row.created_at) as number,
      })),
    };
  }

  async function assignGroups(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.addAppGroupAssignments>,
  ) {
    const departmentIds = [...new Set(body.departmentIds)];
    const roleIds = [...new Set(body.roleIds)];
    if (!departmentIds.length && !roleIds.length) throw new AppError('app.groups_required');
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      await repo.assertGroupsInCompany(trx, companyId, { departmentIds, roleIds });
      const expiresAt = dateOf(body.expiresAt);
      const base = { app_id: app.id, company_id: companyId, expires_at: expiresAt };
      if (departmentIds.length)
        await trx
          .insertInto('app_department_assignments')
          .values(departmentIds.map((departmentId) => ({ ...base, department_id: departmentId })))
          .onConflict((oc) => oc.columns(['app_id', 'department_id']).doUpdateSet({ expires_at: expiresAt }))
          .execute();
      if (roleIds.length)
        await trx
          .insertInto('app_role_assignments')
          .values(roleIds.map((roleId) => ({ ...base, role_id: roleId })))
          .onConflict((oc) => oc.columns(['app_id', 'role_id']).doUpdateSet({ expires_at: expiresAt }))
          .execute();
      await audit(trx, actor, companyId, 'app.assign_groups', app.id, undefined, {
        departmentIds,
        roleIds,
        expiresAt: body.expiresAt,
      });
      return { assigned: departmentIds.length + roleIds.length };
    });
  }

  async function unassignGroups(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.removeAppGroupAssignments>,
  ) {
    if (!body.departmentIds.length && !body.roleIds.length) throw new AppError('app.groups_required');
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      await repo.assertGroupsInCompany(trx, companyId, body);
      const departments = body.departmentIds.length
        ? await trx
            .deleteFrom('app_department_assignments')
            .where('app_id', '=', app.id)
            .where('department_id', 'in', body.departmentIds)
            .returning('department_id')
            .execute()
        : [];
      const roles = body.roleIds.length
        ? await trx
            .deleteFrom('app_role_assignments')
            .where('app_id', '=', app.id)
            .where('role_id', 'in', body.roleIds)
            .returning('role_id')
            .execute()
        : [];
      const removed = {
        departmentIds: departments.map((row) => row.department_id),
        roleIds: roles.map((row) => row.role_id),
      };
      // Under "allow all" an assignment changes nothing; otherwise the tokens of everyone the
      // removed assignments reached, and who has no other way in, end now.
      if (app.default_access === 'prohibit_all') {
        const reached = await repo.peopleReachedBy(trx, companyId, removed);
        await revokeAccountTokens(trx, app.client_id, await refusedAmong(trx, app, reached));
      }
      await audit(trx, actor, companyId, 'app.unassign_groups', app.id, removed);
      return { removed: removed.departmentIds.length + removed.roleIds.length };
    });
  }

  return { groupAssignments, assignGroups, unassignGroups };
}
