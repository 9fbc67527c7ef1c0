import { permissionLimits } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import {
  type CompiledApp,
  type CompiledPolicy,
  type CompiledRule,
  decide,
  type PersonFacts,
  subjectKey,
  subjectsOf,
} from './evaluator.ts';
import { loadPeople } from './policy.repo.ts';
import type { DecisionContext } from './restrictions.ts';

/**
 * What a change would do to people's access, before it is saved: for everyone the change can
 * reach, the (resource, action) pairs the changed rules cover are decided before and after.
 * Possible access is compared, now: a rule limited to hours or addresses counts as able to
 * allow and as not bound to reject (restrictions.ts); validity periods count.
 */

const PAIRS_LISTED = 20;

/** The policy with some rules taken out and others put in (the rest is shared, not copied). */
export function withRules(
  policy: CompiledPolicy,
  removed: ReadonlySet<string>,
  added: readonly CompiledRule[],
) {
  const touched = new Set<string>();
  for (const app of policy.apps.values())
    for (const rules of app.rulesBySubject.values())
      for (const rule of rules) if (removed.has(rule.id)) touched.add(rule.appId);
  for (const rule of added) touched.add(rule.appId);
  const apps = new Map(policy.apps);
  for (const appId of touched) {
    const app: CompiledApp = policy.apps.get(appId) ?? {
      resources: [],
      resourcesByName: new Map(),
      rulesBySubject: new Map(),
    };
    const rulesBySubject = new Map<string, CompiledRule[]>();
    for (const [key, rules] of app.rulesBySubject) {
      const kept = rules.filter((rule) => !removed.has(rule.id));
      if (kept.length) rulesBySubject.set(key, kept);
    }
    for (const rule of added.filter((r) => r.appId === appId)) {
      const key = subjectKey(rule.subjectType, rule.subjectId);
      rulesBySubject.set(key, [...(rulesBySubject.get(key) ?? []), rule]);
    }
    apps.set(appId, { ...app, rulesBySubject });
  }
  return { ...policy, apps };
}

interface Pair {
  appId: string;
  resource: string;
  action: string;
}

/** The (resource, action) pairs of the application a rule covers. */
export function pairsOf(policy: CompiledPolicy, rule: CompiledRule): Pair[] {
  const app = policy.apps.get(rule.appId);
  if (!app) return [];
  const resources =
    rule.resourceIds === null
      ? app.resources
      : [...rule.resourceIds].flatMap((id) => {
          const resource = policy.resourcesById.get(id);
          return resource && resource.appId === rule.appId ? [resource] : [];
        });
  return resources.flatMap((resource) =>
    resource.actions
      .filter((action) => rule.actions === null || rule.actions.has(action))
      .map((action) => ({ appId: rule.appId, resource: resource.name, action })),
  );
}

const pairKey = (pair: Pair) => `${pair.appId}\u0000${pair.resource}\u0000${pair.action}`;

export interface PersonChange {
  person: PersonFacts;
  gained: Pair[];
  lost: Pair[];
}

/**
 * Decides `pairs` for each person before (`old` policy and facts) and after. People whose
 * decisions depend on the same subjects are decided once: with many people in one department,
 * the work is by kinds of people, not by people.
 */
export function compare(
  people: readonly { before: PersonFacts; after: PersonFacts }[],
  oldPolicy: CompiledPolicy,
  newPolicy: CompiledPolicy,
  pairs: readonly Pair[],
): PersonChange[] {
  const unique = [...new Map(pairs.map((pair) => [pairKey(pair), pair])).values()];
  const appIds = [...new Set(unique.map((pair) => pair.appId))];
  const ctx: DecisionContext = { at: new Date(), ip: undefined, possible: true };
  const signature = (policy: CompiledPolicy, person: PersonFacts) =>
    person.enabled
      ? subjectsOf(policy, person)
          .map(({ key }) => key)
          .filter((key) => appIds.some((appId) => policy.apps.get(appId)?.rulesBySubject.has(key)))
          .join(' ')
      : 'disabled';
  const allowedSet = (policy: CompiledPolicy, person: PersonFacts) =>
    new Set(
      unique
        .filter((pair) => decide(policy, person, pair.appId, pair.resource, pair.action, ctx).allowed)
        .map(pairKey),
    );
  const memo = new Map<string, { gained: Pair[]; lost: Pair[] }>();
  const out: PersonChange[] = [];
  for (const { before, after } of people) {
    const key = `${signature(oldPolicy, before)}|${signature(newPolicy, after)}`;
    let change = memo.get(key);
    if (!change) {
      const was = allowedSet(oldPolicy, before);
      const will = allowedSet(newPolicy, after);
      change = {
        gained: unique.filter((pair) => will.has(pairKey(pair)) && !was.has(pairKey(pair))),
        lost: unique.filter((pair) => was.has(pairKey(pair)) && !will.has(pairKey(pair))),
      };
      memo.set(key, change);
    }
    if (change.gained.length || change.lost.length) out.push({ person: after, ...change });
  }
  return out;
}

/** The answer of a preview: counts, and the first people by username with what they gain and lose. */
export async function describeImpact(
  db: Db,
  examined: number,
  changes: PersonChange[],
  appNames: ReadonlyMap<string, string>,
) {
  const sorted = [...changes].sort((a, b) => a.person.username.localeCompare(b.person.username));
  const listed = sorted.slice(0, permissionLimits.previewListMax);
  const names = listed.length
    ? new Map(
        (
          await db
            .selectFrom('accounts')
            .select(['id', 'display_name'])
            .where(
              'id',
              'in',
              listed.map((c) => c.person.accountId),
            )
            .execute()
        ).map((row) => [row.id, row.display_name]),
      )
    : new Map<string, string | null>();
  const view = (pair: Pair) => ({ ...pair, appName: appNames.get(pair.appId) ?? '' });
  return {
    examined,
    gaining: changes.filter((c) => c.gained.length > 0).length,
    losing: changes.filter((c) => c.lost.length > 0).length,
    people: listed.map((change) => ({
      userId: change.person.accountId,
      username: change.person.username,
      name: names.get(change.person.accountId) ?? null,
      gained: change.gained.slice(0, PAIRS_LISTED).map(view),
      lost: change.lost.slice(0, PAIRS_LISTED).map(view),
      gainedCount: change.gained.length,
      lostCount: change.lost.length,
    })),
    truncated: sorted.length > listed.length,
  };
}

/** The people a subject reaches: the person, a role's people, or everyone in a department and its sub departments. */
export async function peopleOfSubject(
  db: Db,
  policy: CompiledPolicy,
  companyId: string,
  subject: { type: 'user' | 'role' | 'department'; id: string },
): Promise<PersonFacts[]> {
  if (subject.type === 'user') return loadPeople(db, companyId, [subject.id]);
  if (subject.type === 'role') {
    const rows = await db
      .selectFrom('permission_role_members')
      .select('account_id')
      .where('company_id', '=', companyId)
      .where('role_id', '=', subject.id)
      .execute();
    return loadPeople(
      db,
      companyId,
      rows.map((r) => r.account_id),
    );
  }
  const subtree = new Set([subject.id]);
  // Children after their parents: repeat until nothing is added (the tree is shallow).
  for (let grew = true; grew; ) {
    grew = false;
    for (const [id, node] of policy.departments)
      if (node.parentId && subtree.has(node.parentId) && !subtree.has(id)) {
        subtree.add(id);
        grew = true;
      }
  }
  const rows = await db
    .selectFrom('department_members')
    .select('account_id')
    .distinct()
    .where('company_id', '=', companyId)
    .where('department_id', 'in', [...subtree])
    .execute();
  return loadPeople(
    db,
    companyId,
    rows.map((r) => r.account_id),
  );
}
