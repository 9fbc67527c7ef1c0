import type { app as contract } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';
import * as repo from './app.repo.ts';
import { refusedAmong } from './app-access.ts';
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
 * Who may use an application: the users assigned to it, each until an optional expiry. The
 * decision itself is taken at every hop by app-access.ts.
 */
export function createAppAssignmentsService({ db }: Pick<AppServiceContext, 'db'>) {
  async function assignments(companyId: string, body: Body<typeof contract.listAppAssignments>) {
    const app = await appOf(db, companyId, body.appId);
    const { rows, total } = await repo.listAssignments(db, app.id, body);
    return {
      list: rows.map((row) => ({
        userId: row.account_id,
        username: row.username,
        name: row.display_name,
        expiresAt: seconds(row.expires_at),
        expired: row.expired,
        createdAt: seconds(row.created_at) as number,
      })),
      total,
    };
  }

  async function assign(actor: Actor, companyId: string, body: Body<typeof contract.addAppAssignments>) {
    const userIds = [...new Set(body.userIds)];
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      const members = await repo.companyUserIds(trx, companyId, userIds);
      if (members.length !== userIds.length) throw new AppError('app.assignee_not_member');
      const expiresAt = dateOf(body.expiresAt);
      await trx
        .insertInto('app_assignments')
        .values(
          userIds.map((accountId) => ({ app_id: app.id, account_id: accountId, expires_at: expiresAt })),
        )
        .onConflict((oc) => oc.columns(['app_id', 'account_id']).doUpdateSet({ expires_at: expiresAt }))
        .execute();
      await audit(trx, actor, companyId, 'app.assign', app.id, undefined, {
        userIds,
        expiresAt: body.expiresAt,
      });
      return { assigned: userIds.length };
    });
  }

  async function unassign(actor: Actor, companyId: string, body: Body<typeof contract.removeAppAssignments>) {
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      const removed = await trx
        .deleteFrom('app_assignments')
        .where('app_id', '=', app.id)
        .where('account_id', 'in', body.userIds)
        .returning('account_id')
        .execute();
      const ids = removed.map((row) => row.account_id);
      // Under "allow all" an assignment changes nothing; otherwise the tokens of those it was the
      // only way in for (no department or role of theirs is assigned) end now.
      if (app.default_access === 'prohibit_all')
        await repo.revokeAccountTokens(trx, app.client_id, await refusedAmong(trx, app, ids));
      await audit(trx, actor, companyId, 'app.unassign', app.id, { userIds: ids });
      return { removed: ids.length };
    });
  }

  return { assignments, assign, unassign };
}
