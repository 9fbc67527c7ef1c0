import type { Db } from '../../../db/database.ts';
import { insertAuditEvent } from '../../audit/audit.repo.ts';
import type { UpstreamSourceRow } from './upstream-sources.repo.ts';

/**
 * Keeps a person's departments in step with the groups their upstream provider asserts, at every
 * sign-in through an upstream source (OpenID Connect groups claim, SAML groups attribute): a group
 * named as one of the company's departments places them there; a department the source placed
 * them in whose group is no longer asserted takes them out. As directory sync owns only the
 * departments it maintains, an upstream source owns only the memberships it made
 * (upstream_group_memberships): one the person already had, given by an administrator or another
 * source, is never recorded and never taken away. An administrator removing a membership the
 * source made removes the record with it (and the next sign-in with the group gives it again).
 */

/** Whether the source reads groups at all: without a groups claim or attribute, departments are left alone. */
export const readsGroups = (source: UpstreamSourceRow) =>
  Boolean(source.type === 'oidc' ? source.settings.groupsClaim : source.settings.groupsAttribute);

/** The company's departments named as the groups (by name; a name several departments share: all of them). */
async function departmentsNamed(db: Db, companyId: string, groups: string[]) {
  if (!groups.length) return [];
  const rows = await db
    .selectFrom('departments')
    .select('id')
    .where('company_id', '=', companyId)
    .where('name', 'in', [...new Set(groups)])
    .execute();
  return rows.map((row) => row.id);
}

/** Gives and takes the source's memberships of the person so that they match `groups`; returns what changed. */
export async function keepGroupsInStep(
  db: Db,
  source: UpstreamSourceRow,
  accountId: string,
  groups: string[],
): Promise<{ added: string[]; removed: string[] }> {
  if (!readsGroups(source)) return { added: [], removed: [] };
  const companyId = source.company_id;
  const wanted = new Set(await departmentsNamed(db, companyId, groups));
  return db.transaction().execute(async (trx) => {
    const [placed, member] = await Promise.all([
      trx
        .selectFrom('upstream_group_memberships')
        .select('department_id')
        .where('source_id', '=', source.id)
        .where('account_id', '=', accountId)
        .execute(),
      trx
        .selectFrom('department_members')
        .select('department_id')
        .where('company_id', '=', companyId)
        .where('account_id', '=', accountId)
        .execute(),
    ]);
    const placedIds = new Set(placed.map((row) => row.department_id));
    const memberOf = new Set(member.map((row) => row.department_id));
    const added = [...wanted].filter((id) => !memberOf.has(id));
    const removed = [...placedIds].filter((id) => !wanted.has(id));
    if (removed.length)
      // The record goes with the membership (on delete cascade).
      await trx
        .deleteFrom('department_members')
        .where('company_id', '=', companyId)
        .where('account_id', '=', accountId)
        .where('department_id', 'in', removed)
        .execute();
    if (added.length) {
      await trx
        .insertInto('department_members')
        .values(added.map((id) => ({ department_id: id, company_id: companyId, account_id: accountId })))
        .onConflict((oc) => oc.columns(['department_id', 'account_id']).doNothing())
        .execute();
      await trx
        .insertInto('upstream_group_memberships')
        .values(added.map((id) => ({ source_id: source.id, department_id: id, account_id: accountId })))
        .onConflict((oc) => oc.columns(['source_id', 'account_id', 'department_id']).doNothing())
        .execute();
    }
    if (added.length || removed.length)
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: null,
        action: 'user.update',
        targetType: 'user',
        targetId: accountId,
        after: { sourceId: source.id, departmentsAdded: added, departmentsRemoved: removed },
      });
    return { added, removed };
  });
}
