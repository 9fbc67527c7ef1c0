import { recommendedTokenLifetimes } from '@tessera/contract';
import { type PageContext, renderErrorPage, renderLoggedOutPage, renderLogoutPage } from '@tessera/portal';
import Provider, {
  type Configuration,
  errors,
  interactionPolicy,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { Account } from '../../db/schema.ts';
import { pickLanguage } from '../../lib/i18n.ts';
import type { AppAccessRefusal } from '../app/app-access.ts';
import { extraClientProperties, type TesseraApiClient, type TesseraAppClient } from '../app/app-clients.ts';

export const OIDC_MOUNT = '/oidc';
export const INTERACTION_PATH = '/interaction';
export const PORTAL_ASSETS_PATH = '/portal';

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
}

/** Tessera's settings of an application's client, when the client is an application. */
export const appOf = (client: { [key: string]: unknown } | undefined): TesseraAppClient | undefined =>
  client?.tessera_app as TesseraAppClient | undefined;

/** The interaction prompt that refuses a person an application (see signInPolicy). */
export const APP_ACCESS_PROMPT = 'app_access';

export const pageContextOf = (ctx: KoaContextWithOIDC): PageContext => ({
  lang: pickLanguage(ctx.cookies.get('lang', { signed: false }), ctx.get('accept-language')),
  currentUrl: OIDC_MOUNT + ctx.originalUrl,
  assetsBase: PORTAL_ASSETS_PATH,
});

/**
 * The provider's prompts with one more reason to sign in again: a single sign-on session ends
 * when the account is disabled or its credentials changed after the session's sign-in (a
 * password reset or change, second factors removed).
 */
function signInPolicy(
  findAccount: OidcProviderOptions['findAccount'],
  appAccess: OidcProviderOptions['appAccess'],
) {
  const { Check, Prompt, base } = interactionPolicy;
  const policy = base();
  // After the sign-in, before anything else: may this person use this application at all?
  // The interaction then shows why not (interaction.routes.ts). This runs on every
  // authorization request, also when a single sign-on session skips the sign-in page.
  policy.add(
    new Prompt(
      { name: APP_ACCESS_PROMPT, requestable: false },
      new Check(
        'app_access_denied',
        'The account may not use this application',
        'access_denied',
        async (ctx) => {
          const app = appOf(ctx.oidc.client as never);
          const accountId = ctx.oidc.session?.accountId;
          if (!app || !accountId) return Check.NO_NEED_TO_PROMPT;
          return (await appAccess(app, accountId)) ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
        },
      ),
    ),
    1,
  );
  policy.get('login')?.checks.push(
    new Check(
      'credentials_changed',
      'The credentials changed since the sign-in',
      'login_required',
      async (ctx) => {
        const { session, result } = ctx.oidc;
        if (!session?.accountId || result?.login) return Check.NO_NEED_TO_PROMPT;
        const account = await findAccount(session.accountId);
        if (account?.status !== 'enabled') return Check.REQUEST_PROMPT;
        const changed = account.credentials_changed_at;
        // Whole seconds, as the session keeps its sign-in time.
        const stale = changed !== null && Math.floor(changed.getTime() / 1000) > (session.loginTs ?? 0);
        return stale ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
      },
    ),
  );
  return policy;
}

/** Claims released per scope; the values come from the account in findAccount. */
const claims = {
  openid: ['sub'],
  profile: ['name', 'preferred_username', 'updated_at'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  // An application's people: their departments in the application's company (see findAccount).
  groups: ['groups'],
  // What the person may do in the application (modules/permission).
  permissions: ['permissions'],
};

export function createOidcProvider(options: OidcProviderOptions): Provider {
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
    // PKCE always, except for an application whose administrator turned it off (a third-party app
    // that cannot send it; such an app is always a confidential client with a secret).
    pkce: { required: (_ctx, client) => appOf(client as never)?.requirePkce ?? true },
    features: {
      devInteractions: { enabled: false },
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
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx, form) {
          ctx.type = 'html';
          ctx.body = renderLogoutPage(pageContextOf(ctx), { form });
        },
        async postLogoutSuccessSource(ctx) {
          ctx.type = 'html';
          ctx.body = renderLoggedOutPage(pageContextOf(ctx), {
            clientName: ctx.oidc.client?.clientName ?? undefined,
          });
        },
      },
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
      Grant: (ctx) =>
        Math.max(
          appOf(ctx.oidc?.client as never)?.ttl.refreshToken ?? 0,
          recommendedTokenLifetimes.refreshToken,
        ),
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
    async issueRefreshToken(_ctx, client) {
      return client.grantTypeAllowed('refresh_token');
    },
    interactions: {
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
      policy: signInPolicy(options.findAccount, options.appAccess),
    },
    // An enterprise identity provider: the company decides who may use an app, so there is no
    // per-user consent screen. The grant is created with exactly the scopes that were asked for.
    async loadExistingGrant(ctx) {
      const grantId =
        ctx.oidc.result?.consent?.grantId || ctx.oidc.session?.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) {
        const existing = await ctx.oidc.provider.Grant.find(grantId);
        if (existing) return existing;
      }
      if (!ctx.oidc.session?.accountId) return undefined;
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope(ctx.oidc.requestParamScopes ? [...ctx.oidc.requestParamScopes].join(' ') : 'openid');
      await grant.save();
      return grant;
    },
    async findAccount(ctx, id) {
      const account = await options.findAccount(id);
      // A disabled account has no claims and cannot refresh tokens.
      if (account?.status !== 'enabled') return undefined;
      // Whether the person may still use the application: checked again on every code
      // exchange, refresh and userinfo call (the authorization has its own prompt).
      const app = appOf(ctx.oidc?.client as never);
      if (app && (ctx.oidc.route === 'token' || ctx.oidc.route === 'userinfo')) {
        const cause = await options.appAccess(app, account.id);
        if (cause) {
          await options.appRefused({
            app,
            clientId: ctx.oidc.client!.clientId,
            accountId: account.id,
            username: account.username,
            cause,
            ip: ctx.ip,
          });
          return undefined;
        }
      }
      return {
        accountId: account.id,
        async claims(_use, scope) {
          // Departments only for an application that asked for them, from its own company.
          const groups =
            app && scope.split(' ').includes('groups')
              ? await options.departmentPaths(app.companyId, account.id)
              : undefined;
          const permissions =
            app && scope.split(' ').includes('permissions')
              ? await options.permissions(app, account.id)
              : undefined;
          return {
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
  provider.on('authorization.success', (ctx: KoaContextWithOIDC) => {
    const app = appOf(ctx.oidc.client as never);
    const accountId = ctx.oidc.session?.accountId;
    // An interaction result means the sign-in page ran in this authorization and logged it.
    if (!app || !accountId || ctx.oidc.result) return;
    options
      .appSignedIn({
        app,
        clientId: ctx.oidc.client!.clientId,
        accountId,
        ip: ctx.ip,
        userAgent: ctx.get('user-agent') || null,
      })
      .catch((error: unknown) => provider.emit('server_error', ctx, error));
  });
  return provider;
}
