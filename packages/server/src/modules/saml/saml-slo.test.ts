import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { absolute, CookieJar, decodeEntities, request, signInToPortal } from '../../test/browser-flow.ts';
import { companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { autoPostForm, post, samlAppFor, signInOnPage, spAnswer, travel } from '../../test/saml-flow.ts';
import { startTestServiceProvider, type TestServiceProvider } from '../../test/saml-sp.ts';

/**
 * Single logout (issue 19) with two real service providers (@node-saml/node-saml): a logout
 * started at one ends the single sign-on session and the other's session; a sign-out at Tessera
 * tells every service provider of the session.
 */
let ctx: TestContext;
let wiki: TestServiceProvider;
let crm: TestServiceProvider;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let carol: { id: string; username: string; password: string };

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  wiki = await startTestServiceProvider();
  crm = await startTestServiceProvider();
  owner = await ownerWithCompany(ctx, 'slo-owner', 'Slo Co');
  carol = await companyMember(ctx, owner, 'slo-carol');
  await samlAppFor(ctx, owner, wiki, 'Wiki');
  await samlAppFor(ctx, owner, crm, 'CRM');
});
afterAll(async () => {
  await wiki?.close();
  await crm?.close();
  await ctx?.close();
});

/** Signs in at `sp` in this browser (with the password when no single sign-on session exists yet). */
async function signInAt(jar: CookieJar, sp: TestServiceProvider, password = true) {
  const url = `${sp.baseUrl}/login?binding=redirect`;
  const page = await travel(jar, await request(jar, url), url, 1);
  const done = password ? await signInOnPage(jar, page.url, page.html, carol.username, carol.password) : page;
  expect(spAnswer(done.html).profile?.nameID).toBe(carol.username);
}

/** The provider's "sign out?" page confirmed with "Sign out"; answers where the browser ends. */
async function confirmSignOut(jar: CookieJar, url: string, html: string) {
  const form = /<form id="op.logoutForm" method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no sign-out form at ${url}: ${html.slice(0, 400)}`);
  const action = absolute(url, decodeEntities(form[1] ?? ''));
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(form[2] ?? '')?.[1] ?? '';
  // Each service provider gets its LogoutRequest posted (their metadata asks for HTTP-POST).
  return travel(jar, await post(jar, action, { xsrf, logout: 'yes' }), action, 4);
}

const signedIn = async (jar: CookieJar, sp: TestServiceProvider) =>
  (await (await request(jar, `${sp.baseUrl}/me`)).json()).profile as { nameID: string } | null;

describe('single logout', () => {
  it('started at a service provider ends single sign-on and the other service provider, then answers it', async () => {
    const jar = new CookieJar();
    await signInAt(jar, wiki);
    await signInAt(jar, crm, false);
    const before = { wiki: wiki.events.length, crm: crm.events.length };

    const start = `${wiki.baseUrl}/logout`;
    const confirm = await travel(jar, await request(jar, start), start);
    expect(confirm.url).toContain('/oidc/session/end');
    const ended = await confirmSignOut(jar, confirm.url, confirm.html);

    // CRM was told (its session ended), then Wiki got its LogoutResponse.
    expect(crm.events.slice(before.crm).map((e) => e.kind)).toEqual(['logged_out']);
    expect(wiki.events.slice(before.wiki).map((e) => e.kind)).toEqual(['logout_response']);
    expect(ended.url.startsWith(`${wiki.baseUrl}/slo`)).toBe(true);
    expect(await signedIn(jar, crm)).toBeNull();
    // Single sign-on is over: the next sign-in asks for the password again.
    const url = `${wiki.baseUrl}/login?binding=redirect`;
    const again = await travel(jar, await request(jar, url), url);
    expect(again.url).toContain('/interaction/');
  });

  it('started by signing out at Tessera tells each service provider of the session', async () => {
    const { jar } = await signInToPortal(ctx.baseUrl, carol.username, carol.password);
    await signInAt(jar, wiki, false);
    await signInAt(jar, crm, false);
    const before = { wiki: wiki.events.length, crm: crm.events.length };
    const portal = await (await request(jar, `${ctx.baseUrl}/portal/account`)).text();
    const csrf = /action="\/portal\/logout">\s*<input type="hidden" name="csrf" value="([^"]+)"/.exec(
      portal,
    )?.[1];
    const out = `${ctx.baseUrl}/portal/logout`;
    const page = await travel(jar, await post(jar, out, { csrf: csrf ?? '' }), out);
    // The user centre's ID token names the session: no question, the sign-out page posts itself.
    expect(page.html).not.toContain('op.logoutForm');
    const selfPosted = autoPostForm(page.html);
    const action = absolute(page.url, selfPosted.action);
    await travel(jar, await post(jar, action, selfPosted.fields), action, 4);
    expect(wiki.events.slice(before.wiki).map((e) => e.kind)).toEqual(['logged_out']);
    expect(crm.events.slice(before.crm).map((e) => e.kind)).toEqual(['logged_out']);
    expect(await signedIn(jar, wiki)).toBeNull();
    expect(await signedIn(jar, crm)).toBeNull();
  });

  it('refuses a LogoutResponse that answers no request of Tessera', async () => {
    const jar = new CookieJar();
    await signInAt(jar, wiki);
    const profile = await signedIn(jar, wiki);
    const forged = await wiki
      .saml()
      .getLogoutResponseUrlAsync(
        { ...(profile as object), ID: '_never_sent_by_tessera' } as never,
        '',
        {},
        true,
      );
    const answer = await request(jar, forged);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('This request was used already');
  });
});
