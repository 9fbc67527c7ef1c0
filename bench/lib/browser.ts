/**
 * The benchmarks' browser and console: cookies by hand, the sign-in and authorization flow with
 * redirects followed by hand, and the console's API and token calls. Everything talks to
 * 127.0.0.1 only.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { generateTotp } from '../../packages/server/src/lib/otp/totp.ts';
import { ADMIN, type BenchServer, CLIENT_ID } from './server.ts';

// ---------------------------------------------------------------------------------------------
// Cookies

interface Cookie {
  name: string;
  value: string;
  path: string;
}

/** Just enough of a browser's cookie jar for one host: names, paths, deletion. */
export class CookieJar {
  #cookies = new Map<string, Cookie>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const cookie: Cookie = { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), path: '/' };
      let expired = false;
      for (const attribute of attributes) {
        const [key = '', ...rest] = attribute.split('=');
        const value = rest.join('=').trim();
        switch (key.trim().toLowerCase()) {
          case 'path':
            cookie.path = value || '/';
            break;
          case 'expires':
            if (Date.parse(value) <= Date.now()) expired = true;
            break;
          case 'max-age':
            if (Number(value) <= 0) expired = true;
            break;
        }
      }
      const key = `${cookie.path}\t${cookie.name}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, cookie);
    }
  }

  /** The Cookie header for a request to `path`. */
  header(path: string): string {
    const matching = [...this.#cookies.values()].filter(
      (c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
    );
    // Longer paths first, as browsers send them.
    matching.sort((a, b) => b.path.length - a.path.length);
    return matching.map((c) => `${c.name}=${c.value}`).join('; ');
  }
}

// ---------------------------------------------------------------------------------------------
// The sign-in and authorization flow

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** GET with the jar's cookies, no redirect following; stores the answer's cookies. */
async function getWithJar(server: BenchServer, jar: CookieJar, url: string): Promise<Response> {
  const target = new URL(url, server.base);
  // Whatever host a redirect names, the request goes to 127.0.0.1 (localhost is the public URL).
  const path = target.pathname + target.search;
  const response = await fetch(`${server.base}${path}`, {
    redirect: 'manual',
    headers: { cookie: jar.header(target.pathname) },
  });
  jar.store(response);
  return response;
}

/** The relying party an authorization flow is for: the developer console unless told otherwise. */
export interface RelyingParty {
  clientId: string;
  redirectUri: string;
}

const consoleParty = (server: BenchServer): RelyingParty => ({
  clientId: CLIENT_ID,
  redirectUri: server.redirectUri,
});

export function authorizationUrl(
  server: BenchServer,
  challenge: string,
  party: RelyingParty = consoleParty(server),
): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: party.clientId,
    redirect_uri: party.redirectUri,
    scope: 'openid',
    state: randomBytes(8).toString('base64url'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `/oidc/auth?${query}`;
}

export interface PendingInteraction {
  uid: string;
  csrf: string;
  jar: CookieJar;
  pkce: Pkce;
  party: RelyingParty;
}

const codeFrom = (redirectUri: string, location: string): string | undefined => {
  if (!location.startsWith(redirectUri)) return undefined;
  const url = new URL(location);
  const error = url.searchParams.get('error');
  if (error) throw new Error(`authorization failed: ${error} ${url.searchParams.get('error_description')}`);
  return url.searchParams.get('code') ?? undefined;
};

/**
 * Follows redirects from `url` (at most 8) until the client's redirect URI (returns the code) or a
 * page (returns the response, e.g. the sign-in form).
 */
export async function follow(
  server: BenchServer,
  jar: CookieJar,
  url: string,
  redirectUri = server.redirectUri,
): Promise<{ code: string } | { page: Response; url: string }> {
  let current = url;
  for (let hop = 0; hop < 8; hop++) {
    const response = await getWithJar(server, jar, current);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.arrayBuffer();
      const code = codeFrom(redirectUri, location);
      if (code) return { code };
      current = location;
      continue;
    }
    return { page: response, url: current };
  }
  throw new Error(`too many redirects from ${url}`);
}

/** An authorization request with new PKCE codes, its redirects followed in `jar`. */
async function authorize(server: BenchServer, jar: CookieJar, party: RelyingParty) {
  const codes = pkce();
  const result = await follow(
    server,
    jar,
    authorizationUrl(server, codes.challenge, party),
    party.redirectUri,
  );
  return { codes, result };
}

/** Starts an authorization request in a new browser and loads the sign-in form. */
export async function beginInteraction(
  server: BenchServer,
  party: RelyingParty = consoleParty(server),
): Promise<PendingInteraction> {
  const jar = new CookieJar();
  const { codes, result } = await authorize(server, jar, party);
  if ('code' in result) throw new Error('a new browser got a code without signing in');
  const html = await result.page.text();
  const uid = /\/interaction\/([^/?#]+)/.exec(result.url)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (result.page.status !== 200 || !uid || !csrf) {
    throw new Error(`no sign-in form (status ${result.page.status} at ${result.url})`);
  }
  return { uid, csrf, jar, pkce: codes, party };
}

/**
 * Keep-alive connections for the timed requests of the benchmarks. node:http costs the load
 * generator about a third of what fetch does per request, and this process shares the machine's
 * cores with the server it measures.
 */
const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

/** A POST through node:http, answered as a fetch Response (status, headers, body), no redirects. */
export function postForm(url: string, body: string, headers: Record<string, string>): Promise<Response> {
  return new Promise((done, fail) => {
    const payload = Buffer.from(body);
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: {
          ...headers,
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': String(payload.length),
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', fail);
        incoming.on('end', () => {
          const answer = new Headers();
          for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
            answer.append(incoming.rawHeaders[i] as string, incoming.rawHeaders[i + 1] as string);
          }
          const status = incoming.statusCode ?? 500;
          const content = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          done(new Response(content, { status, headers: answer }));
        });
      },
    );
    outgoing.on('error', fail);
    outgoing.end(payload);
  });
}

/** POSTs the sign-in form; a right password answers 303 to /oidc/auth/<uid>. */
export async function submitLogin(
  server: BenchServer,
  interaction: PendingInteraction,
  credentials: { username: string; password: string } = ADMIN,
): Promise<Response> {
  const path = `/interaction/${interaction.uid}/login`;
  const response = await postForm(
    `${server.base}${path}`,
    new URLSearchParams({
      csrf: interaction.csrf,
      identifier: credentials.username,
      password: credentials.password,
    }).toString(),
    { cookie: interaction.jar.header(path) },
  );
  interaction.jar.store(response);
  return response;
}

/**
 * After a login POST: follows the provider on, to the redirect URI (the code) or to the page of a
 * further step (the second factor). Throws when the password was refused.
 */
export async function afterLogin(
  server: BenchServer,
  interaction: PendingInteraction,
  loginResponse: Response,
) {
  const location = loginResponse.headers.get('location');
  if (loginResponse.status !== 303 || !location) {
    throw new Error(`sign-in was refused (status ${loginResponse.status})`);
  }
  return follow(server, interaction.jar, location, interaction.party.redirectUri);
}

/** After a successful login POST: follows the provider back to the redirect URI. */
export async function finishAuthorization(
  server: BenchServer,
  interaction: PendingInteraction,
  loginResponse: Response,
): Promise<string> {
  const result = await afterLogin(server, interaction, loginResponse);
  if (!('code' in result)) throw new Error(`no code after sign-in (status ${result.page.status})`);
  return result.code;
}

/** A TOTP factor bound to a person (bench/lib/org.ts `bindTotpFactors`). */
export interface TotpFactor {
  factorId: string;
  seed: Buffer;
}

/**
 * The second-factor step a sign-in has come to (`landed`, from `afterLogin`): POSTs a code of the
 * person's TOTP factor and answers the provider's 303, whose location leads on to the code.
 */
export async function submitTotp(
  server: BenchServer,
  jar: CookieJar,
  landed: { code: string } | { page: Response; url: string },
  factor: TotpFactor,
): Promise<Response> {
  if ('code' in landed) throw new Error('no second factor was asked');
  const html = await landed.page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!csrf || !html.includes('/step/second_factor'))
    throw new Error(`no second-factor form (${landed.page.status})`);
  const path = `${new URL(landed.url, server.base).pathname}/step/second_factor`;
  const posted = await postForm(
    `${server.base}${path}`,
    new URLSearchParams({
      csrf,
      factorId: factor.factorId,
      code: generateTotp(factor.seed, Date.now()),
    }).toString(),
    { cookie: jar.header(path) },
  );
  jar.store(posted);
  await posted.arrayBuffer();
  if (posted.status !== 303 || !posted.headers.get('location'))
    throw new Error(`the code was refused (${posted.status})`);
  return posted;
}

export interface SignedIn {
  code: string;
  verifier: string;
  /** The browser, now holding the provider's `_session` cookie. */
  jar: CookieJar;
}

/** A full password sign-in; returns an authorization code and the signed-in browser. */
export async function signIn(
  server: BenchServer,
  credentials: { username: string; password: string } = ADMIN,
  party: RelyingParty = consoleParty(server),
): Promise<SignedIn> {
  const interaction = await beginInteraction(server, party);
  const response = await submitLogin(server, interaction, credentials);
  await response.arrayBuffer();
  const code = await finishAuthorization(server, interaction, response);
  return { code, verifier: interaction.pkce.verifier, jar: interaction.jar };
}

/** A further code for a browser that is signed in already (single sign-on, no password). */
export async function authorizeSilently(
  server: BenchServer,
  jar: CookieJar,
  party: RelyingParty = consoleParty(server),
): Promise<{ code: string; verifier: string }> {
  const { codes, result } = await authorize(server, jar, party);
  if (!('code' in result)) throw new Error(`the session did not give a code (status ${result.page.status})`);
  return { code: result.code, verifier: codes.verifier };
}

// ---------------------------------------------------------------------------------------------
// Console API

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

export async function callApi<T>(
  server: BenchServer,
  path: string,
  body: unknown,
  token?: string,
): Promise<Envelope<T>> {
  const response = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { access_token: token } : {}) },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Envelope<T>;
}

export const TOKEN_PATH = '/api/v1/dev/oidc/token';
export const REFRESH_PATH = '/api/v1/dev/oidc/refresh';

/** Redeems a code for a console token (authorization code grant inside the server). */
export async function redeemCode(server: BenchServer, code: string, verifier: string): Promise<string> {
  const answer = await callApi<{ token: string }>(server, TOKEN_PATH, { code, codeVerifier: verifier });
  if (answer.code !== 200) throw new Error(`code redemption failed: ${answer.code} ${answer.msg}`);
  return answer.data.token;
}

/** Refreshes a console token (refresh-token grant inside); the old token stops working. */
export async function refreshToken(server: BenchServer, token: string): Promise<string> {
  const answer = await callApi<{ token: string }>(server, REFRESH_PATH, {}, token);
  if (answer.code !== 200) throw new Error(`refresh failed: ${answer.code} ${answer.msg}`);
  return answer.data.token;
}
