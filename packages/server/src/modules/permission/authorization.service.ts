import { type AuthorizationEffect, type AuthorizationSubjectType, parseIp } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import {
  type AuthorizationInput,
  type AuthorizationRow,
  findAuthorization,
  findAuthorizations,
  lockAuthorization,
  replaceResources,
  storedColumns,
  toAuthorization,
  validateAuthorization,
} from './authorization.repo.ts';
import { type CompiledRule, decide, type MatchedRule, type PersonFacts } from './evaluator.ts';
import { compare, describeImpact, pairsOf, peopleOfSubject, withRules } from './impact.ts';
import { compileRule, loadPeople } from './policy.repo.ts';
import type { PermissionCache } from './policy-cache.ts';
import type { PermissionActor } from './resource.service.ts';
import { assertPeopleOfCompany } from './role.service.ts';

/** What the audit trail keeps of an authorization. */
const auditView = (row: AuthorizationRow) => {
  const { authorizationId: _id, createdAt: _c, updatedAt: _u, ...rest } = toAuthorization(row);
  return rest;
};

/** The rule an authorization would be, for previews (`id` names it). */
const ruleOfInput = (id: string, input: AuthorizationInput): CompiledRule =>
  compileRule({
    id,
    app_id: input.appId,
    subject_type: input.subject.type,
    subject_id: input.subject.id,
    effect: input.effect,
    resource_scope: input.resourceScope,
    action_scope: input.actionScope,
    actions: input.actions,
    valid_from: input.restrictions.validFrom ? new Date(input.restrictions.validFrom) : null,
    valid_until: input.restrictions.validUntil ? new Date(input.restrictions.validUntil) : null,
    time_windows: input.restrictions.timeWindows,
    time_zone: input.restrictions.timeZone,
    ip_ranges: input.restrictions.ipRanges,
    description: input.description ?? null,
    resource_ids: input.resourceIds,
  });

const matchedView = ({ rule, via, applied, miss }: MatchedRule) => ({
  authorizationId: rule.id,
  effect: rule.effect,
  description: rule.description,
  via,
  applied,
  miss,
});

/** Authorizations (spec §3), "check access" and the previews of changes. */
export function createAuthorizationService(deps: { db: Db; cache: PermissionCache }) {
  const { db, cache } = deps;

  async function list(
    companyId: string,
    query: {
      appId?: string;
      subjectType?: AuthorizationSubjectType;
      subjectId?: string;
      effect?: AuthorizationEffect;
      keyword?: string;
      page: number;
      pageSize: number;
    },
  ) {
    const { rows, total } = await findAuthorizations(db, companyId, query);
    return { list: rows.map(toAuthorization), total };
  }

  async function create(actor: PermissionActor, companyId: string, input: AuthorizationInput) {
    const created = await db.transaction().execute(async (trx) => {
      await validateAuthorization(trx, companyId, input);
      const id = newId();
      await trx
        .insertInto('permission_authorizations')
        .values({ id, company_id: companyId, ...storedColumns(input) })
        .execute();
      await replaceResources(trx, companyId, id, input);
      const row = await findAuthorization(trx, companyId, id);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'permission.authorization.create',
        targetType: 'permission_authorization',
        targetId: id,
        after: auditView(row),
        ip: actor.ip,
      });
      return toAuthorization(row);
    });
    cache.companyChanged(companyId);
    return created;
  }

  async function update(
    actor: PermissionActor,
    companyId: string,
    authorizationId: string,
    input: AuthorizationInput,
  ) {
    const updated = await db.transaction().execute(async (trx) => {
      const before = await lockAuthorization(trx, companyId, authorizationId);
      await validateAuthorization(trx, companyId, input);
      await trx
        .updateTable('permission_authorizations')
        .set({ ...storedColumns(input), updated_at: sql`now()` })
        .where('id', '=', before.id)
        .execute();
      await replaceResources(trx, companyId, before.id, input);
      const after = await findAuthorization(trx, companyId, before.id);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'permission.authorization.update',
        targetType: 'permission_authorization',
        targetId: before.id,
        before: auditView(before),
        after: auditView(after),
        ip: actor.ip,
      });
      return toAuthorization(after);
    });
    cache.companyChanged(companyId);
    return updated;
  }

  async function remove(actor: PermissionActor, companyId: string, authorizationId: string) {
    const removed = await db.transaction().execute(async (trx) => {
      const before = await lockAuthorization(trx, companyId, authorizationId);
      await trx.deleteFrom('permission_authorizations').where('id', '=', before.id).execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'permission.authorization.delete',
        targetType: 'permission_authorization',
        targetId: before.id,
        before: auditView(before),
        ip: actor.ip,
      });
      return { authorizationId: before.id };
    });
    cache.companyChanged(companyId);
    return removed;
  }

  /** Whether a person may take an action on a resource, with every rule that named them and why it applied or not. */
  async function check(
    companyId: string,
    input: { userId: string; resourceId: string; action: string; ip?: string; at?: string },
  ) {
    const [policy, person] = await Promise.all([
      cache.policy(companyId),
      cache.person(companyId, input.userId),
    ]);
    if (!person) throw new AppError('user.not_found');
    const resource = policy.resourcesById.get(input.resourceId);
    if (!resource) throw new AppError('resource.not_found');
    const ip = input.ip ? parseIp(input.ip) : undefined;
    if (input.ip && !ip) throw new AppError('authorization.ip_range_invalid');
    const verdict = decide(
      policy,
      person,
      resource.appId,
      resource.name,
      input.action,
      { at: input.at ? new Date(input.at) : new Date(), ip: ip ?? undefined },
      true,
    );
    return {
      allowed: verdict.allowed,
      reason: verdict.reason,
      deciding: verdict.deciding.map(matchedView),
      matched: verdict.matched.map(matchedView),
    };
  }

  const appNames = async (companyId: string) =>
    new Map(
      (await db.selectFrom('apps').select(['id', 'name']).where('company_id', '=', companyId).execute()).map(
        (a) => [a.id, a.name],
      ),
    );

  /** What creating (`input` only), changing (both) or deleting (`authorizationId` only) an authorization would do. */
  async function preview(
    companyId: string,
    authorizationId: string | undefined,
    input: AuthorizationInput | null,
  ) {
    const policy = await cache.policy(companyId);
    const before = authorizationId ? await findAuthorization(db, companyId, authorizationId) : undefined;
    if (input) await validateAuthorization(db, companyId, input);
    const oldRule = before ? ruleOfInput(before.id, inputOfRow(before)) : undefined;
    const newRule = input ? ruleOfInput(before?.id ?? 'new', input) : undefined;
    const newPolicy = withRules(policy, new Set(oldRule ? [oldRule.id] : []), newRule ? [newRule] : []);
    const reached = new Map<string, PersonFacts>();
    for (const rule of [oldRule, newRule]) {
      if (!rule) continue;
      for (const person of await peopleOfSubject(db, policy, companyId, {
        type: rule.subjectType,
        id: rule.subjectId,
      }))
        reached.set(person.accountId, person);
    }
    const pairs = [
      ...(oldRule ? pairsOf(policy, oldRule) : []),
      ...(newRule ? pairsOf(newPolicy, newRule) : []),
    ];
    const people = [...reached.values()].map((person) => ({ before: person, after: person }));
    const changes = compare(people, policy, newPolicy, pairs);
    return describeImpact(db, reached.size, changes, await appNames(companyId));
  }

  /** What putting people into a role (`add`) or taking them out (`remove`) would do. */
  async function previewMembers(
    companyId: string,
    input: { roleId: string; add: string[]; remove: string[] },
  ) {
    const policy = await cache.policy(companyId);
    if (!policy.roles.has(input.roleId)) throw new AppError('role.not_found');
    const ids = await assertPeopleOfCompany(db, companyId, [...input.add, ...input.remove]);
    const adding = new Set(input.add);
    const people = (await loadPeople(db, companyId, ids)).map((person) => {
      const others = person.roleIds.filter((id) => id !== input.roleId);
      return {
        before: person,
        after: { ...person, roleIds: adding.has(person.accountId) ? [...others, input.roleId] : others },
      };
    });
    const pairs = [...policy.apps.values()].flatMap((app) =>
      (app.rulesBySubject.get(`r:${input.roleId}`) ?? []).flatMap((rule) => pairsOf(policy, rule)),
    );
    const changes = compare(people, policy, policy, pairs);
    return describeImpact(db, people.length, changes, await appNames(companyId));
  }

  return { list, create, update, remove, check, preview, previewMembers };
}

/** A stored authorization as the input that would create it. */
function inputOfRow(row: AuthorizationRow): AuthorizationInput {
  return {
    appId: row.app_id,
    subject: { type: row.subject_type, id: row.subject_id },
    effect: row.effect,
    resourceScope: row.resource_scope,
    resourceIds: row.resources.map((r) => r.resourceId),
    actionScope: row.action_scope,
    actions: row.actions,
    restrictions: {
      validFrom: row.valid_from?.toISOString() ?? null,
      validUntil: row.valid_until?.toISOString() ?? null,
      timeWindows: row.time_windows,
      timeZone: row.time_zone,
      ipRanges: row.ip_ranges,
    },
    description: row.description,
  };
}

export type AuthorizationService = ReturnType<typeof createAuthorizationService>;
