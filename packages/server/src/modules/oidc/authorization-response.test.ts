import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../test/browser-flow.ts';
import {
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import {
  authorization,
  CALLBACK,
  CookieJar,
  claimsOf,
  errorOf,
  go,
  openedApp,
  redeem,
  signInOnPage,
  type TestApp,
} from '../../test/oidc-flow.ts';

/**
 * How the authorization response reaches the application: response_mode query, fragment and
 * form_post (OAuth 2.0 Form Post Response Mode), always with `iss` (RFC 9207) and `state`; the
 * ID token carries the request's nonce; pushed authorization requests (RFC 9126) work too.
 */

let ctx: TestContext;
let app: TestApp;
let person: { username: string; password: string };
let jar: CookieJar;

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  await grantLicense(ctx, { app: 5 });
  const owner = await ownerWithCompany(ctx, 'modeowner');
  app = await openedApp(ctx, owner);
  person = await companyMember(ctx, owner, 'mona');
  jar = new CookieJar();
  const first = await go(jar, authorization(ctx.baseUrl, app.clientId).url);
  await signInOnPage(jar, first.page!, person);
});
afterAll(() => ctx.close());

describe('the authorization response', () => {
  it('response_mode=query: code, state and iss in the query; the ID token has the nonce', async () => {
    const auth = authorization(ctx.baseUrl, app.clientId, { response_mode: 'query' });
    const { callback } = await go(jar, auth.url);
    expect(callback?.searchParams.get('state')).toBe(auth.state);
    expect(callback?.searchParams.get('iss')).toBe(`${ctx.baseUrl}/oidc`);
    const tokens = await redeem(ctx.baseUrl, app, auth, callback);
    expect(claimsOf(tokens.id_token).nonce).toBe(auth.nonce);
  });

  it('response_mode=fragment: the same in the fragment', async () => {
    const auth = authorization(ctx.baseUrl, app.clientId, { response_mode: 'fragment' });
    const { callback } = await go(jar, auth.url);
    const fragment = new URLSearchParams(callback!.hash.slice(1));
    expect(fragment.get('code')).toBeTruthy();
    expect(fragment.get('iss')).toBe(`${ctx.baseUrl}/oidc`);
  });

  it('response_mode=form_post: a page that posts code, state and iss, under a CSP that allows only that', async () => {
    const auth = authorization(ctx.baseUrl, app.clientId, { response_mode: 'form_post' });
    const answer = await request(jar, auth.url);
    expect(answer.status).toBe(200);
    const html = await answer.text();
    expect(html).toContain(`action="${CALLBACK}"`);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(csp).toContain("default-src 'none'");
    const { callback, posted } = await go(jar, auth.url);
    expect(posted).toBe(true);
    expect(callback?.searchParams.get('state')).toBe(auth.state);
    expect(callback?.searchParams.get('iss')).toBe(`${ctx.baseUrl}/oidc`);
    const tokens = await redeem(ctx.baseUrl, app, auth, callback);
    expect(tokens.id_token).toBeTruthy();
  });

  it('refuses response types other than code (no implicit or hybrid flow)', async () => {
    for (const responseType of ['token', 'id_token', 'code id_token']) {
      const landing = await go(
        jar,
        authorization(ctx.baseUrl, app.clientId, { response_type: responseType }).url,
      );
      expect(errorOf(landing), responseType).toBe('unsupported_response_type');
    }
  });

  it('accepts a pushed authorization request (RFC 9126)', async () => {
    const auth = new URL(authorization(ctx.baseUrl, app.clientId).url);
    const pushed = await fetch(`${ctx.baseUrl}/oidc/request`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      },
      body: auth.searchParams.toString(),
    });
    const { request_uri: requestUri } = (await pushed.json()) as { request_uri: string };
    const url = `${ctx.baseUrl}/oidc/auth?${new URLSearchParams({ client_id: app.clientId, request_uri: requestUri })}`;
    const { callback } = await go(jar, url);
    expect(callback?.searchParams.get('code')).toBeTruthy();
    expect(callback?.searchParams.get('state')).toBe(auth.searchParams.get('state'));
  });
});
