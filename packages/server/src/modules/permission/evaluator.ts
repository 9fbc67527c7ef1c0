import type {
  AuthorizationEffect,
  AuthorizationSubjectType,
  DecisionReason,
  ResourceType,
  RestrictionMiss,
} from '@tessera/contract';
import { type CompiledRestrictions, type DecisionContext, outcome } from './restrictions.ts';

/**
 * The permission evaluator (spec §3): pure functions over a company's compiled policy and a
 * person's facts, so that the same code answers applications, the console's "check access",
 * the `permissions` claim and the previews, and is checked against a plain reference
 * implementation (evaluator.property.test.ts).
 *
 * Semantics: a rule names a subject (the person, one of their roles, or a department the person
 * is in or one of its superiors: a department includes its sub departments), resources of one
 * application (all, or some) and actions (all the resource declares, or some). A rule applies
 * while its restrictions hold (restrictions.ts). Any applying reject denies; else any applying
 * allow allows; else nothing matched and the answer is no.
 */

export interface CompiledResource {
  id: string;
  appId: string;
  name: string;
  type: ResourceType;
  data: string | null;
  actions: readonly string[];
  actionSet: ReadonlySet<string>;
}

export interface CompiledRule {
  id: string;
  appId: string;
  subjectType: AuthorizationSubjectType;
  subjectId: string;
  effect: AuthorizationEffect;
  /** null: every resource of the application. */
  resourceIds: ReadonlySet<string> | null;
  /** null: every action the resource declares. */
  actions: ReadonlySet<string> | null;
  restrictions: CompiledRestrictions;
  description: string | null;
}

export interface CompiledApp {
  resources: readonly CompiledResource[];
  resourcesByName: ReadonlyMap<string, CompiledResource>;
  /** Rules by subject key (`u:<account>`, `r:<role>`, `d:<department>`). */
  rulesBySubject: ReadonlyMap<string, readonly CompiledRule[]>;
}

export interface CompiledPolicy {
  companyId: string;
  apps: ReadonlyMap<string, CompiledApp>;
  resourcesById: ReadonlyMap<string, CompiledResource>;
  departments: ReadonlyMap<string, { parentId: string | null; name: string }>;
  roles: ReadonlyMap<string, { name: string }>;
}

/** What a decision needs to know of a person: whether their record is usable, their roles and departments. */
export interface PersonFacts {
  accountId: string;
  username: string;
  enabled: boolean;
  roleIds: readonly string[];
  departmentIds: readonly string[];
}

export const subjectKey = (type: AuthorizationSubjectType, id: string) => `${type[0]}:${id}`;

/** How a rule reached the person. */
export interface Via {
  type: AuthorizationSubjectType;
  id: string;
  name: string;
  /** For a department: the person's own department it was reached through. */
  through: { id: string; name: string } | null;
}

export interface MatchedRule {
  rule: CompiledRule;
  via: Via;
  applied: boolean;
  miss: RestrictionMiss | null;
}

export interface Verdict {
  allowed: boolean;
  reason: DecisionReason;
  /** The applying rejects when rejected, else the applying allows. */
  deciding: MatchedRule[];
  /** Every rule that named the person, resource and action (filled when asked to explain). */
  matched: MatchedRule[];
}

/** The subjects a person is reached through, each with how: themselves, their roles, their departments and superiors. */
export function subjectsOf(policy: CompiledPolicy, person: PersonFacts): { key: string; via: Via }[] {
  const out: { key: string; via: Via }[] = [
    {
      key: subjectKey('user', person.accountId),
      via: { type: 'user', id: person.accountId, name: person.username, through: null },
    },
  ];
  for (const roleId of person.roleIds) {
    const role = policy.roles.get(roleId);
    if (role)
      out.push({
        key: subjectKey('role', roleId),
        via: { type: 'role', id: roleId, name: role.name, through: null },
      });
  }
  const seen = new Set<string>();
  for (const own of person.departmentIds) {
    const ownNode = policy.departments.get(own);
    if (!ownNode) continue;
    // Up to the root; the tree is at most departmentLimits.maxDepth deep, the bound guards a cycle.
    let id: string | null = own;
    for (let depth = 0; id !== null && depth < 64; depth++) {
      const node = policy.departments.get(id);
      if (!node) break;
      if (!seen.has(id)) {
        seen.add(id);
        out.push({
          key: subjectKey('department', id),
          via: { type: 'department', id, name: node.name, through: { id: own, name: ownNode.name } },
        });
      }
      id = node.parentId;
    }
  }
  return out;
}

const covers = (rule: CompiledRule, resource: CompiledResource, action: string) =>
  (rule.resourceIds === null || rule.resourceIds.has(resource.id)) &&
  (rule.actions === null || rule.actions.has(action));

const refusal = (reason: DecisionReason): Verdict => ({ allowed: false, reason, deciding: [], matched: [] });

/**
 * Whether the person may take `action` on the application's resource named `resourceName`.
 * With `explain`, `matched` lists every rule that named the person, resource and action.
 */
export function decide(
  policy: CompiledPolicy,
  person: PersonFacts | null,
  appId: string,
  resourceName: string,
  action: string,
  ctx: DecisionContext,
  explain = false,
): Verdict {
  if (!person) return refusal('unknown_person');
  if (!person.enabled) return refusal('person_disabled');
  const app = policy.apps.get(appId);
  const resource = app?.resourcesByName.get(resourceName);
  if (!app || !resource) return refusal('unknown_resource');
  if (!resource.actionSet.has(action)) return refusal('unknown_action');
  const local = new Map<string, { day: number; minute: number }>();
  const rejects: MatchedRule[] = [];
  const allows: MatchedRule[] = [];
  const matched: MatchedRule[] = [];
  const seen = new Set<string>();
  for (const { key, via } of subjectsOf(policy, person)) {
    const rules = app.rulesBySubject.get(key);
    if (!rules) continue;
    for (const rule of rules) {
      if (seen.has(rule.id) || !covers(rule, resource, action)) continue;
      seen.add(rule.id);
      const entry: MatchedRule = { rule, via, ...outcome(rule.effect, rule.restrictions, ctx, local) };
      if (explain) matched.push(entry);
      if (entry.applied) (rule.effect === 'reject' ? rejects : allows).push(entry);
    }
  }
  if (rejects.length) return { allowed: false, reason: 'rejected', deciding: rejects, matched };
  if (allows.length) return { allowed: true, reason: 'allowed', deciding: allows, matched };
  return { allowed: false, reason: 'no_match', deciding: [], matched };
}

/** The applying rules of the person in the application, by effect. */
function applyingRules(policy: CompiledPolicy, person: PersonFacts, app: CompiledApp, ctx: DecisionContext) {
  const local = new Map<string, { day: number; minute: number }>();
  const seen = new Set<string>();
  const applying: CompiledRule[] = [];
  for (const { key } of subjectsOf(policy, person)) {
    for (const rule of app.rulesBySubject.get(key) ?? []) {
      if (seen.has(rule.id)) continue;
      seen.add(rule.id);
      if (outcome(rule.effect, rule.restrictions, ctx, local).applied) applying.push(rule);
    }
  }
  return applying;
}

/** Every (resource, action) a rule covers in the application. */
function* coverage(app: CompiledApp, policy: CompiledPolicy, rule: CompiledRule) {
  const resources =
    rule.resourceIds === null
      ? app.resources
      : [...rule.resourceIds].map((id) => policy.resourcesById.get(id)).filter((r) => r !== undefined);
  for (const resource of resources) {
    if (resource.appId !== rule.appId) continue;
    for (const action of resource.actions)
      if (rule.actions === null || rule.actions.has(action)) yield { resource, action };
  }
}

/**
 * Everything the person may do in the application: resource id → allowed actions. The same
 * answer as `decide` for every pair (the property test checks it), computed from the rules.
 */
export function permittedActions(
  policy: CompiledPolicy,
  person: PersonFacts | null,
  appId: string,
  ctx: DecisionContext,
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const app = policy.apps.get(appId);
  if (!person?.enabled || !app) return out;
  const applying = applyingRules(policy, person, app, ctx);
  const rejected = new Set<string>();
  for (const rule of applying) {
    if (rule.effect !== 'reject') continue;
    for (const { resource, action } of coverage(app, policy, rule))
      rejected.add(`${resource.id}\u0000${action}`);
  }
  for (const rule of applying) {
    if (rule.effect !== 'allow') continue;
    for (const { resource, action } of coverage(app, policy, rule)) {
      if (rejected.has(`${resource.id}\u0000${action}`)) continue;
      let actions = out.get(resource.id);
      if (!actions) {
        actions = new Set();
        out.set(resource.id, actions);
      }
      actions.add(action);
    }
  }
  return out;
}
