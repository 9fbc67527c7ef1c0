import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { expect } from 'vitest';
import { absolute, CookieJar, csrfOf, decodeEntities, pkcePair, request } from './browser-flow.ts';
import { call, grantLicense, ownerWithCompany, startTestApp, type TestContext } from './harness.ts';

/**
 * Driving the provider's authorization endpoint with any parameters, as a browser would, and
 * stopping where the browser would leave Tessera for the application (its redirect URI).
 */

export const CALLBACK = 'http://localhost:7001/callback';
export const LOGOUT_RETURN = 'http://localhost:7001/bye';

export interface Landing {
  /**
   * Where the browser was sent back to the application, when it was; for response_mode
   * form_post, the posted fields are in its query and `posted` is set.
   */
  callback?: URL;
  posted?: boolean;
  /** The page shown otherwise. */
  page?: { url: string; status: number; html: string };
}

/**
 * Pages that a browser submits by itself: oidc-provider's (form_post, the account switch) and
 * Tessera's sign-out that the application's ID token confirmed (`form-launch.js` posts it).
 */
export const autoSubmitting = (html: string) =>
  html.includes('document.forms[0].submit()') ||
  (/<form[^>]*action="[^"]*\/session\/end\/confirm"[^>]*data-auto-submit>/.test(html) &&
    html.includes('/form-launch.js"'));

/**
 * Follows redirects (and self-submitting forms, as a browser with script does) from `url` until
 * a page answers or the browser would go to `stopAt`.
 */
export async function go(
  jar: CookieJar,
  url: string,
  stopAt = CALLBACK,
  init?: RequestInit,
): Promise<Landing> {
  let response = await request(jar, url, init);
  let current = url;
  for (let hop = 0; hop < 16; hop++) {
    if (response.status >= 300 && response.status < 400) {
      current = absolute(current, response.headers.get('location'));
      if (current.startsWith(stopAt)) return { callback: new URL(current) };
      response = await request(jar, current);
      continue;
    }
    const html = await response.text();
    if (!autoSubmitting(html)) return { page: { url: current, status: response.status, html } };
    const form = formOf({ url: current, html }, /./);
    if (form.action.startsWith(stopAt)) {
      const callback = new URL(form.action);
      for (const [name, value] of Object.entries(form.fields)) callback.searchParams.set(name, value);
      return { callback, posted: true };
    }
    current = form.action;
    response = await request(jar, current, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form.fields).toString(),
    });
  }
  throw new Error(`too many hops from ${url}`);
}

export interface Authorization {
  url: string;
  verifier: string;
  state: string;
  nonce: string;
}

/** An authorization request of the code flow with PKCE, state and nonce, plus any parameters. */
export function authorization(
  baseUrl: string,
  clientId: string,
  params: Record<string, string> = {},
  redirectUri = CALLBACK,
): Authorization {
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(8).toString('hex');
  const nonce = randomBytes(8).toString('hex');
  const url = new URL(`${baseUrl}/oidc/auth`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid profile email',
    state,
    nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...params,
  }).toString();
  return { url: url.toString(), verifier, state, nonce };
}

/** The hidden fields and action of the form whose action matches. */
export function formOf(page: { url: string; html: string }, action: RegExp) {
  const forms = [...page.html.matchAll(/<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = forms.find((f) => action.test(decodeEntities(f[1] ?? '')));
  if (!form) throw new Error(`no form ${action} on ${page.url}: ${page.html.slice(0, 400)}`);
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
    fields[input[1] as string] = decodeEntities(input[2] ?? '');
  return { action: absolute(page.url, decodeEntities(form[1] as string)), fields };
}

/** Posts a page's form (its hidden fields plus `extra`) and follows like a browser. */
export function submit(
  jar: CookieJar,
  page: { url: string; html: string },
  action: RegExp,
  extra: Record<string, string> = {},
  stopAt = CALLBACK,
) {
  const form = formOf(page, action);
  return go(jar, form.action, stopAt, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.fields, ...extra }).toString(),
  });
}

/** Submits the password on a sign-in page and follows. */
export function signInOnPage(
  jar: CookieJar,
  page: { url: string; html: string },
  user: { username: string; password: string },
  stopAt = CALLBACK,
) {
  return go(jar, `${page.url.split('?')[0]}/login`, stopAt, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      csrf: csrfOf(page.html),
      identifier: user.username,
      password: user.password,
    }).toString(),
  });
}

/** A fresh browser: authorizes, signs in and lands where the flow ends. */
export async function signInFresh(
  baseUrl: string,
  clientId: string,
  user: { username: string; password: string },
  params: Record<string, string> = {},
) {
  const jar = new CookieJar();
  const auth = authorization(baseUrl, clientId, params);
  const first = await go(jar, auth.url);
  expect(first.page?.html, 'the sign-in page').toContain('name="identifier"');
  const landing = await signInOnPage(jar, first.page!, user);
  return { jar, auth, landing };
}

/** The error the application got back (in the query, or the fragment, of its redirect URI). */
export const errorOf = (landing: Landing) =>
  landing.callback?.searchParams.get('error') ??
  new URLSearchParams(landing.callback?.hash.slice(1) ?? '').get('error') ??
  null;

/** The start of an OIDC test file: the server listening, a licence for apps, a company and its owner. */
export async function startWithCompany(ownerName: string, companyName?: string) {
  const ctx = await startTestApp({ listen: true });
  await grantLicense(ctx, { app: 50 });
  return { ctx, owner: await ownerWithCompany(ctx, ownerName, companyName) };
}

export interface TestApp {
  appId: string;
  clientId: string;
  clientSecret: string;
}

/** Makes an existing person a member of another company too (their applications see another `sub`). */
export async function alsoMemberOf(ctx: TestContext, companyId: string, accountId: string) {
  await ctx.database.db
    .insertInto('company_members')
    .values({ company_id: companyId, account_id: accountId, role: 'member', status: 'enabled' })
    .execute();
}

/** An openid-client relying party for the application (client_secret_basic unless told). */
export const relyingParty = (
  ctx: Pick<TestContext, 'baseUrl'>,
  app: { clientId: string; clientSecret: string },
  auth: client.ClientAuth = client.ClientSecretBasic(app.clientSecret),
) =>
  client.discovery(new URL(`${ctx.baseUrl}/oidc`), app.clientId, undefined, auth, {
    execute: [client.allowInsecureRequests],
  });

/** Creates an application in the company of `admin`, with settings, and opens it. */
export async function openedApp(
  ctx: TestContext,
  admin: { token: string; companyId: string },
  settings: Record<string, unknown> = {},
  create: Record<string, unknown> = {},
): Promise<TestApp> {
  const as = { token: admin.token, companyId: admin.companyId };
  const created = await call<{ app: { appId: string; clientId: string }; clientSecret: string }>(
    ctx,
    '/api/v1/manage/app/create',
    { name: 'Wiki', ...create },
    as,
  );
  expect(created.code, created.msg).toBe(200);
  const { appId, clientId } = created.data.app;
  const updated = await call(
    ctx,
    '/api/v1/manage/app/update',
    { appId, redirectUris: [CALLBACK], postLogoutRedirectUris: [LOGOUT_RETURN], ...settings },
    as,
  );
  expect(updated.code, updated.msg).toBe(200);
  expect((await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, as)).code).toBe(200);
  return { appId, clientId, clientSecret: created.data.clientSecret };
}

/**
 * Redeems the code the flow brought back to the app (a landing or its callback URL) at the token
 * endpoint with client_secret_basic; fails the test when no code came back.
 */
export async function redeem(
  baseUrl: string,
  app: TestApp,
  auth: { verifier: string },
  back: Landing | URL | undefined,
  redirectUri = CALLBACK,
) {
  const callback = back instanceof URL ? back : back?.callback;
  const code = callback?.searchParams.get('code');
  expect(code, `a code at the callback: ${String(callback)}`).toBeTruthy();
  const response = await fetch(`${baseUrl}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code as string,
      code_verifier: auth.verifier,
      redirect_uri: redirectUri,
    }).toString(),
  });
  return (await response.json()) as {
    id_token?: string;
    access_token?: string;
    refresh_token?: string;
    error?: string;
  };
}

/** The claims of a JWT (no verification: the tests that need it verify with jose). */
export const claimsOf = (jwt: string | undefined) =>
  JSON.parse(Buffer.from((jwt ?? '').split('.')[1] ?? '', 'base64url').toString() || '{}') as Record<
    string,
    unknown
  >;

export { CookieJar };
