import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  absolute,
  browse,
  CookieJar,
  csrfOf,
  postForm,
  signInToPortal,
  submitSignIn,
} from '../../test/browser-flow.ts';
import {
  call,
  companyMember,
  createAccount,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';

/** Issue 35: a company's user centre address wears its brand, on the sign-in page and the user centre. */
let ctx: TestContext;
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;
let acmeCode: string;
const asAcme = () => ({ token: acme.token, companyId: acme.companyId });

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  acme = await ownerWithCompany(ctx, 'address-owner', 'Acme Address');
  const saved = await call<{ companyCode: string }>(
    ctx,
    '/api/v1/manage/brand/update',
    {
      primaryColor: '#c41d7f',
      title: 'Acme People',
      footerText: '沪ICP备00000001号',
      footerLink: 'https://beian.miit.gov.cn/',
      defaultLanguage: 'zh',
    },
    asAcme(),
  );
  acmeCode = saved.data.companyCode;
});
afterAll(() => ctx.close());

/** Opens a company address with a fresh browser, signs in on the page it leads to, and follows on. */
async function signInThrough(
  code: string,
  person: { username: string; password: string },
  lang?: 'en' | 'zh',
) {
  const jar = new CookieJar();
  if (lang) jar.cookies.set('lang', lang);
  const signInPage = await browse(jar, `${ctx.baseUrl}/portal/c/${code}/`);
  const posted = await submitSignIn(jar, signInPage.url, person.username, person.password);
  expect(posted.status).toBe(303);
  const landed = await browse(jar, absolute(signInPage.url, posted.headers.get('location')));
  return { jar, signInPage, landed };
}

const brandedWith = (html: string, lang: 'en' | 'zh') => {
  expect(html).toContain(`<html lang="${lang === 'zh' ? 'zh-CN' : 'en'}">`);
  expect(html).toContain('<body class="branded">');
  expect(html).toContain('<strong>Acme People</strong>');
  expect(html).toMatch(/<link rel="stylesheet" href="\/portal\/brand\/[0-9a-f-]{36}\/[0-9a-z]+\.css">/);
  expect(html).toContain(
    '<a href="https://beian.miit.gov.cn/" target="_blank" rel="noopener noreferrer">沪ICP备00000001号</a>',
  );
};

describe('company code', () => {
  it('is short, URL-safe, the same in company and brand details, unique, and kept through a rename and a new key', async () => {
    const detail = await call<{ code: string }>(ctx, '/api/v1/manage/company/detail', {}, asAcme());
    expect(detail.data.code).toBe(acmeCode);
    expect(acmeCode).toMatch(/^[a-z0-9]{10}$/);
    const other = await ownerWithCompany(ctx, 'code-owner-2', 'Other Code');
    const otherDetail = await call<{ code: string }>(ctx, '/api/v1/manage/company/detail', {}, other);
    expect(otherDetail.data.code).not.toBe(acmeCode);
    await call(ctx, '/api/v1/manage/company/update', { name: 'Renamed Code' }, other);
    await call(ctx, '/api/v1/manage/company/key/reset', {}, other);
    const after = await call<{ code: string }>(ctx, '/api/v1/manage/company/detail', {}, other);
    expect(after.data.code).toBe(otherDetail.data.code);
  });
});

describe('the user centre at a company address', () => {
  it("wears the company's brand on the sign-in page and the user centre, in its default language or the one chosen", async () => {
    const person = await companyMember(ctx, asAcme(), 'address-member');
    for (const [chosen, lang, title] of [
      [undefined, 'zh', '个人中心'],
      ['en', 'en', 'My account'],
    ] as const) {
      const { signInPage, landed } = await signInThrough(acmeCode, person, chosen);
      expect(signInPage.url).toMatch(/\/interaction\//);
      brandedWith(signInPage.html, lang);
      expect(landed.url).toBe(`${ctx.baseUrl}/portal/c/${acmeCode}/`);
      brandedWith(landed.html, lang);
      expect(landed.html).toContain(`<h1>${title}</h1>`);
      // The company of the address is marked current; the navigation stays on the address.
      expect(landed.html).toMatch(/Acme Address <span class="tag">/);
      expect(landed.html).toContain(`href="/portal/c/${acmeCode}/"`);
    }
  });

  it('sends the address without its slash to the address, and answers an unknown code with a page in both languages', async () => {
    const jar = new CookieJar();
    const bare = await fetch(`${ctx.baseUrl}/portal/c/${acmeCode}`, { redirect: 'manual' });
    expect(bare.headers.get('location')).toBe(`/portal/c/${acmeCode}/`);
    for (const [lang, text] of [
      ['en', 'This user centre address names no company'],
      ['zh', '此用户中心地址没有对应的企业'],
    ] as const) {
      jar.cookies.set('lang', lang);
      const unknown = await browse(jar, `${ctx.baseUrl}/portal/c/no-such-company/`);
      expect(unknown.response.status).toBe(404);
      expect(unknown.html).toContain(text);
      expect(unknown.html).not.toContain('class="branded"');
    }
  });

  it("lets a person of another company sign in through it, and takes them to their own company's user centre", async () => {
    const beta = await ownerWithCompany(ctx, 'beta-owner', 'Beta Works');
    const betaCode = (await call<{ code: string }>(ctx, '/api/v1/manage/company/detail', {}, beta)).data.code;
    const stranger = await companyMember(ctx, beta, 'beta-member');
    const { signInPage, landed } = await signInThrough(acmeCode, stranger);
    brandedWith(signInPage.html, 'zh');
    expect(landed.url).toBe(`${ctx.baseUrl}/portal/c/${betaCode}/`);
    expect(landed.response.status).toBe(200);
    expect(landed.html).not.toContain('Acme');
    expect(landed.html).toMatch(/Beta Works <span class="tag">/);
    // Someone of no company at all lands in the plain user centre.
    const loner = await createAccount(ctx, { username: 'no-company-person', password: 'Sunny-Day-42' });
    const alone = await signInThrough(acmeCode, loner);
    expect(alone.landed.url).toBe(`${ctx.baseUrl}/portal/account`);
    expect(alone.landed.html).not.toContain('class="branded"');
  });
});

/** The user-centre pages a person reaches from the account page (issue 35, item 6). */
const userCentrePages = [
  '/portal/apps',
  '/portal/account/password',
  '/portal/account/mfa/passkey',
  '/portal/account',
];

describe("the user centre's other pages (issue 35)", () => {
  it('wear the brand of the company address the person came through, and so does a sign-in they start', async () => {
    const person = await companyMember(ctx, asAcme(), 'address-pages');
    const { jar, landed } = await signInThrough(acmeCode, person, 'en');
    brandedWith(landed.html, 'en');
    for (const path of userCentrePages) {
      const page = await browse(jar, `${ctx.baseUrl}${path}`);
      expect(page.response.status, path).toBe(200);
      expect(page.url, path).toBe(`${ctx.baseUrl}${path}`);
      brandedWith(page.html, 'en');
    }
    // The second-factor pages are forms posted from the account page.
    const account = await browse(jar, `${ctx.baseUrl}/portal/account`);
    const mfaSection = /<section id="mfa">[\s\S]*?<\/section>/.exec(account.html)?.[0] ?? '';
    const bind = await postForm(jar, `${ctx.baseUrl}/portal/account/mfa/bind`, {
      csrf: csrfOf(mfaSection),
      type: 'otp',
    });
    expect(bind.html).toContain('src="data:image/svg+xml;base64,');
    brandedWith(bind.html, 'en');
    // With every session gone, the next sign-in started from My apps keeps the look.
    for (const name of [...jar.cookies.keys()]) {
      if (name !== 'lang' && name !== 'tessera_portal_company') jar.cookies.delete(name);
    }
    const again = await browse(jar, `${ctx.baseUrl}/portal/apps`);
    expect(again.url).toMatch(/\/interaction\//);
    brandedWith(again.html, 'en');
  });

  it("wear the saved brand of a signed-in person's only company, and not another company's through its address", async () => {
    const person = await companyMember(ctx, asAcme(), 'plain-door');
    const { jar, page } = await signInToPortal(ctx.baseUrl, person.username, person.password, 'zh');
    expect(page.url).toBe(`${ctx.baseUrl}/portal/account?lang=zh`);
    brandedWith(page.html, 'zh');
    for (const path of userCentrePages) brandedWith((await browse(jar, `${ctx.baseUrl}${path}`)).html, 'zh');

    // Someone of another company who came through Acme's address is sent to their own company's
    // address, whose look (its name, as it saved no brand) the other pages keep.
    const gamma = await ownerWithCompany(ctx, 'gamma-owner', 'Gamma Plain');
    const stranger = await companyMember(ctx, gamma, 'gamma-member');
    const through = await signInThrough(acmeCode, stranger, 'en');
    expect(through.landed.html).toMatch(/Gamma Plain <span class="tag">/);
    for (const path of userCentrePages) {
      const other = await browse(through.jar, `${ctx.baseUrl}${path}`);
      expect(other.response.status, path).toBe(200);
      expect(other.html, path).toContain('<strong>Gamma Plain</strong>');
      expect(other.html, path).not.toContain('Acme');
    }
  });
});

/** A page without what differs per visit: CSRF tokens, form addresses, passkey options and how the brand's stylesheet arrives. */
const comparable = (html: string) =>
  html
    .replace(/name="csrf" value="[^"]*"/g, 'name="csrf" value=""')
    .replace(/action="[^"]*"/g, 'action=""')
    .replace(/data-options="[^"]*"/g, 'data-options=""')
    .replace(
      /<link rel="stylesheet" href="\/portal\/brand\/[^"]+">|<style>[^<]*<\/style>/,
      '<brand-stylesheet>',
    )
    .replace(/(<a class="lang" href=")[^"]*"/, '$1"');

describe('the brand preview (issue 35)', () => {
  it('is the sign-in page of the company address itself, in both languages, with the values not saved yet', async () => {
    const before = await call(ctx, '/api/v1/manage/brand/detail', {}, asAcme());
    for (const lang of ['en', 'zh'] as const) {
      const jar = new CookieJar();
      jar.cookies.set('lang', lang);
      const real = await browse(jar, `${ctx.baseUrl}/portal/c/${acmeCode}/`);
      const preview = await call<{ html: string }>(
        ctx,
        '/api/v1/manage/brand/preview',
        {
          primaryColor: '#C41D7F',
          title: 'Acme People',
          footerText: '沪ICP备00000001号',
          footerLink: 'https://beian.miit.gov.cn/',
          lang,
        },
        asAcme(),
      );
      expect(preview.code).toBe(200);
      expect(comparable(preview.data.html)).toBe(comparable(real.html));
      expect(preview.data.html).not.toMatch(/forgot|忘记密码/i);
      expect(preview.data.html).toContain('<style>:root{--primary:#c41d7f;--primary-dark:');
    }
    // Values being typed change the preview only; a colour not finished yet is left out.
    const draft = await call<{ html: string }>(
      ctx,
      '/api/v1/manage/brand/preview',
      { primaryColor: '#c4', title: 'Draft Title', footerText: '', footerLink: 'https://', lang: 'en' },
      asAcme(),
    );
    expect(draft.data.html).toContain('<strong>Draft Title</strong>');
    expect(draft.data.html).not.toContain('--primary');
    expect(draft.data.html).not.toContain('info-bar');
    expect(await call(ctx, '/api/v1/manage/brand/detail', {}, asAcme())).toEqual(before);
  });
});
