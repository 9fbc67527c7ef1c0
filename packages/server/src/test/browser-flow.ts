import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';

/** A minimal cookie jar for driving the sign-in pages like a browser would. */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair?.indexOf('=') ?? -1;
      if (!pair || index < 0) continue;
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export const pkcePair = () => {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
};

export async function request(jar: CookieJar, url: string, init: RequestInit = {}) {
  const response = await fetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
  });
  jar.store(response);
  return response;
}

export const absolute = (base: string, location: string | null) => new URL(location ?? '', base).toString();

export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

export interface AuthorizeOptions {
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  scope?: string;
  jar?: CookieJar;
}

/** Starts an authorization request; returns the sign-in page (or the final redirect when already signed in). */
export async function startAuthorization(options: AuthorizeOptions) {
  const jar = options.jar ?? new CookieJar();
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(8).toString('hex');
  const url = new URL(`${options.baseUrl}/oidc/auth`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scope ?? 'openid profile email',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  const first = await request(jar, url.toString());
  const location = absolute(options.baseUrl, first.headers.get('location'));
  return { jar, verifier, state, location, status: first.status };
}

/** Submits the sign-in form of an interaction page; returns the response of the POST. */
export async function submitSignIn(
  jar: CookieJar,
  interactionUrl: string,
  identifier: string,
  password: string,
) {
  const page = await request(jar, interactionUrl);
  const html = await page.text();
  return request(jar, `${interactionUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfOf(html), identifier, password }).toString(),
  });
}

/** Follows redirects until the browser would land on the client's redirect URI; returns that URL. */
export async function followToRedirectUri(
  jar: CookieJar,
  baseUrl: string,
  response: Response,
  redirectUri: string,
) {
  let current = response;
  for (let hop = 0; hop < 6; hop++) {
    const location = absolute(baseUrl, current.headers.get('location'));
    if (location.startsWith(redirectUri)) return new URL(location);
    if (current.status < 300 || current.status >= 400) {
      throw new Error(`expected a redirect, got ${current.status}: ${(await current.text()).slice(0, 300)}`);
    }
    current = await request(jar, location);
  }
  throw new Error('too many redirects');
}

/** The full browser sign-in: authorize → sign-in form → code at the redirect URI. */
export async function signInForCode(
  options: AuthorizeOptions & { identifier: string; password: string },
): Promise<{ code: string; verifier: string; state: string; jar: CookieJar; callbackUrl: URL }> {
  const start = await startAuthorization(options);
  let final: URL;
  if (start.location.startsWith(options.redirectUri)) {
    final = new URL(start.location);
  } else {
    const posted = await submitSignIn(start.jar, start.location, options.identifier, options.password);
    if (posted.status !== 303)
      throw new Error(`sign-in refused (${posted.status}): ${(await posted.text()).slice(0, 500)}`);
    final = await followToRedirectUri(start.jar, options.baseUrl, posted, options.redirectUri);
  }
  const code = final.searchParams.get('code');
  if (!code) throw new Error(`no code in ${final}`);
  return { code, verifier: start.verifier, state: start.state, jar: start.jar, callbackUrl: final };
}

/**
 * Follows redirects like a browser (at most 10 hops) until a page answers; returns that response,
 * where it is and its body.
 */
export async function browse(jar: CookieJar, url: string, init?: RequestInit) {
  let response = await request(jar, url, init);
  let current = url;
  for (let hop = 0; hop < 10 && response.status >= 300 && response.status < 400; hop++) {
    current = absolute(current, response.headers.get('location'));
    response = await request(jar, current);
  }
  return { response, url: current, html: await response.text() };
}

/** A browser's submission of a form with these fields: the request of its POST (urlencoded). */
export const formSubmission = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** Posts a form like a browser and follows the redirects that answer it (see `browse`). */
export const postForm = (jar: CookieJar, url: string, form: Record<string, string>) =>
  browse(jar, url, formSubmission(form));

/**
 * Signs in to the user centre through the provider with a fresh jar: opens `/portal/account`
 * (with `?lang=` when a language is given), submits the password on the sign-in page it lands on
 * (expecting the 303 of an accepted password) and follows the redirects. Returns the jar, the
 * sign-in (interaction) page's address and the page shown after the password.
 */
export async function signInToPortal(baseUrl: string, username: string, password: string, lang?: string) {
  const jar = new CookieJar();
  const first = await browse(jar, `${baseUrl}/portal/account${lang ? `?lang=${lang}` : ''}`);
  const posted = await submitSignIn(jar, first.url, username, password);
  expect(posted.status).toBe(303);
  const page = await browse(jar, absolute(first.url, posted.headers.get('location')));
  return { jar, interactionUrl: first.url, page };
}

/** Turns the entities the portal's pages escape back into text. */
export const decodeEntities = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** A request to the provider's token endpoint with HTTP Basic client authentication: its status and JSON answer. */
export async function tokenRequest(
  baseUrl: string,
  client: { clientId: string; secret: string },
  params: Record<string, string>,
) {
  const response = await fetch(`${baseUrl}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams(params).toString(),
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      access_token?: string;
      refresh_token?: string;
      expires_in?: number;
      error?: string;
    },
  };
}
