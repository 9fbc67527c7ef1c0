import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { StoredTimeWindow } from '../../db/schema.ts';
import type {
  CompiledApp,
  CompiledPolicy,
  CompiledResource,
  CompiledRule,
  PersonFacts,
} from './evaluator.ts';
import { compileRestrictions } from './restrictions.ts';

/** What the evaluator reads of a company, loaded in four statements and compiled for decisions. */
export async function loadPolicy(db: Db, companyId: string): Promise<CompiledPolicy> {
  const [resources, rules, roles, departments] = await Promise.all([
    db
      .selectFrom('permission_resources')
      .select(['id', 'app_id', 'name', 'type', 'data', 'actions'])
      .where('company_id', '=', companyId)
      .execute(),
    db
      .selectFrom('permission_authorizations as a')
      .select([
        'a.id',
        'a.app_id',
        'a.subject_type',
        sql<string>`coalesce(a.subject_user_id, a.subject_role_id, a.subject_department_id)`.as('subject_id'),
        'a.effect',
        'a.resource_scope',
        'a.action_scope',
        'a.actions',
        'a.valid_from',
        'a.valid_until',
        'a.time_windows',
        'a.time_zone',
        'a.ip_ranges',
        'a.description',
        sql<string[]>`array(select r.resource_id from permission_authorization_resources r
          where r.authorization_id = a.id)`.as('resource_ids'),
      ])
      .where('a.company_id', '=', companyId)
      .execute(),
    db.selectFrom('permission_roles').select(['id', 'name']).where('company_id', '=', companyId).execute(),
    db
      .selectFrom('departments')
      .select(['id', 'parent_id', 'name'])
      .where('company_id', '=', companyId)
      .execute(),
  ]);
  return compilePolicy(companyId, resources, rules, roles, departments);
}

type ResourceRow = {
  id: string;
  app_id: string;
  name: string;
  type: CompiledResource['type'];
  data: string | null;
  actions: string[];
};
type RuleRow = {
  id: string;
  app_id: string;
  subject_type: CompiledRule['subjectType'];
  subject_id: string;
  effect: CompiledRule['effect'];
  resource_scope: 'all' | 'specific';
  action_scope: 'all' | 'specific';
  actions: string[];
  valid_from: Date | null;
  valid_until: Date | null;
  time_windows: StoredTimeWindow[];
  time_zone: string;
  ip_ranges: string[];
  description: string | null;
  resource_ids: string[];
};

/** Builds the lookup structures of the evaluator (also used by previews, with rules replaced). */
export function compilePolicy(
  companyId: string,
  resourceRows: readonly ResourceRow[],
  ruleRows: readonly RuleRow[],
  roleRows: readonly { id: string; name: string }[],
  departmentRows: readonly { id: string; parent_id: string | null; name: string }[],
): CompiledPolicy {
  const apps = new Map<
    string,
    {
      resources: CompiledResource[];
      byName: Map<string, CompiledResource>;
      rules: Map<string, CompiledRule[]>;
    }
  >();
  const appOf = (appId: string) => {
    let app = apps.get(appId);
    if (!app) {
      app = { resources: [], byName: new Map(), rules: new Map() };
      apps.set(appId, app);
    }
    return app;
  };
  const resourcesById = new Map<string, CompiledResource>();
  for (const row of resourceRows) {
    const resource: CompiledResource = {
      id: row.id,
      appId: row.app_id,
      name: row.name,
      type: row.type,
      data: row.data,
      actions: row.actions,
      actionSet: new Set(row.actions),
    };
    resourcesById.set(resource.id, resource);
    const app = appOf(row.app_id);
    app.resources.push(resource);
    app.byName.set(resource.name, resource);
  }
  for (const row of ruleRows) {
    const rule = compileRule(row);
    const rules = appOf(row.app_id).rules;
    const key = `${rule.subjectType[0]}:${rule.subjectId}`;
    const list = rules.get(key);
    if (list) list.push(rule);
    else rules.set(key, [rule]);
  }
  const compiledApps = new Map<string, CompiledApp>();
  for (const [appId, app] of apps)
    compiledApps.set(appId, {
      resources: app.resources,
      resourcesByName: app.byName,
      rulesBySubject: app.rules,
    });
  return {
    companyId,
    apps: compiledApps,
    resourcesById,
    roles: new Map(roleRows.map((row) => [row.id, { name: row.name }])),
    departments: new Map(departmentRows.map((row) => [row.id, { parentId: row.parent_id, name: row.name }])),
  };
}

export function compileRule(row: RuleRow): CompiledRule {
  return {
    id: row.id,
    appId: row.app_id,
    subjectType: row.subject_type,
    subjectId: row.subject_id,
    effect: row.effect,
    resourceIds: row.resource_scope === 'all' ? null : new Set(row.resource_ids),
    actions: row.action_scope === 'all' ? null : new Set(row.actions),
    restrictions: compileRestrictions(row),
    description: row.description,
  };
}
export type { ResourceRow, RuleRow };

const personColumns = sql<{
  account_id: string;
  username: string;
  enabled: boolean;
  role_ids: string[];
  department_ids: string[];
}>`m.account_id, a.username, (m.status = 'enabled' and a.status = 'enabled') as enabled,
  array(select rm.role_id from permission_role_members rm
    where rm.company_id = m.company_id and rm.account_id = m.account_id) as role_ids,
  array(select dm.department_id from department_members dm
    where dm.company_id = m.company_id and dm.account_id = m.account_id) as department_ids`;

const toFacts = (row: {
  account_id: string;
  username: string;
  enabled: boolean;
  role_ids: string[];
  department_ids: string[];
}): PersonFacts => ({
  accountId: row.account_id,
  username: row.username,
  enabled: row.enabled,
  roleIds: row.role_ids,
  departmentIds: row.department_ids,
});

/** A person's facts in the company (a record disabled or locked there, or a disabled account, is not enabled); null when not a member. */
export async function loadPerson(db: Db, companyId: string, accountId: string): Promise<PersonFacts | null> {
  const { rows } = await sql<Parameters<typeof toFacts>[0]>`select ${personColumns}
    from company_members m join accounts a on a.id = m.account_id
    where m.company_id = ${companyId} and m.account_id = ${accountId}`.execute(db);
  return rows[0] ? toFacts(rows[0]) : null;
}

/** The facts of many people of the company at once (previews), or of everyone (`accountIds` undefined). */
export async function loadPeople(db: Db, companyId: string, accountIds?: readonly string[]) {
  if (accountIds && accountIds.length === 0) return [];
  const filter = accountIds ? sql`and m.account_id = any(${[...accountIds]}::text[])` : sql``;
  const { rows } = await sql<Parameters<typeof toFacts>[0]>`select ${personColumns}
    from company_members m join accounts a on a.id = m.account_id
    where m.company_id = ${companyId} ${filter}`.execute(db);
  return rows.map(toFacts);
}
