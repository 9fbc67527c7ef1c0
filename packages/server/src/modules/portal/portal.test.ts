import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { absolute, CookieJar, request, startAuthorization, submitSignIn } from '../../test/browser-flow.ts';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
});
afterAll(() => ctx.close());

/** Follows redirects like a browser until a page answers. */
async function browse(jar: CookieJar, url: string, init?: RequestInit) {
  let response = await request(jar, url, init);
  let current = url;
  for (let hop = 0; hop < 8 && response.status >= 300 && response.status < 400; hop++) {
    current = absolute(current, response.headers.get('location'));
    response = await request(jar, current);
  }
  return { response, url: current };
}

describe('user centre', () => {
  it('signs in through the provider, shows the profile, companies and sign-ins, and signs out', async () => {
    const { account, companyId } = await ownerWithCompany(ctx, 'centre-user', 'Centre Co');
    const jar = new CookieJar();
    const first = await browse(jar, `${ctx.baseUrl}/portal/account?company_id=${companyId}`);
    expect(first.url).toContain('/interaction/');
    const posted = await submitSignIn(jar, first.url, account.username, account.password);
    expect(posted.status).toBe(303);
    let next = absolute(first.url, posted.headers.get('location'));
    const landed = await browse(jar, next);
    expect(landed.url).toBe(`${ctx.baseUrl}/portal/account?company_id=${companyId}`);
    const html = await landed.response.text();
    expect(html).toContain('centre-user');
    expect(html).toContain('Centre Co');
    expect(html).toMatch(/Centre Co <span class="tag">Current<\/span>/);
    expect(html).toContain('Signed in');
    expect(html).toContain('Tessera user centre · 127.0.0.1');
    expect(jar.cookies.get('tessera_portal')).toBeTruthy();

    // The user-centre cookie is not a console token.
    const asConsole = await call(
      ctx,
      '/api/v1/manage/company/my/list',
      {},
      { token: jar.cookies.get('tessera_portal') },
    );
    expect(asConsole.code).toBe(401);

    // Sign out: needs the page's CSRF token.
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const forged = await request(jar, `${ctx.baseUrl}/portal/logout`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `tessera_portal=${jar.cookies.get('tessera_portal')}`,
      },
      body: 'csrf=forged',
    });
    expect(forged.headers.get('location')).toBe('/portal/account');
    // A forged sign-out clears the cookie in that browser but leaves the session; sign in again to get it back.
    next = `${ctx.baseUrl}/portal/account`;
    const again = await browse(jar, next);
    const againHtml = await again.response.text();
    // The sign-out form's token (the MFA section's forms carry their own).
    const freshCsrf = /action="\/portal\/logout">\s*<input type="hidden" name="csrf" value="([^"]+)"/.exec(
      againHtml,
    )?.[1];
    expect(freshCsrf).toBeTruthy();
    const out = await request(jar, `${ctx.baseUrl}/portal/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: freshCsrf! }).toString(),
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toContain('/oidc/session/end');
    // The user centre names its own session with its ID token: Tessera does not ask again.
    const ending = await request(jar, new URL(out.headers.get('location')!, ctx.baseUrl).toString());
    const endingHtml = await ending.text();
    expect(endingHtml).not.toContain('Do you want to sign out');
    expect(endingHtml).toMatch(/\/session\/end\/confirm"[^>]*data-auto-submit>/);
    expect(csrf).not.toBe(freshCsrf);
    const afterOut = await request(jar, `${ctx.baseUrl}/portal/account`);
    expect(afterOut.status).toBe(302);
  });

  it('shows the user centre in Chinese', async () => {
    const { account } = await ownerWithCompany(ctx, 'zh-user');
    const jar = new CookieJar();
    jar.cookies.set('lang', 'zh');
    const first = await browse(jar, `${ctx.baseUrl}/portal/account`);
    const posted = await submitSignIn(jar, first.url, account.username, account.password);
    const landed = await browse(jar, absolute(first.url, posted.headers.get('location')));
    const html = await landed.response.text();
    expect(html).toContain('个人中心');
    expect(html).toContain('所有者');
  });

  it('answers at /portal/ (issue 35 item 5): sign-in first, then the user centre', async () => {
    const { account, companyId } = await ownerWithCompany(ctx, 'front-door', 'Front Door Co');
    const jar = new CookieJar();
    const bare = await request(jar, `${ctx.baseUrl}/portal`);
    expect(bare.headers.get('location')).toBe('/portal/account');
    const first = await browse(jar, `${ctx.baseUrl}/portal/?company_id=${companyId}`);
    expect(first.url).toContain('/interaction/');
    const signInPage = await first.response.text();
    // The user centre's own sign-in does not link to where it already leads.
    expect(signInPage).not.toContain('href="/portal/"');
    const posted = await submitSignIn(jar, first.url, account.username, account.password);
    const landed = await browse(jar, absolute(first.url, posted.headers.get('location')));
    expect(landed.url).toBe(`${ctx.baseUrl}/portal/account?company_id=${companyId}`);
    expect(await landed.response.text()).toContain('Front Door Co');
    // Signed in, the front door opens straight onto the user centre.
    const again = await browse(jar, `${ctx.baseUrl}/portal/`);
    expect(again.url).toBe(`${ctx.baseUrl}/portal/account`);
    expect(again.response.status).toBe(200);
  });

  it('links the shared sign-in page to the user centre, in both languages', async () => {
    for (const [lang, label] of [
      ['en', 'Your account: profile, security and apps'],
      ['zh', '我的账号：个人信息、安全设置和应用'],
    ] as const) {
      const jar = new CookieJar();
      jar.cookies.set('lang', lang);
      const start = await startAuthorization({
        baseUrl: ctx.baseUrl,
        clientId: 'tessera-console-dev',
        redirectUri: `${ctx.baseUrl}/dev/`,
        jar,
      });
      const page = await browse(jar, start.location);
      expect(page.url).toContain('/interaction/');
      const html = await page.response.text();
      expect(html).toContain(`<a href="/portal/">${label}</a>`);
      const target = await browse(new CookieJar(), `${ctx.baseUrl}/portal/`);
      expect(target.response.status).toBe(200);
    }
  });
});
