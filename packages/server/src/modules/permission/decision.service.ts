import { createHash, timingSafeEqual } from 'node:crypto';
import { parseIp } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { AppCaller } from '../../http/callers.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { createExpiringSet } from '../../lib/expiring-set.ts';
import { spendBudgets } from '../../lib/rate-windows.ts';
import { apiSecretVersion, CLIENT_SECRET_PURPOSE } from '../app/app-clients.ts';
import { budgetsOf } from '../oidc/client-throttle.ts';
import { decide, type MatchedRule, permittedActions, type Verdict } from './evaluator.ts';
import type { AppCredentials, PermissionCache } from './policy-cache.ts';
import type { DecisionContext } from './restrictions.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** How long an address's wrong secrets are refused for a client after spending its failure budget (see client-throttle.ts). */
const BLOCK_MS = 10 * 60_000;
/** Blocked client-and-address pairs kept in memory at most (about 1 MB). */
const MAX_BLOCKED = 10_000;

/** The credentials of an application, by client id, for the cache. */
export function credentialsLoader(db: Db, sealer: Sealer) {
  return async (clientId: string): Promise<AppCredentials | null> => {
    const app = await db
      .selectFrom('apps')
      .select(['id', 'company_id', 'status', 'client_secret_sealed', 'token_auth_method'])
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (!app) return null;
    return {
      appId: app.id,
      companyId: app.company_id,
      status: app.status,
      secretVersion: apiSecretVersion(app.client_secret_sealed),
      secretHash:
        app.token_auth_method === 'none'
          ? null
          : sha256(sealer.open(app.client_secret_sealed, CLIENT_SECRET_PURPOSE)),
    };
  };
}

/** `Basic base64(client_id:client_secret)`, each part form-urlencoded (RFC 6749 §2.3.1). */
function basicCredentials(header: string | undefined): { clientId: string; secret: string } | null {
  if (!header || header.length > 2048) return null;
  const [scheme, value] = header.split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !value) return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return null;
  try {
    const form = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { clientId: form(decoded.slice(0, colon)), secret: form(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/** The rules that decided, as applications see them. */
const rulesOf = (deciding: MatchedRule[]) =>
  deciding.map(({ rule, via }) => ({
    authorizationId: rule.id,
    effect: rule.effect,
    via: { type: via.type, id: via.id, name: via.name },
  }));

const answer = (verdict: Verdict) => ({
  allowed: verdict.allowed,
  reason: verdict.reason,
  rules: rulesOf(verdict.deciding),
});

/**
 * The decision API of applications (contract calls/decision.ts) and the `permissions` claim.
 * Everything is answered from the cache (policy-cache.ts); an application only ever reaches
 * its own company's people and its own resources.
 */
export function createDecisionService(deps: {
  db: Db;
  cache: PermissionCache;
  /** The account behind a pairwise `sub` in a company (oidc/subject.ts `accountOf`). */
  accountOfSubject(companyId: string, subject: string): string | null;
  /** The client behind an application's own client credentials access token (api-caller.ts). */
  tokenIssuedTo?(token: string): Promise<{ clientId: string; secretVersion: string } | null>;
}) {
  const { cache } = deps;
  /** Addresses whose wrong secrets a client refuses, after too many: `${clientId} ${ip}`. */
  const blocked = createExpiringSet(MAX_BLOCKED);

  /**
   * `Bearer <access token>` from the token endpoint (grant client_credentials, for the decision
   * API's audience): the application as it is now, and only while the token's secret is its secret.
   */
  async function appOfToken(token: string): Promise<AppCaller> {
    const issued = deps.tokenIssuedTo ? await deps.tokenIssuedTo(token) : null;
    const app = issued ? await cache.credentials(issued.clientId) : null;
    if (!issued || !app?.secretHash || app.secretVersion !== issued.secretVersion)
      throw new AppError('app_client.invalid');
    if (app.status === 'disabled') throw new AppError('app_client.disabled');
    return { appId: app.appId, companyId: app.companyId, clientId: issued.clientId };
  }

  /**
   * The application calling: its client id and secret (HTTP Basic), or its own access token. The
   * right secret is always answered; wrong ones spend the client's budgets (client-throttle.ts),
   * and once those are spent from an address, its wrong secrets are refused there (429) without
   * being counted again.
   */
  async function authenticateApp(authorization: string | undefined, ip: string): Promise<AppCaller> {
    if (authorization && authorization.slice(0, 7).toLowerCase() === 'bearer ')
      return appOfToken(authorization.slice(7).trim());
    const given = basicCredentials(authorization);
    if (!given || given.clientId.length > 128) throw new AppError('app_client.invalid');
    const app = await cache.credentials(given.clientId);
    // Only a known client's wrong secret counts: an unknown client id has nothing to guess.
    if (!app?.secretHash) throw new AppError('app_client.invalid');
    if (!timingSafeEqual(sha256(given.secret), app.secretHash)) await wrongSecret(given.clientId, ip);
    if (app.status === 'disabled') throw new AppError('app_client.disabled');
    return { appId: app.appId, companyId: app.companyId, clientId: given.clientId };
  }

  async function wrongSecret(clientId: string, ip: string): Promise<never> {
    const blockKey = `${clientId} ${ip}`;
    if (blocked.has(blockKey)) throw new AppError('request.rate_limited');
    if (!(await spendBudgets(deps.db, budgetsOf(clientId, ip, false), 'add')))
      blocked.add(blockKey, BLOCK_MS);
    throw new AppError('app_client.invalid');
  }

  /**
   * The company's person behind the `sub` an application received (the provider's pairwise
   * subject, oidc/subject.ts), or nobody: another company's subject, an account id, a guess.
   * Nobody is answered as any unknown person is, without a lookup.
   */
  const personOf = (app: AppCaller, sub: string) => {
    const accountId = deps.accountOfSubject(app.companyId, sub);
    return accountId === null ? Promise.resolve(null) : cache.person(app.companyId, accountId);
  };

  const contextOf = (ip: string | undefined): DecisionContext => ({
    at: new Date(),
    ip: ip ? (parseIp(ip) ?? undefined) : undefined,
  });

  async function check(
    app: AppCaller,
    question: { userId: string; resource: string; action: string; ip?: string },
  ) {
    const [policy, person] = await Promise.all([cache.policy(app.companyId), personOf(app, question.userId)]);
    return answer(
      decide(policy, person, app.appId, question.resource, question.action, contextOf(question.ip)),
    );
  }

  async function checkMany(
    app: AppCaller,
    checks: readonly { userId: string; resource: string; action: string; ip?: string }[],
  ) {
    return { results: await Promise.all(checks.map((question) => check(app, question))) };
  }

  /** Everything the person may do in the application now, resource by resource. */
  async function list(app: AppCaller, userId: string, ip?: string) {
    const [policy, person] = await Promise.all([cache.policy(app.companyId), personOf(app, userId)]);
    const reason = !person ? 'unknown_person' : !person.enabled ? 'person_disabled' : 'allowed';
    const permitted = permittedActions(policy, person, app.appId, contextOf(ip));
    const permissions = [...permitted].flatMap(([resourceId, actions]) => {
      const resource = policy.resourcesById.get(resourceId);
      if (!resource) return [];
      return [
        {
          resource: resource.name,
          type: resource.type,
          data: resource.data,
          actions: resource.actions.filter((a) => actions.has(a)),
        },
      ];
    });
    permissions.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
    return { allowed: reason === 'allowed', reason, permissions } as const;
  }

  /**
   * The `permissions` claim of an application's ID token and userinfo: resource name → allowed
   * actions, now, with the client address unknown (tokens are asked for by the application's
   * server, not from the person's browser): rules restricted to addresses do not grant here.
   */
  async function claim(app: { appId: string; companyId: string }, accountId: string) {
    const [policy, person] = await Promise.all([
      cache.policy(app.companyId),
      cache.person(app.companyId, accountId),
    ]);
    const out: Record<string, string[]> = {};
    for (const [resourceId, actions] of permittedActions(policy, person, app.appId, contextOf(undefined))) {
      const resource = policy.resourcesById.get(resourceId);
      if (resource) out[resource.name] = resource.actions.filter((a) => actions.has(a));
    }
    return out;
  }

  return { authenticateApp, check, checkMany, list, claim };
}

export type DecisionService = ReturnType<typeof createDecisionService>;
