import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, CookieJar, request, signInToPortal } from '../../test/browser-flow.ts';
import { companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import {
  autoPostForm,
  manage,
  post,
  samlAppFor,
  signInOnPage,
  spAnswer,
  travel,
} from '../../test/saml-flow.ts';
import { startTestServiceProvider, type TestServiceProvider } from '../../test/saml-sp.ts';

/**
 * SAML sign-in and single logout (issue 19) against a real service provider: @node-saml/node-saml
 * on 127.0.0.1, which checks Tessera's signatures, audience, recipient, times and InResponseTo.
 */
let ctx: TestContext;
let sp: TestServiceProvider;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let appId: string;
let alice: { id: string; username: string; password: string };
let bob: { id: string; username: string; password: string };

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  sp = await startTestServiceProvider();
  owner = await ownerWithCompany(ctx, 'saml-owner', 'Saml Co');
  alice = await companyMember(ctx, owner, 'saml-alice');
  bob = await companyMember(ctx, owner, 'saml-bob');
  await ctx.database.db
    .updateTable('accounts')
    .set({ email: 'alice@saml.example', display_name: 'Alice A' })
    .where('id', '=', alice.id)
    .execute();
  ({ appId } = await samlAppFor(ctx, owner, sp, 'Wiki', {
    nameIdFormat: 'unspecified',
    attributes: [
      { name: 'email', source: 'email' },
      { name: 'displayName', source: 'name' },
      { name: 'urn:oid:2.5.4.11', nameFormat: 'uri', source: 'departments' },
      { name: 'role', source: 'roles' },
      { name: 'tenant', source: 'fixed', value: 'acme' },
    ],
  }));
});
afterAll(async () => {
  await sp?.close();
  await ctx?.close();
});

/** Starts a sign-in at the SP; answers the page the browser lands on at Tessera. */
const startAtSp = async (jar: CookieJar, binding: 'redirect' | 'post', relay = '') => {
  const url = `${sp.baseUrl}/login?binding=${binding}&relay=${relay}`;
  if (binding === 'redirect') return travel(jar, await request(jar, url), url);
  const form = await request(jar, url);
  const html = await form.text();
  const action = /action="([^"]+)"/.exec(html)?.[1] ?? '';
  const fields = Object.fromEntries(
    [...html.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );
  const target = action.replace(/&amp;/g, '&');
  return travel(jar, await post(jar, target, fields as Record<string, string>), target);
};

describe('SP-initiated sign-in', () => {
  it('over HTTP-Redirect: the sign-in page, then the mapped attributes at the service provider', async () => {
    const jar = new CookieJar();
    const page = await startAtSp(jar, 'redirect', 'deep-link');
    expect(page.url).toContain('/interaction/');
    expect(page.html).toContain('Wiki');
    const done = await signInOnPage(jar, page.url, page.html, alice.username, alice.password);
    expect(done.url).toBe(`${sp.baseUrl}/acs`);
    const { profile } = spAnswer(done.html);
    expect(profile).toMatchObject({
      nameID: 'saml-alice',
      email: 'alice@saml.example',
      displayName: 'Alice A',
      role: 'member',
      tenant: 'acme',
    });
    expect(profile?.sessionIndex).toMatch(/^_[0-9a-f]{40}$/);
    const events = await ctx.database.db
      .selectFrom('login_events')
      .selectAll()
      .where('account_id', '=', alice.id)
      .execute();
    // The login event names the app, as for OIDC apps (the dashboard counts app sign-ins by it).
    const { clientId } = await manage<{ clientId: string }>(ctx, owner, '/api/v1/manage/app/detail', {
      appId,
    });
    expect(events.some((e) => e.result === 'success' && e.client_id === clientId)).toBe(true);
  });

  it('over HTTP-POST inside the single sign-on session: no sign-in page, RelayState carried', async () => {
    const jar = new CookieJar();
    const first = await startAtSp(jar, 'redirect');
    await signInOnPage(jar, first.url, first.html, alice.username, alice.password);
    const url = `${sp.baseUrl}/login?binding=post&relay=back-to-42`;
    const form = await (await request(jar, url)).text();
    const action = (/action="([^"]+)"/.exec(form)?.[1] ?? '').replace(/&amp;/g, '&');
    const fields = Object.fromEntries(
      [...form.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]),
    );
    const landed = await travel(jar, await post(jar, action, fields), action);
    const posted = autoPostForm(landed.html);
    expect(posted.action).toBe(`${sp.baseUrl}/acs`);
    expect(posted.fields.RelayState).toBe('back-to-42');
    const answer = await post(jar, posted.action, posted.fields);
    expect((await answer.json()).profile.nameID).toBe('saml-alice');
  });
});

describe('the page that posts a SAML message', () => {
  it('lets the service provider redirect (no form-action) and runs only our own script (issue 28)', async () => {
    const { jar } = await signInToPortal(ctx.baseUrl, alice.username, alice.password);
    const page = await browse(jar, `${sp.baseUrl}/login?binding=redirect`);
    expect(autoPostForm(page.html).action).toBe(`${sp.baseUrl}/acs`);
    const csp = Object.fromEntries(
      (page.response.headers.get('content-security-policy') ?? '').split(';').map((part) => {
        const [name = '', ...values] = part.trim().split(/\s+/);
        return [name, values];
      }),
    );
    // Browsers check form-action along the redirects that answer the form: an ACS that sends
    // the person on to its application would be blocked.
    expect(csp['form-action']).toBeUndefined();
    expect(csp).toMatchObject({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'base-uri': ["'none'"],
      'frame-ancestors': ["'none'"],
    });
    expect(page.html).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(page.response.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('IdP-initiated sign-in from My apps', () => {
  it('opens the app with a response the service provider accepts', async () => {
    const { jar } = await signInToPortal(ctx.baseUrl, bob.username, bob.password);
    const apps = await (await request(jar, `${ctx.baseUrl}/portal/apps`)).text();
    expect(apps).toContain(`data-app-id="${appId}"`);
    const launch = `${ctx.baseUrl}/portal/apps/${appId}/launch`;
    const landed = await travel(jar, await request(jar, launch), launch, 1);
    expect(landed.url).toBe(`${sp.baseUrl}/acs`);
    expect(spAnswer(landed.html).profile?.nameID).toBe('saml-bob');
  });
});

describe('who may use the app', () => {
  it('under "prohibit all" refuses the unassigned person with the no-access page and signs in the assigned one', async () => {
    await manage(ctx, owner, '/api/v1/manage/app/update', { appId, defaultAccess: 'prohibit_all' });
    await manage(ctx, owner, '/api/v1/manage/app/assignment/add', { appId, userIds: [alice.id] });
    const signedInBob = sp.events.filter((e) => e.profile?.nameID === 'saml-bob').length;
    try {
      const jar = new CookieJar();
      const page = await startAtSp(jar, 'redirect');
      const refused = await signInOnPage(jar, page.url, page.html, bob.username, bob.password);
      expect(refused.status).toBe(403);
      expect(refused.html).toContain('You have not been given access to this application');
      const causes = await ctx.database.db
        .selectFrom('login_events')
        .select('failure_cause')
        .where('account_id', '=', bob.id)
        .execute();
      expect(causes.map((c) => c.failure_cause)).toContain('app_not_assigned');
      expect(sp.events.filter((e) => e.profile?.nameID === 'saml-bob')).toHaveLength(signedInBob);

      const aliceJar = new CookieJar();
      const alicePage = await startAtSp(aliceJar, 'redirect');
      const done = await signInOnPage(
        aliceJar,
        alicePage.url,
        alicePage.html,
        alice.username,
        alice.password,
      );
      expect(spAnswer(done.html).profile?.nameID).toBe('saml-alice');
    } finally {
      await manage(ctx, owner, '/api/v1/manage/app/update', { appId, defaultAccess: 'allow_all' });
    }
  });
});
