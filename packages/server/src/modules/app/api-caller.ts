import { createLocalJWKSet, type JWK, jwtVerify } from 'jose';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ApiCaller } from '../../http/callers.ts';
import { apiSecretVersion } from './app-clients.ts';

/** The management API's audience in access accounts' tokens (a resource indicator, RFC 8707). */
export const managementApiAudience = (publicUrl: string) => `${publicUrl}/api/v1/manage`;

/** The permission decision API's audience in applications' own client credentials tokens. */
export const decisionApiAudience = (publicUrl: string) => `${publicUrl}/api/v1/app/permission`;

/** Client credentials tokens live an hour. */
export const API_TOKEN_TTL = 3600;

/** The public half of a signing key (the provider's JWKS holds private keys). */
const publicJwk = ({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest }: JWK): JWK => rest;

/**
 * Verifies Tessera's own client credentials access tokens for one audience (signature, issuer,
 * audience, type, expiry) and answers the client they were issued to, with the secret they were
 * issued for.
 */
export function createAccessTokenVerifier(deps: {
  issuer: string;
  audience: string;
  /** The provider's current signing keys (they change on rotation). */
  jwks(): { keys: JWK[] };
}) {
  const keySets = new WeakMap<object, ReturnType<typeof createLocalJWKSet>>();
  const keySet = () => {
    const jwks = deps.jwks();
    let set = keySets.get(jwks);
    if (!set) {
      set = createLocalJWKSet({ keys: jwks.keys.map(publicJwk) });
      keySets.set(jwks, set);
    }
    return set;
  };
  return async function issuedTo(token: string): Promise<{ clientId: string; secretVersion: string } | null> {
    if (token.length > 4096 || token.split('.').length !== 3) return null;
    try {
      const { payload } = await jwtVerify(token, keySet(), {
        issuer: deps.issuer,
        audience: deps.audience,
        typ: 'at+jwt',
        algorithms: ['ES256'],
      });
      const { client_id: clientId, sv } = payload;
      return typeof clientId === 'string' && typeof sv === 'string' ? { clientId, secretVersion: sv } : null;
    } catch {
      return null;
    }
  };
}

/**
 * The programmatic access account behind a client credentials access token. The account is
 * read on every call, so an expired or deleted account is refused at once, even with a token
 * that has not expired yet.
 */
export function createApiCallerAuthenticator(deps: {
  db: Db;
  issuer: string;
  audience: string;
  /** The provider's current signing keys (they change on rotation). */
  jwks(): { keys: JWK[] };
}) {
  const issuedTo = createAccessTokenVerifier(deps);

  return async function authenticateApiToken(token: string): Promise<ApiCaller | null> {
    const issued = await issuedTo(token);
    if (!issued?.clientId.startsWith('api_')) return null;
    const account = await deps.db
      .selectFrom('app_api_accounts')
      .select(['id', 'company_id', 'last_used_at', 'secret_sealed'])
      .where('client_id', '=', issued.clientId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .executeTakeFirst();
    if (!account) return null;
    // A token of a secret that has been reset since.
    if (issued.secretVersion !== apiSecretVersion(account.secret_sealed)) return null;
    // "Last used" to the minute: no write on every call.
    if (!account.last_used_at || Date.now() - account.last_used_at.getTime() > 60_000) {
      await deps.db
        .updateTable('app_api_accounts')
        .set({ last_used_at: sql<Date>`now()` })
        .where('id', '=', account.id)
        .execute();
    }
    return { apiAccountId: account.id, companyId: account.company_id };
  };
}
