import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appTemplates } from '@tessera/contract/constants';
import * as oauth from 'oauth4webapi';
import { bodyOf } from './conformance-rp.ts';

/**
 * The catalogue's applications as they talk to an OpenID provider, from their own code and
 * documentation: each sends its own scopes, PKCE or not, a nonce or not, the `claims` parameter
 * (Nextcloud), authenticates at the token endpoint its own way, refreshes (Grafana, Harbor) and
 * receives back-channel logout tokens (Nextcloud). One server on 127.0.0.1 plays all five, each
 * under its own path (`/<key>`), so the catalogue's templates fill in the callback addresses.
 */
export interface ProductBehaviour {
  key: 'gitlab' | 'grafana' | 'jenkins' | 'nextcloud' | 'harbor';
  /** The scope string the product sends. */
  scope: string;
  pkce: boolean;
  nonce: boolean;
  auth: 'client_secret_basic' | 'client_secret_post';
  /** Extra authorization parameters the product sends. */
  extra?: Record<string, string>;
  /** The product refreshes its tokens (it asked offline_access). */
  refreshes?: boolean;
  /** Where it comes from: the product's documentation or code. */
  source: string;
}

export const PRODUCTS: readonly ProductBehaviour[] = [
  {
    key: 'gitlab',
    scope: 'openid profile email',
    pkce: true,
    nonce: true,
    auth: 'client_secret_post',
    source:
      'docs.gitlab.com administration/auth/oidc: omniauth openid_connect, client_auth_method "query", pkce: true',
  },
  {
    key: 'grafana',
    scope: 'openid email profile offline_access',
    pkce: true,
    nonce: false,
    auth: 'client_secret_post',
    refreshes: true,
    source: 'grafana.com generic OAuth: scopes with offline_access, use_pkce (S256), use_refresh_token',
  },
  {
    key: 'jenkins',
    scope: 'openid profile email',
    pkce: true,
    nonce: true,
    auth: 'client_secret_post',
    source: 'plugins.jenkins.io/oic-auth: PKCE, nonce, client_secret_post',
  },
  {
    key: 'nextcloud',
    scope: 'openid email profile',
    pkce: true,
    nonce: true,
    auth: 'client_secret_post',
    // user_oidc LoginController: the claims it maps, for the ID token and userinfo.
    extra: {
      claims: JSON.stringify({
        id_token: { email: null, name: null, quota: null, groups: null },
        userinfo: { email: null, name: null, quota: null, groups: null },
      }),
    },
    source: 'nextcloud/user_oidc LoginController: claims parameter, nonce, PKCE S256, client_secret_post',
  },
  {
    key: 'harbor',
    scope: 'openid profile email offline_access',
    pkce: false,
    nonce: false,
    auth: 'client_secret_basic',
    refreshes: true,
    source:
      'goharbor/harbor src/pkg/oidc/helper.go: golang.org/x/oauth2 AuthCodeURL, scopes with offline_access',
  },
];

export interface ProductOutcome {
  error?: string;
  claims?: Record<string, unknown>;
  userinfo?: Record<string, unknown>;
  refreshed?: boolean;
  idToken?: string;
  /** The authorization request as the product sent it. */
  sent?: Record<string, string>;
}

export interface CatalogueRp {
  base: string;
  baseOf(key: string): string;
  configure(key: string, credentials: { clientId: string; clientSecret: string }): void;
  loginUrl(key: string): string;
  outcomes: Map<string, ProductOutcome>;
  /** Logout tokens received by a product (its back-channel logout URI). */
  logoutTokens: Map<string, string[]>;
  stop(): Promise<void>;
}

export async function startCatalogueRp(issuer: string): Promise<CatalogueRp> {
  let base = '';
  const credentials = new Map<string, { clientId: string; clientSecret: string }>();
  const pending = new Map<string, { verifier?: string; nonce?: string }>();
  const outcomes = new Map<string, ProductOutcome>();
  const logoutTokens = new Map<string, string[]>();
  const options = { [oauth.allowInsecureRequests]: true };
  const issuerUrl = new URL(issuer);
  let as: oauth.AuthorizationServer | undefined;
  const server_ = async () => {
    as ??= await oauth.processDiscoveryResponse(
      issuerUrl,
      await oauth.discoveryRequest(issuerUrl, { algorithm: 'oidc', ...options }),
    );
    return as;
  };
  const templateOf = (key: string) => appTemplates.find((t) => t.key === key)!;
  const redirectUriOf = (key: string) => `${base}/${key}${templateOf(key).redirectPath}`;

  async function login(product: ProductBehaviour) {
    const authServer = await server_();
    const creds = credentials.get(product.key)!;
    const state = oauth.generateRandomState();
    const verifier = product.pkce ? oauth.generateRandomCodeVerifier() : undefined;
    const nonce = product.nonce ? oauth.generateRandomNonce() : undefined;
    pending.set(state, { verifier, nonce });
    const sent: Record<string, string> = {
      response_type: 'code',
      client_id: creds.clientId,
      redirect_uri: redirectUriOf(product.key),
      scope: product.scope,
      state,
      ...(nonce ? { nonce } : {}),
      ...(verifier
        ? { code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }
        : {}),
      ...product.extra,
    };
    const url = new URL(authServer.authorization_endpoint as string);
    url.search = new URLSearchParams(sent).toString();
    outcomes.set(product.key, { sent });
    return url;
  }

  async function finish(product: ProductBehaviour, url: URL): Promise<ProductOutcome> {
    const authServer = await server_();
    const creds = credentials.get(product.key)!;
    const flow = pending.get(url.searchParams.get('state') ?? '');
    if (!flow) return { error: 'unknown state' };
    const c: oauth.Client = { client_id: creds.clientId, id_token_signed_response_alg: 'RS256' };
    const auth =
      product.auth === 'client_secret_post'
        ? oauth.ClientSecretPost(creds.clientSecret)
        : oauth.ClientSecretBasic(creds.clientSecret);
    try {
      const params = oauth.validateAuthResponse(
        authServer,
        c,
        url,
        url.searchParams.get('state') ?? undefined,
      );
      const response = await oauth.authorizationCodeGrantRequest(
        authServer,
        c,
        auth,
        params,
        redirectUriOf(product.key),
        flow.verifier ?? oauth.nopkce,
        options,
      );
      const result = await oauth.processAuthorizationCodeResponse(authServer, c, response, {
        expectedNonce: flow.nonce ?? oauth.expectNoNonce,
        requireIdToken: true,
      });
      const claims = oauth.getValidatedIdTokenClaims(result) as unknown as Record<string, unknown>;
      const userinfo = (await oauth.processUserInfoResponse(
        authServer,
        c,
        String(claims.sub),
        await oauth.userInfoRequest(authServer, c, result.access_token, options),
      )) as Record<string, unknown>;
      let refreshed: boolean | undefined;
      if (product.refreshes) {
        if (!result.refresh_token) return { error: 'no refresh token', claims };
        const again = await oauth.processRefreshTokenResponse(
          authServer,
          c,
          await oauth.refreshTokenGrantRequest(authServer, c, auth, result.refresh_token, options),
        );
        refreshed = Boolean(again.access_token && again.refresh_token);
      }
      return { claims, userinfo, refreshed, idToken: result.id_token };
    } catch (error) {
      return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
  }

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', base);
    const product = PRODUCTS.find((p) => url.pathname.startsWith(`/${p.key}/`));
    const answer = (status: number, text: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      response.end(text);
    };
    (async () => {
      if (!product) return answer(404, 'not found');
      const path = url.pathname.slice(product.key.length + 1);
      if (path === '/login') return answer(302, '', { location: (await login(product)).toString() });
      if (path === templateOf(product.key).redirectPath) {
        const outcome = { ...outcomes.get(product.key), ...(await finish(product, url)) };
        outcomes.set(product.key, outcome);
        return answer(
          200,
          `<pre id="outcome">${outcome.error ? `error ${outcome.error}` : 'signed in'}</pre>`,
        );
      }
      if (path === templateOf(product.key).backchannelLogoutPath && request.method === 'POST') {
        const token = new URLSearchParams(await bodyOf(request)).get('logout_token') ?? '';
        logoutTokens.set(product.key, [...(logoutTokens.get(product.key) ?? []), token]);
        return answer(200, '');
      }
      return answer(200, `<p id="product-page">${product.key}</p>`);
    })().catch((error: unknown) => answer(500, `<pre id="outcome">error ${String(error)}</pre>`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    base,
    baseOf: (key) => `${base}/${key}`,
    configure: (key, next) => credentials.set(key, next),
    loginUrl: (key) => `${base}/${key}/login`,
    outcomes,
    logoutTokens,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
