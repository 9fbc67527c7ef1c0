import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';

/**
 * A relying party of the conformance suite, listening on 127.0.0.1: it signs people in through
 * Tessera with either of two independent libraries, openid-client (`oc`) or oauth4webapi used
 * directly (`o4`), checks everything each library checks (state, nonce, iss in the authorization
 * response per RFC 9207, ID token signature and claims, max_age and auth_time, userinfo subject),
 * and receives back-channel logout tokens (verified against the provider's JWKS) and
 * front-channel logout requests. Every outcome is recorded and shown on the page it answers.
 */

export type Library = 'oc' | 'o4';
export const LIBRARIES: readonly Library[] = ['oc', 'o4'];

export interface Outcome {
  library: Library;
  state: string;
  error?: string;
  responseIss?: string | null;
  claims?: Record<string, unknown>;
  userinfo?: Record<string, unknown>;
  idToken?: string;
  refreshToken?: string;
  accessToken?: string;
}

export interface LogoutDelivery {
  channel: 'back' | 'front';
  name: string;
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  query?: Record<string, string>;
  error?: string;
}

interface Pending {
  library: Library;
  verifier: string;
  nonce?: string;
  maxAge?: number;
}

export interface ConformanceRp {
  base: string;
  issuer: string;
  /** The callback address of a library (registered on the app). */
  callback(library: Library): string;
  /** Where the browser starts a sign-in: `/start/<lib>?...authorization parameters`. */
  start(library: Library, params?: Record<string, string>): string;
  configure(credentials: { clientId: string; clientSecret: string }): void;
  /** Accepts logout tokens for another client of the same relying party (a second app). */
  trust(clientId: string): void;
  outcomes: Map<string, Outcome>;
  /** The outcome of the last sign-in that went through a library's callback. */
  last(library: Library): Outcome | undefined;
  logouts: LogoutDelivery[];
  /** Builds the end-session URL of a library (with the ID token of its last sign-in). */
  endSession(library: Library, params: Record<string, string>): Promise<string>;
  /** Refreshes with a library; answers the new tokens' claims. */
  refresh(
    library: Library,
    refreshToken: string,
  ): Promise<{ refreshToken?: string; claims?: Record<string, unknown> }>;
  stop(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

/** The body of a request, as text (the relying parties' form posts). */
export async function bodyOf(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

export async function startConformanceRp(issuer: string): Promise<ConformanceRp> {
  let base = '';
  let credentials: { clientId: string; clientSecret: string } | undefined;
  let ocConfig: client.Configuration | undefined;
  let o4Server: oauth.AuthorizationServer | undefined;
  const pending = new Map<string, Pending>();
  const outcomes = new Map<string, Outcome>();
  const lastOf = new Map<Library, string>();
  const logouts: LogoutDelivery[] = [];
  const audiences = new Set<string>();
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const callback = (library: Library) => `${base}/cb/${library}`;

  const ocClient = async () => {
    if (!credentials) throw new Error('the relying party has no client yet');
    ocConfig ??= await client.discovery(
      new URL(issuer),
      credentials.clientId,
      { id_token_signed_response_alg: 'ES256' },
      client.ClientSecretBasic(credentials.clientSecret),
      { execute: [client.allowInsecureRequests] },
    );
    return ocConfig;
  };
  const o4 = async () => {
    if (!credentials) throw new Error('the relying party has no client yet');
    const issuerUrl = new URL(issuer);
    o4Server ??= await oauth.processDiscoveryResponse(
      issuerUrl,
      await oauth.discoveryRequest(issuerUrl, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }),
    );
    const o4Client: oauth.Client = { client_id: credentials.clientId, id_token_signed_response_alg: 'ES256' };
    return { as: o4Server, client: o4Client, auth: oauth.ClientSecretBasic(credentials.clientSecret) };
  };

  /** The authorization URL of a library; `nonce=omit` leaves the nonce out (OIDC Core allows it for code). */
  async function authorizationUrl(library: Library, params: Record<string, string>) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const { nonce: nonceParam, ...rest } = params;
    const nonce = nonceParam === 'omit' ? undefined : client.randomNonce();
    pending.set(state, { library, verifier, nonce, maxAge: rest.max_age ? Number(rest.max_age) : undefined });
    const all = {
      redirect_uri: callback(library),
      scope: 'openid profile email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...(nonce ? { nonce } : {}),
      ...rest,
    };
    if (library === 'oc') return client.buildAuthorizationUrl(await ocClient(), all);
    const { as, client: c } = await o4();
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({ client_id: c.client_id, response_type: 'code', ...all }).toString();
    return url;
  }

  /** Completes a sign-in from the callback (query, or the form_post body). */
  async function complete(library: Library, url: URL, posted: URLSearchParams | undefined): Promise<Outcome> {
    const parameters = posted ?? url.searchParams;
    const state = parameters.get('state') ?? '';
    const flow = pending.get(state);
    const outcome: Outcome = { library, state, responseIss: parameters.get('iss') };
    if (!flow) return { ...outcome, error: 'unknown state' };
    pending.delete(state);
    if (parameters.get('error')) return { ...outcome, error: parameters.get('error') ?? 'error' };
    try {
      if (library === 'oc') {
        const config = await ocClient();
        const current = posted
          ? new Request(url, {
              method: 'POST',
              body: posted,
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
            })
          : url;
        const tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: flow.verifier,
          expectedState: state,
          expectedNonce: flow.nonce,
          maxAge: flow.maxAge,
          idTokenExpected: true,
        });
        const claims = tokens.claims() as Record<string, unknown>;
        const userinfo = await client.fetchUserInfo(config, tokens.access_token, String(claims.sub));
        return {
          ...outcome,
          claims,
          userinfo,
          idToken: tokens.id_token,
          accessToken: tokens.access_token,
          refreshToken: tokens.refresh_token,
        };
      }
      const { as, client: c, auth } = await o4();
      const options = { [oauth.allowInsecureRequests]: true };
      const params = oauth.validateAuthResponse(as, c, parameters, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        c,
        auth,
        params,
        callback(library),
        flow.verifier,
        options,
      );
      const result = await oauth.processAuthorizationCodeResponse(as, c, response, {
        expectedNonce: flow.nonce ?? oauth.expectNoNonce,
        maxAge: flow.maxAge,
        requireIdToken: true,
      });
      const claims = oauth.getValidatedIdTokenClaims(result) as unknown as Record<string, unknown>;
      const info = await oauth.processUserInfoResponse(
        as,
        c,
        String(claims.sub),
        await oauth.userInfoRequest(as, c, result.access_token, options),
      );
      return {
        ...outcome,
        claims,
        userinfo: info as Record<string, unknown>,
        idToken: result.id_token,
        accessToken: result.access_token,
        refreshToken: result.refresh_token,
      };
    } catch (error) {
      return {
        ...outcome,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      };
    }
  }

  async function verifyLogoutToken(name: string, token: string) {
    try {
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        issuer,
        audience: [...audiences],
        typ: 'logout+jwt',
        maxTokenAge: '2 minutes',
      });
      const events = payload.events as Record<string, unknown> | undefined;
      if (!events?.['http://schemas.openid.net/event/backchannel-logout']) throw new Error('no logout event');
      if ('nonce' in payload) throw new Error('a logout token has no nonce');
      logouts.push({
        channel: 'back',
        name,
        claims: payload,
        header: protectedHeader as Record<string, unknown>,
      });
    } catch (error) {
      logouts.push({ channel: 'back', name, error: String(error) });
    }
  }

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', base);
    const answer = (status: number, html: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      response.end(html);
    };
    (async () => {
      const [, route, name] = url.pathname.split('/');
      if (route === 'start' && (name === 'oc' || name === 'o4')) {
        const target = await authorizationUrl(name, Object.fromEntries(url.searchParams));
        return answer(302, '', { location: target.toString() });
      }
      if (route === 'cb' && (name === 'oc' || name === 'o4')) {
        const posted = request.method === 'POST' ? new URLSearchParams(await bodyOf(request)) : undefined;
        const outcome = await complete(name, url, posted);
        outcomes.set(outcome.state, outcome);
        lastOf.set(name, outcome.state);
        const shown = { ...outcome, idToken: undefined, accessToken: undefined, refreshToken: undefined };
        return answer(
          200,
          page(
            outcome.error ? 'Sign-in failed' : 'Signed in',
            `<pre id="outcome">${escapeHtml(JSON.stringify(shown))}</pre>`,
          ),
        );
      }
      if (route === 'backchannel' && request.method === 'POST') {
        const token = new URLSearchParams(await bodyOf(request)).get('logout_token') ?? '';
        await verifyLogoutToken(name ?? '', token);
        response.writeHead(200, { 'cache-control': 'no-store' });
        return response.end();
      }
      if (route === 'frontchannel') {
        logouts.push({ channel: 'front', name: name ?? '', query: Object.fromEntries(url.searchParams) });
        return answer(200, page('Signed out', ''), { 'cache-control': 'no-store' });
      }
      if (route === 'bye')
        return answer(
          200,
          page('Goodbye', `<p id="bye-state">${escapeHtml(url.searchParams.get('state') ?? '')}</p>`),
        );
      return answer(404, page('Not found', ''));
    })().catch((error: unknown) =>
      answer(500, page('Error', `<pre id="outcome">${escapeHtml(String(error))}</pre>`)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    base,
    issuer,
    callback,
    start: (library, params = {}) => `${base}/start/${library}?${new URLSearchParams(params)}`,
    configure(next) {
      credentials = next;
      audiences.add(next.clientId);
      ocConfig = undefined;
      o4Server = undefined;
    },
    trust: (clientId) => audiences.add(clientId),
    outcomes,
    last: (library) => outcomes.get(lastOf.get(library) ?? ''),
    logouts,
    async endSession(library, params) {
      const idToken = outcomes.get(lastOf.get(library) ?? '')?.idToken ?? '';
      if (library === 'oc')
        return client.buildEndSessionUrl(await ocClient(), { id_token_hint: idToken, ...params }).toString();
      const { as } = await o4();
      const url = new URL(as.end_session_endpoint as string);
      url.search = new URLSearchParams({ id_token_hint: idToken, ...params }).toString();
      return url.toString();
    },
    async refresh(library, refreshToken) {
      if (library === 'oc') {
        const tokens = await client.refreshTokenGrant(await ocClient(), refreshToken);
        return { refreshToken: tokens.refresh_token, claims: tokens.claims() as Record<string, unknown> };
      }
      const { as, client: c, auth } = await o4();
      const result = await oauth.processRefreshTokenResponse(
        as,
        c,
        await oauth.refreshTokenGrantRequest(as, c, auth, refreshToken, {
          [oauth.allowInsecureRequests]: true,
        }),
      );
      return {
        refreshToken: result.refresh_token,
        claims: oauth.getValidatedIdTokenClaims(result) as unknown as Record<string, unknown>,
      };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
