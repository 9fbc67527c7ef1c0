import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, request, signInForCode } from '../test/browser-flow.ts';
import { call, createAccount, startTestApp, type TestContext } from '../test/harness.ts';
import { redactUrl } from './request-log.ts';

/**
 * Issue 12: authorization codes, ID tokens (with a person's name and email), sign-in link tokens
 * and console tokens never reach the server log, which still records every request.
 */

let ctx: TestContext;
const log: string[] = [];

beforeAll(async () => {
  ctx = await startTestApp({ listen: true, log: { write: (line) => log.push(line) } });
});
afterAll(() => ctx?.close());

/** The addresses the log recorded. */
const loggedUrls = () =>
  log
    .map((line) => JSON.parse(line) as { req?: { url: string } })
    .flatMap((line) => (line.req ? [line.req.url] : []));

describe('the request log', () => {
  it('leaves out the code, the ID token and the console token of a whole console sign-in and logout', async () => {
    const person = await createAccount(ctx, { username: 'log.person', email: 'log.person@example.com' });
    log.length = 0;
    const flow = await signInForCode({
      baseUrl: ctx.baseUrl,
      clientId: 'tessera-console-dev',
      redirectUri: `${ctx.baseUrl}/dev/`,
      identifier: person.username,
      password: person.password,
    });
    // The browser lands on the console with the code, as after every sign-in.
    await request(flow.jar, flow.callbackUrl.toString());
    const session = await call<{ token: string }>(ctx, '/api/v1/dev/oidc/token', {
      code: flow.code,
      codeVerifier: flow.verifier,
    });
    expect(session.code).toBe(200);
    const token = session.data.token;
    const logout = await call<{ logoutUrl: string }>(ctx, '/api/v1/dev/login/logout', {}, { token });
    const idToken = new URL(logout.data.logoutUrl).searchParams.get('id_token_hint');
    expect(idToken).toBeTruthy();
    const signedOut = await browse(flow.jar, logout.data.logoutUrl);
    expect(signedOut.response.status).toBe(200);

    const text = log.join('\n');
    for (const secret of [flow.code, flow.state, idToken as string, token, person.password]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(encodeURIComponent(secret));
    }
    expect(text).not.toContain('log.person@example.com');
    const urls = loggedUrls();
    const issuer = encodeURIComponent(`${ctx.baseUrl}/oidc`);
    expect(urls).toContain(`/dev/?code=[redacted]&state=[redacted]&iss=${issuer}`);
    expect(urls).toContain('/oidc/session/end?[redacted]');
    expect(urls.some((url) => url.startsWith('/interaction/'))).toBe(true);
  });

  it('leaves out sign-in link tokens, secret parameters of any address, headers and bodies', async () => {
    log.length = 0;
    const secrets = {
      link: 'LinkToken-0123456789abcdefABCDEF',
      code: 'Callback-Code-0123456789',
      token: 'Query-Token-0123456789',
      encoded: 'Encoded-Name-0123456789',
      header: 'Header-Token-0123456789',
      cookie: 'Cookie-Value-0123456789',
      bearer: 'Bearer-Value-0123456789',
      body: 'Body-Password-0123456789',
    };
    const open = (path: string) => fetch(`${ctx.baseUrl}${path}`, { redirect: 'manual' });
    await open(`/portal/link/${secrets.link}?lang=en`);
    await open(`/portal/callback?code=${secrets.code}&state=abc`);
    await open(`/admin/users?token=${secrets.token}&page=2`);
    await open(`/dev/?%63ode=${secrets.encoded}`);
    await fetch(`${ctx.baseUrl}/api/v1/manage/company/my/list`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        access_token: secrets.header,
        cookie: `tessera_portal=${secrets.cookie}`,
        authorization: `Bearer ${secrets.bearer}`,
      },
      body: JSON.stringify({ password: secrets.body }),
    });
    const text = log.join('\n');
    for (const secret of Object.values(secrets)) expect(text).not.toContain(secret);
    expect(loggedUrls()).toEqual([
      '/portal/link/[redacted]?lang=en',
      '/portal/callback?code=[redacted]&state=[redacted]',
      '/admin/users?token=[redacted]&page=2',
      '/dev/?%63ode=[redacted]',
      '/api/v1/manage/company/my/list',
    ]);
  });

  it('keeps what helps reading the log', () => {
    // Issue 14: DingTalk returns its code as authCode to the scan callback.
    expect(redactUrl('/portal/scan/s1/callback?authCode=abc123&state=xyz')).toBe(
      '/portal/scan/s1/callback?authCode=[redacted]&state=[redacted]',
    );
    expect(redactUrl('/api/v1/manage/user/list')).toBe('/api/v1/manage/user/list');
    expect(redactUrl('/portal/apps?notice=removed&lang=zh')).toBe('/portal/apps?notice=removed&lang=zh');
    expect(redactUrl('/oidc/.well-known/openid-configuration')).toBe(
      '/oidc/.well-known/openid-configuration',
    );
    expect(redactUrl('/oidc/auth?client_id=x&login_hint=a%40b.example')).toBe('/oidc/auth?[redacted]');
    expect(redactUrl('/interaction/abc?lang=en')).toBe('/interaction/abc?[redacted]');
    expect(redactUrl('/oidcx?state=1')).toBe('/oidcx?state=[redacted]');
    expect(redactUrl('/x?STATE=1&a')).toBe('/x?STATE=[redacted]&a');
  });
});
