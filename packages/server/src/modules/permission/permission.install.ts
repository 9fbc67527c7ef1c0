import type { JWK } from 'jose';
import type { DatabaseHandle, Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { API_TOKEN_TTL, createAccessTokenVerifier, decisionApiAudience } from '../app/api-caller.ts';
import { pairwiseSubjects } from '../oidc/subject.ts';
import { createAuthorizationService } from './authorization.service.ts';
import { createDecisionService, credentialsLoader } from './decision.service.ts';
import { permissionRoutes } from './permission.routes.ts';
import { createPermissionCache, PERMISSIONS_CHANNEL } from './policy-cache.ts';
import { createResourceService } from './resource.service.ts';
import { createRoleService } from './role.service.ts';

/**
 * Permissions: decided from a cache that every change on every instance invalidates. The
 * decision API takes applications' own client credentials tokens, signed with the provider's
 * current keys.
 */
export async function installPermissions(deps: {
  db: Db;
  sealer: Sealer;
  listen: DatabaseHandle['listen'];
  publicUrl: string;
  issuer: string;
  /** The OIDC provider's current signing keys (built after this: the provider's claims need decisions). */
  jwks(): { keys: JWK[] };
}) {
  const { db } = deps;
  const cache = createPermissionCache({ db, loadCredentials: credentialsLoader(db, deps.sealer) });
  const unlisten = await deps.listen(PERMISSIONS_CHANNEL, cache.onNotice);
  const decisionApi = { audience: decisionApiAudience(deps.publicUrl), tokenTtl: API_TOKEN_TTL };
  const decisions = createDecisionService({
    db,
    cache,
    accountOfSubject: pairwiseSubjects(deps.sealer).accountOf,
    tokenIssuedTo: createAccessTokenVerifier({ issuer: deps.issuer, ...decisionApi, jwks: deps.jwks }),
  });
  const roles = createRoleService({ db, cache });
  return {
    decisions,
    decisionApi,
    /** Roles and their people, for front doors that change them (SCIM): the console's rules and audit. */
    roles,
    /** The console's calls: resources, roles, authorizations, and the decision API. */
    routes: (bind: Bind) =>
      permissionRoutes(bind, {
        resources: createResourceService({ db, cache }),
        roles,
        authorizations: createAuthorizationService({ db, cache }),
        decisions,
      }),
    /** Stops following changes made on other instances. */
    close: unlisten,
  };
}

export type Permissions = Awaited<ReturnType<typeof installPermissions>>;
