import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { inject } from 'light-my-request';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import type { DatabaseHandle, Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import { API_TOKEN_TTL, managementApiAudience } from '../app/api-caller.ts';
import { appAccessById, logAppSignIn } from '../app/app-access.ts';
import { findClientMetadata } from '../app/app-clients.ts';
import { departmentPathsOf } from '../department/department.repo.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { DecisionService } from '../permission/decision.service.ts';
import { portalClient, portalClientMetadata } from '../portal/portal.routes.ts';
import { samlLogoutHook } from '../saml/saml-logout-hook.ts';
import type { SamlSlo } from '../saml/saml-slo.service.ts';
import { type ConsoleClient, consoleClientMetadata } from '../session/console-clients.ts';
import type { TokenEndpoint } from '../session/session.service.ts';
import { createOidcAdapter } from './adapter.ts';
import { createClientThrottle } from './client-throttle.ts';
import { createConsentStore } from './consent.ts';
import { ensureSigningKeys, KEYS_CHANNEL, loadJwks } from './keys.ts';
import { createOidcProvider } from './provider.ts';
import { createSignOut, type ServiceSignOut } from './sign-out.ts';
import { pairwiseSubject } from './subject.ts';

/**
 * The OIDC provider of the platform, rebuilt when the signing keys change (on any instance):
 * every client found through the adapter and throttled alike, its cookies keyed from the master
 * key, the consents people gave, and what other areas use it through: the token endpoint (the
 * consoles' and SAML's sign-ins), back-channel sign-out, and the current keys.
 */
export async function installOidcProvider(deps: {
  db: Db;
  sealer: Sealer;
  listen: DatabaseHandle['listen'];
  publicUrl: string;
  issuer: string;
  secureCookies: boolean;
  accounts: Pick<AccountsRepo, 'findAccountById'>;
  /** The consoles' clients (modules/session); the portal's is added here. */
  consoleClients: ConsoleClient[];
  /** Where SAML applications, which sign in as internal clients, come back to (modules/saml). */
  samlClientUrls: { callback: string; logoutReturn: string };
  samlSlo: Pick<SamlSlo, 'afterSsoLogout'>;
  /** Where CAS applications, which sign in as internal clients, come back to (modules/cas). */
  casClientUrls: { callback: string; logoutReturn: string };
  /** Single logout of the CAS services of a single sign-on session that ends (modules/cas). */
  casLogoutHook: (ctx: KoaContextWithOIDC, next: () => Promise<unknown>) => Promise<void>;
  /** Signing out at the upstream identity provider a session came from (modules/identity-source/upstream). */
  upstreamLogoutHook?: (ctx: KoaContextWithOIDC, next: () => Promise<unknown>) => Promise<void>;
  /** The CAS services told, beside the OIDC applications, when an administrator ends a person's sessions. */
  serviceSignOuts: readonly ServiceSignOut[];
  decisions: Pick<DecisionService, 'claim'>;
  decisionApi: { audience: string; tokenTtl: number };
  outbound: Pick<OutboundPolicy, 'fetch'>;
  metrics: Pick<Metrics, 'watchProvider'>;
  log: FastifyBaseLogger;
}) {
  const { db, sealer, issuer, log } = deps;
  await ensureSigningKeys(db, sealer);
  // Every client, Tessera's own included, is found through the adapter; failed client
  // authentications are throttled the same way for all of them (client-throttle.ts).
  const ownClients = new Map(
    [
      ...deps.consoleClients.map(consoleClientMetadata),
      portalClientMetadata(portalClient(deps.publicUrl, sealer)),
    ].map((metadata) => [metadata.client_id, metadata]),
  );
  // The token endpoint's requests from this server itself (tokenEndpoint below).
  const inProcessRequests = new WeakSet<object>();
  const clientThrottle = createClientThrottle(db);
  const Adapter = createOidcAdapter(
    db,
    async (clientId) =>
      ownClients.get(clientId) ??
      findClientMetadata(db, sealer, clientId, deps.samlClientUrls, deps.casClientUrls),
    () => {
      const ctx = Provider.ctx as { req?: object } | undefined;
      return Boolean(ctx?.req && inProcessRequests.has(ctx.req));
    },
  );
  const appAccess = (app: { appId: string }, accountId: string) => appAccessById(db, app.appId, accountId);
  const cookieKeys = [sealer.derive('oidc-cookies').toString('base64url')];
  const managementApi = { audience: managementApiAudience(deps.publicUrl), tokenTtl: API_TOKEN_TTL };
  const consents = createConsentStore(db);
  const buildProvider = async () => {
    const jwks = await loadJwks(db, sealer);
    const provider = createOidcProvider({
      issuer,
      adapter: Adapter,
      jwks,
      managementApi,
      decisionApi: deps.decisionApi,
      cookieKeys,
      clients: [],
      findAccount: deps.accounts.findAccountById,
      secureCookies: deps.secureCookies,
      appAccess,
      departmentPaths: (companyId, accountId) => departmentPathsOf(db, companyId, accountId),
      permissions: (app, accountId) => deps.decisions.claim(app, accountId),
      appRefused: ({ app, ...event }) =>
        logAppSignIn(db, { ...event, companyId: app.companyId, userAgent: null }),
      appSignedIn: ({ app, ...event }) =>
        logAppSignIn(db, { ...event, companyId: app.companyId, cause: null }),
      pairwiseSubject: pairwiseSubject(sealer),
      consents,
      fetch: deps.outbound.fetch,
      log,
    });
    deps.metrics.watchProvider(provider);
    clientThrottle.watch(provider, (error) =>
      log.warn({ err: error }, 'counting a client authentication failed'),
    );
    // Single logout reaches the SAML applications of a single sign-on session that ends.
    provider.use(samlLogoutHook(deps.samlSlo));
    provider.use(deps.casLogoutHook);
    // Innermost: the sign-out goes on to the upstream provider after the applications were told.
    if (deps.upstreamLogoutHook) provider.use(deps.upstreamLogoutHook);
    return { provider, callback: provider.callback(), jwks };
  };
  let current = await buildProvider();
  // An administrator's disable, lock, removal, password reset or factor removal signs the person
  // out of their applications too (back-channel logout, modules/oidc/sign-out.ts), CAS services
  // included.
  const signOut = createSignOut({
    db,
    provider: () => current.provider,
    log,
    serviceSignOuts: deps.serviceSignOuts,
  });
  const reloadKeys = async () => {
    current = await buildProvider();
  };
  const unlisten = await deps.listen(KEYS_CHANNEL, () => {
    reloadKeys().catch((error) => log.error({ err: error }, 'reloading signing keys failed'));
  });

  /** The provider's token endpoint, called in-process with a client's credentials. */
  const tokenEndpoint: TokenEndpoint = async (params, client) => {
    const callback = current.callback;
    const dispatch = (request: IncomingMessage, response: ServerResponse) => {
      inProcessRequests.add(request);
      callback(request, response);
    };
    const response = await inject(dispatch, {
      method: 'POST',
      url: '/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(
          `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
        ).toString('base64')}`,
      },
      payload: new URLSearchParams(params).toString(),
    });
    return { status: response.statusCode, body: JSON.parse(response.payload || '{}') };
  };

  return {
    provider: () => current.provider,
    /** The current provider's callback, for the routes under /oidc. */
    callback: (request: IncomingMessage, response: ServerResponse) => current.callback(request, response),
    jwks: () => current.jwks,
    /** Rebuilds the provider from the stored keys (after a rotation elsewhere). */
    reloadKeys,
    tokenEndpoint,
    signOut,
    consents,
    managementApi,
    /** Stops following key rotations. */
    close: unlisten,
  };
}

export type OidcInstall = Awaited<ReturnType<typeof installOidcProvider>>;
