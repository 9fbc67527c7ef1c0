import { appLimits, appTokenAuthMethods, recommendedTokenLifetimes } from '@tessera/contract';
import { renderErrorPage } from '@tessera/portal';
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Account } from '../../db/schema.ts';
import type { AppAccessRefusal } from '../app/app-access.ts';
import { extraClientProperties, type TesseraApiClient, type TesseraAppClient } from '../app/app-clients.ts';
import { acrFor, acrValuesSupported, requestedAcr } from './authentication-context.ts';
import { appOf, isTesseraClient } from './clients.ts';
import { type ConsentStore, createGrantLoader } from './consent.ts';
import { allowedClaims, claims } from './provider-claims.ts';
import { endSessionPages, logBackchannelFailures } from './provider-logout.ts';
import {
  beforeAnswer,
  OIDC_MOUNT,
  PORTAL_ASSETS_PATH,
  pageContextOf,
  shapeProviderResponses,
} from './provider-responses.ts';
import { APP_ACCESS_PROMPT, signInPolicy } from './sign-in-policy.ts';
import { COMPANY_SECTOR_BASE } from './subject.ts';
import { accountReadAlong } from './token-context.ts';

export { APP_ACCESS_PROMPT, OIDC_MOUNT, PORTAL_ASSETS_PATH, pageContextOf };
export const INTERACTION_PATH = '/interaction';
/** What a passkey or key challenge of an OIDC interaction is bound to (its `subject`). */
export const interactionSubject = (uid: string) => `interaction:${uid}`;

export interface OidcProviderOptions {
  issuer: string;
  adapter: ReturnType<typeof import('./adapter.ts').createOidcAdapter>;
  jwks: { keys: object[] };
  cookieKeys: string[];
  clients: Configuration['clients'];
  findAccount(id: string): Promise<Account | undefined>;
  /**
   * The management API as a resource server: programmatic access accounts' client credentials
   * tokens are JWTs for this audience (verified by modules/app/api-caller.ts, nothing stored).
   */
  managementApi: { audience: string; tokenTtl: number };
  /** The permission decision API: applications' own client credentials tokens are for it. */
  decisionApi: { audience: string; tokenTtl: number };
  secureCookies: boolean;
  /** A person's departments in a company as paths (`Sales/East`): the `groups` claim. */
  departmentPaths(companyId: string, accountId: string): Promise<string[]>;
  /** What a person may do in an application (resource name → actions): the `permissions` claim. */
  permissions(app: TesseraAppClient, accountId: string): Promise<Record<string, string[]>>;
  /** Whether a person may use an application (modules/app/app-access.ts); checked at every hop. */
  appAccess(app: TesseraAppClient, accountId: string): Promise<AppAccessRefusal | null>;
  /**
   * Records a sign-in to an application through an existing single sign-on session (no sign-in
   * page: the sign-ins that went through the page are recorded there).
   */
  appSignedIn(event: {
    app: TesseraAppClient;
    clientId: string;
    accountId: string;
    ip: string;
    userAgent: string | null;
  }): Promise<void>;
  /** Records a refused token request or userinfo call as a login event. */
  appRefused(event: {
    app: TesseraAppClient;
    clientId: string;
    accountId: string;
    username: string;
    cause: AppAccessRefusal;
    ip: string;
  }): Promise<void>;
  /** A person's subject identifier for the applications of a company (subject.ts). */
  pairwiseSubject(companyId: string, accountId: string): string;
  /** What people allowed third-party applications (consent.ts). */
  consents: ConsentStore;
  /** Outgoing requests to applications: back-channel logout tokens (outbound-fetch.ts). */
  fetch: NonNullable<Configuration['fetch']>;
  /** Where failures of outgoing logout tokens are logged. */
  log: { warn(object: object, message: string): void };
}

/**
 * The authorization parameter by which the user centre's company address (/portal/c/<code>/)
 * tells the sign-in page whose brand to wear. Only the brand: who may sign in is unchanged.
 */
export const COMPANY_CODE_PARAM = 'tessera_company';

/** See `extraParams` below. */
function keepOfflineAccess(
  ctx: KoaContextWithOIDC,
  accessType: string | undefined,
  client: { scope?: string; grantTypeAllowed(type: string): boolean },
) {
  const params = ctx.oidc.params as Record<string, unknown> | undefined;
  if (!params) return;
  const raw = (ctx.method === 'POST' ? ctx.oidc.body : ctx.query) as { scope?: unknown } | undefined;
  const asked = typeof raw?.scope === 'string' && raw.scope.split(' ').includes('offline_access');
  const scopes = String(params.scope ?? '')
    .split(' ')
    .filter(Boolean);
  if ((!asked && accessType !== 'offline') || scopes.includes('offline_access')) return;
  if (
    !String(params.response_type ?? '')
      .split(' ')
      .includes('code')
  )
    return;
  if (!client.grantTypeAllowed('refresh_token')) return;
  if (client.scope && !client.scope.split(' ').includes('offline_access')) return;
  params.scope = [...scopes, 'offline_access'].join(' ');
}

export function createOidcProvider(options: OidcProviderOptions): Provider {
  // A person's `sub` at a client: pairwise per company for applications (subject.ts).
  const pairwise = async (client: { clientId: string }, accountId: string) => {
    const app = appOf(client as never);
    return app ? options.pairwiseSubject(app.companyId, accountId) : accountId;
  };
  const subjectFor = async (client: { clientId: string; subjectType?: string }, accountId: string) =>
    client.subjectType === 'pairwise' ? pairwise(client, accountId) : accountId;
  const configuration: Configuration = {
    adapter: options.adapter,
    clients: options.clients,
    // Applications are clients read by the adapter (modules/app/app-clients.ts) with these extras.
    extraClientMetadata: { properties: [...extraClientProperties] },
    jwks: options.jwks as Configuration['jwks'],
    cookies: {
      keys: options.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax', secure: options.secureCookies },
      short: { httpOnly: true, sameSite: 'lax', secure: options.secureCookies },
    },
    claims,
    scopes: ['openid', 'offline_access', 'profile', 'email', 'phone', 'groups', 'permissions'],
    acrValues: [...acrValuesSupported],
    // The code flow only, with the client authentication methods an application can be given.
    responseTypes: ['code'],
    clientAuthMethods: [...appTokenAuthMethods],
    // Applications get pairwise subjects per company (subject.ts); Tessera's own clients the account id.
    subjectTypes: ['public', 'pairwise'],
    pairwiseIdentifier: async (_ctx, accountId, client) => pairwise(client, accountId),
    // The sector of an application is its company, named by Tessera itself: nothing to fetch.
    sectorIdentifierUriValidate: (client) => !client.sectorIdentifierUri?.startsWith(COMPANY_SECTOR_BASE),
    fetch: options.fetch,
    discovery: {
      claim_types_supported: ['normal'],
      ui_locales_supported: ['en', 'zh-CN'],
      prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
      // The sign-out page loads the front-channel logout URIs (provider-responses.ts).
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    },
    // OIDC Core §11: offline access needs consent, which oidc-provider reads as `prompt=consent`
    // only and otherwise drops the scope. Tessera obtains that consent in other ways (automatic
    // for its own clients and a company's self-built apps, the consent page of a third-party app
    // asks for it as for any scope), so the scope stays, for clients allowed the refresh grant.
    // oidc-provider runs extra parameters' validators on every authorization request right after
    // its scope check: that is where this rule runs. `access_type=offline` (what applications
    // written for Google send) asks for offline access too.
    extraParams: { access_type: keepOfflineAccess, [COMPANY_CODE_PARAM]: null },
    // PKCE always, except for an application whose administrator turned it off (a third-party app
    // that cannot send it; such an app is always a confidential client with a secret).
    pkce: { required: (_ctx, client) => appOf(client as never)?.requirePkce ?? true },
    features: {
      devInteractions: { enabled: false },
      claimsParameter: { enabled: true },
      backchannelLogout: { enabled: true },
      revocation: { enabled: true },
      introspection: {
        enabled: true,
        // A client learns about its own tokens only (never another application's, or another
        // company's), and a token of a person who may no longer use the application is inactive.
        async allowedPolicy(_ctx, client, token) {
          if (token.clientId !== client.clientId) return false;
          const app = appOf(client as never);
          const accountId = (token as { accountId?: string }).accountId;
          return !(app && accountId && (await options.appAccess(app, accountId)));
        },
      },
      // Programmatic access accounts (modules/app) get tokens for the management API.
      clientCredentials: { enabled: true },
      // Their tokens are signed JWTs for the management API (no database write per grant);
      // an application's own client credentials tokens are for the permission decision API. Any
      // other client asking for a resource is refused, as before.
      resourceIndicators: {
        enabled: true,
        defaultResource: (ctx, client, oneOf) => {
          if (client.clientId.startsWith('api_')) return options.managementApi.audience;
          if (ctx.oidc.params?.grant_type === 'client_credentials' && appOf(client as never))
            return options.decisionApi.audience;
          return oneOf;
        },
        getResourceServerInfo(ctx, resource, client) {
          const api =
            resource === options.managementApi.audience && client.clientId.startsWith('api_')
              ? options.managementApi
              : resource === options.decisionApi.audience &&
                  appOf(client as never) &&
                  ctx.oidc.params?.grant_type === 'client_credentials'
                ? options.decisionApi
                : null;
          if (!api) throw new errors.InvalidTarget();
          return {
            scope: '',
            audience: api.audience,
            accessTokenTTL: api.tokenTtl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
      userinfo: { enabled: true },
      rpInitiatedLogout: endSessionPages(subjectFor),
    },
    formats: {
      customizers: {
        // An access account's token names the secret it was issued for: a secret reset ends it.
        jwt(_ctx, token, jwt) {
          const api = token.client?.tessera_api_account as TesseraApiClient | undefined;
          const app = appOf(token.client as never);
          if (api) jwt.payload.sv = api.secretVersion;
          else if (app) jwt.payload.sv = app.secretVersion;
        },
      },
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['ES256', 'RS256'],
      userinfoSigningAlgValues: ['ES256', 'RS256'],
      introspectionSigningAlgValues: ['ES256', 'RS256'],
      authorizationSigningAlgValues: ['ES256', 'RS256'],
    },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    // Lifetimes as each application sets them (spec §9 defaults for anything else).
    ttl: {
      AuthorizationCode: (_ctx, _token, client) =>
        appOf(client as never)?.ttl.authorizationCode ?? recommendedTokenLifetimes.authorizationCode,
      // Tessera's own clients (console, user centre) never use their access tokens: keep them
      // short-lived, so they leave the storage soon.
      AccessToken: (_ctx, _token, client) =>
        appOf(client as never)?.ttl.accessToken ??
        (client.clientId.startsWith('tessera-') ? 300 : recommendedTokenLifetimes.accessToken),
      IdToken: (_ctx, _token, client) =>
        appOf(client as never)?.ttl.idToken ?? recommendedTokenLifetimes.idToken,
      RefreshToken: (_ctx, _token, client) =>
        appOf(client as never)?.ttl.refreshToken ?? recommendedTokenLifetimes.refreshToken,
      // A grant outlives its refresh tokens. Saved by the consent page (no request of the
      // provider at hand), it gets the longest refresh token lifetime an app may set.
      Grant: (ctx) =>
        ctx?.oidc
          ? Math.max(
              appOf(ctx.oidc.client as never)?.ttl.refreshToken ?? 0,
              recommendedTokenLifetimes.refreshToken,
            )
          : appLimits.refreshTokenMax,
      Interaction: 600,
      Session: 12 * 3600,
      ClientCredentials: (_ctx, _token, client) =>
        appOf(client as never) ? options.decisionApi.tokenTtl : options.managementApi.tokenTtl,
    },
    // Browsers may call the token endpoint for public (single-page) apps only, and userinfo, and
    // only from the origins of the app's own callback URLs.
    clientBasedCORS(ctx, origin, client) {
      if (origin === 'null') return false;
      if (ctx.oidc.route !== 'userinfo' && client.clientAuthMethod !== 'none') return false;
      return (client.redirectUris ?? []).some((uri) => URL.canParse(uri) && new URL(uri).origin === origin);
    },
    // Refresh tokens rotate on every use; a replayed one revokes the whole grant (see the adapter).
    rotateRefreshToken: true,
    // Refresh tokens are issued for `offline_access` only (OIDC Core §11), to clients allowed the
    // refresh grant: oidc-provider's default of `issueRefreshToken`. Offline access outlives the
    // single sign-on session, except for Tessera's own clients: a console's tokens end with it.
    expiresWithSession: async (ctx, code) =>
      isTesseraClient(ctx.oidc.client as never) || !code.scopes.has('offline_access'),
    interactions: {
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
      policy: signInPolicy(options.findAccount, options.appAccess, options.pairwiseSubject),
    },
    loadExistingGrant: createGrantLoader(options.consents),
    async findAccount(ctx, id) {
      // Read with the code or refresh token of this request, if it was (token-context.ts).
      const along = accountReadAlong(id);
      const account = along === undefined ? await options.findAccount(id) : (along ?? undefined);
      // A disabled account has no claims and cannot refresh tokens.
      if (account?.status !== 'enabled') return undefined;
      // Whether the person may still use the application: checked again on every code
      // exchange, refresh and userinfo call (the authorization has its own prompt).
      const client = ctx.oidc?.client;
      const app = appOf(client as never);
      if (app && (ctx.oidc.route === 'token' || ctx.oidc.route === 'userinfo')) {
        const cause = await options.appAccess(app, account.id);
        if (cause) {
          await options.appRefused({
            app,
            clientId: client!.clientId,
            accountId: account.id,
            username: account.username,
            cause,
            ip: ctx.ip,
          });
          return undefined;
        }
      }
      const allowed = allowedClaims(client as { scope?: string } | undefined);
      return {
        accountId: account.id,
        async claims(_use, scope, requested) {
          // Departments only for an application that asked for them (by scope or by name), from
          // its own company.
          const wantsGroups =
            scope.split(' ').includes('groups') || Boolean(requested && 'groups' in requested);
          const groups =
            app && wantsGroups && (!allowed || allowed.has('groups'))
              ? await options.departmentPaths(app.companyId, account.id)
              : undefined;
          const permissions =
            app && scope.split(' ').includes('permissions')
              ? await options.permissions(app, account.id)
              : undefined;
          const values: Record<string, unknown> = {
            groups,
            permissions,
            sub: account.id,
            preferred_username: account.username,
            name: account.display_name ?? account.username,
            email: account.email ?? undefined,
            email_verified: account.email ? false : undefined,
            phone_number: account.phone ?? undefined,
            phone_number_verified: account.phone ? false : undefined,
            updated_at: Math.floor(account.password_changed_at.getTime() / 1000),
          };
          // The `claims` request parameter cannot reach past the scopes the app is allowed.
          for (const name of Object.keys(values))
            if (allowed && name !== 'sub' && !allowed.has(name)) delete values[name];
          return values as { sub: string };
        },
      };
    },
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = renderErrorPage(pageContextOf(ctx), {
        message: String(out.error_description ?? out.error),
        details: String(out.error),
      });
    },
    conformIdTokenClaims: false,
  };

  const provider = new Provider(options.issuer, configuration);
  // The mount handler (app.ts) sets X-Forwarded-For and -Proto from the server's own decision:
  // the client's address as the trusted proxies tell it, and the public URL's scheme (behind a
  // TLS-terminating proxy the public URL is https while the socket is not).
  provider.proxy = true;
  shapeProviderResponses(provider, options.issuer);
  provider.on('authorization.accepted', (ctx: KoaContextWithOIDC) => {
    const { oidc } = ctx;
    // The ID token names the session, for the application's logout (Back- and Front-Channel).
    const requested = oidc.claims as { id_token?: Record<string, unknown> };
    requested.id_token ??= {};
    if (!('sid' in requested.id_token)) requested.id_token.sid = null;
    // The acr names the strength of the sign-in as this application asked for it (a
    // multi-factor session satisfies a request for single-factor too).
    const session = oidc.session;
    if (!session?.accountId) return;
    const acr = acrFor(session.amr, requestedAcr(oidc.params as never).values);
    if (session.acr !== acr) session.acr = acr;
  });
  provider.on('authorization.success', (ctx: KoaContextWithOIDC) => {
    const app = appOf(ctx.oidc.client as never);
    const accountId = ctx.oidc.session?.accountId;
    // A login in the interaction result means the sign-in page ran in this authorization and
    // logged it. An interaction without one (a consent page after an existing session) signed
    // no one in: the use of the application is logged here.
    if (!app || !accountId || ctx.oidc.result?.login) return;
    beforeAnswer(
      ctx,
      options
        .appSignedIn({
          app,
          clientId: ctx.oidc.client!.clientId,
          accountId,
          ip: ctx.ip,
          userAgent: ctx.get('user-agent') || null,
        })
        .catch((error: unknown) => provider.emit('server_error', ctx, error)),
    );
  });
  logBackchannelFailures(provider, options.log);
  return provider;
}
