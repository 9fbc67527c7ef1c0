import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { absolute, browse, CookieJar, pkcePair, request, submitSignIn } from '../test/browser-flow.ts';
import { createAccount, startTestApp, type TestContext } from '../test/harness.ts';

/**
 * Issue 12: every answer carries the security headers of its kind. Before, the console had no
 * Content-Security-Policy, the provider's logout and error pages and the API reference could be
 * framed, and API answers carrying secrets could be cached.
 */

let ctx: TestContext;
let secure: TestContext;
let consoleDir: string;

beforeAll(async () => {
  consoleDir = await mkdtemp(join(tmpdir(), 'tessera-console-'));
  await writeFile(join(consoleDir, 'index.html'), '<!doctype html><title>Console</title>');
  [ctx, secure] = await Promise.all([
    startTestApp({ listen: true, consoleDir }),
    startTestApp({ publicUrl: 'https://id.example.com', consoleDir }),
  ]);
});
afterAll(async () => {
  await Promise.all([ctx?.close(), secure?.close()]);
  await rm(consoleDir, { recursive: true, force: true });
});

const get = (path: string, init: RequestInit = {}) =>
  fetch(`${ctx.baseUrl}${path}`, { redirect: 'manual', ...init });

/** The directives of a policy, by name. */
const directives = (csp: string | null) =>
  Object.fromEntries(
    (csp ?? '').split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  ) as Record<string, string[] | undefined>;

/** Never framed, never sniffed, no referrer: the headers of every answer. */
function expectBaseHeaders(response: Response) {
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(directives(response.headers.get('content-security-policy'))['frame-ancestors']).toEqual(["'none'"]);
}

/** A page whose script comes from the server's own files only. */
function expectNoInlineScript(csp: Record<string, string[] | undefined>) {
  const script = csp['script-src'] ?? csp['default-src'] ?? [];
  expect(script).toContain("'self'");
  expect(script.filter((source) => /unsafe|\*|https?:|data:|blob:/.test(source))).toEqual([]);
}

describe('security headers', () => {
  it('the console: script from its build only, revalidated, never framed', async () => {
    for (const path of ['/dev/', '/admin/dashboard', '/dev/org/user?code=x&state=y']) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expectBaseHeaders(response);
      const csp = directives(response.headers.get('content-security-policy'));
      expectNoInlineScript(csp);
      expect(csp['object-src']).toEqual(["'none'"]);
      expect(csp['base-uri']).toEqual(["'none'"]);
      expect(csp['connect-src']).toEqual(["'self'"]);
      expect(response.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('the sign-in page and the provider pages (logout, error) share the pages policy', async () => {
    const signIn = await browse(new CookieJar(), `${ctx.baseUrl}/portal/account`);
    expect(signIn.url).toContain('/interaction/');
    // Without a session the provider signs out by a form that submits itself: its one inline
    // script is allowed by its hash, which the provider adds to the policy.
    const logoutPage = await get('/oidc/session/end');
    const errorPage = await get('/oidc/auth?client_id=nope&response_type=code');
    expect(errorPage.status).toBe(400);
    const policies = new Set<string>();
    for (const response of [signIn.response, logoutPage, errorPage]) {
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expectBaseHeaders(response);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const csp = directives(response.headers.get('content-security-policy'));
      expectNoInlineScript(csp);
      expect(csp['default-src']).toEqual(["'none'"]);
      csp['script-src'] = csp['script-src']?.filter((source) => !source.startsWith("'sha256-"));
      policies.add(JSON.stringify(csp));
    }
    expect(policies.size).toBe(1);
  });

  it('the response mode form_post: the provider allows its one inline script by its hash', async () => {
    const person = await createAccount(ctx, { username: 'headers.formpost' });
    const jar = new CookieJar();
    const url = new URL(`${ctx.baseUrl}/oidc/auth`);
    url.search = new URLSearchParams({
      response_type: 'code',
      response_mode: 'form_post',
      client_id: 'tessera-console-dev',
      redirect_uri: `${ctx.baseUrl}/dev/`,
      scope: 'openid',
      state: 'form-post-state',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }).toString();
    const start = await request(jar, url.toString());
    const interaction = absolute(ctx.baseUrl, start.headers.get('location'));
    const posted = await submitSignIn(jar, interaction, person.username, person.password);
    const page = await browse(jar, absolute(interaction, posted.headers.get('location')));
    expect(page.html).toContain('<form method="post"');
    const script = /<script>([\s\S]*?)<\/script>/.exec(page.html)?.[1] ?? '';
    expect(script).toContain('submit()');
    const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
    const csp = directives(page.response.headers.get('content-security-policy'));
    expect(csp['script-src']).toEqual(["'self'", hash]);
    expect(page.response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('the API reference: Swagger UI from files, no inline script', async () => {
    const page = await get('/api/docs');
    expectBaseHeaders(page);
    const csp = directives(page.headers.get('content-security-policy'));
    expectNoInlineScript(csp);
    expect(await page.text()).not.toMatch(/<script>/);
    const viewer = await get('/api/docs/viewer.js');
    expect(await viewer.text()).toContain('validatorUrl: null');
  });

  it('API answers are never stored by a cache, nor run as a page', async () => {
    const answers = [
      await get('/api/v1/sso/config', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"variant":"dev"}',
      }),
      await get('/api/v1/manage/company/my/list', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      await get('/api/v1/no/such/call', { method: 'POST' }),
    ];
    for (const response of answers) {
      expect(response.headers.get('cache-control')).toBe('no-store');
      expectBaseHeaders(response);
      expect(directives(response.headers.get('content-security-policy'))['default-src']).toEqual(["'none'"]);
    }
    expect(answers.map((response) => response.status)).toEqual([200, 401, 404]);
  });

  it('sends HSTS only when the public address is https', async () => {
    const paths = [
      '/dev/',
      '/api/v1/sso/config',
      '/oidc/.well-known/openid-configuration',
      '/portal/styles.css',
    ];
    for (const path of paths) {
      const method = path.startsWith('/api/') ? 'POST' : 'GET';
      const overHttps = await secure.tessera.app.inject({ method, url: path });
      expect(overHttps.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(overHttps.headers['x-frame-options']).toBe('DENY');
      const overHttp = await get(path, { method });
      expect(overHttp.headers.get('strict-transport-security')).toBeNull();
    }
  });
});
