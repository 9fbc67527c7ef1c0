import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browse, csrfOf, postForm, signInToPortal } from '../../test/browser-flow.ts';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';

/**
 * Issue 12: a form-fill app's login address follows the rule of callback addresses (https, http
 * on the loopback host only), since the person's password is posted to it. An address saved
 * before the rule is never posted to: the launch explains why.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
const SHARED_PASSWORD = 'Shared-Form-Pass-7';

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  await grantLicense(ctx, { app: 100 });
  owner = await ownerWithCompany(ctx, 'form-url-owner', 'Form Url Co');
});
afterAll(() => ctx?.close());

const manage = (path: string, body: unknown, lang?: string) =>
  call(ctx, path, body, { token: owner.token, companyId: owner.companyId, lang });

const formSettings = (appId: string, loginUrl: string) => ({
  appId,
  loginUrl,
  usernameField: 'user',
  passwordField: 'pass',
  credentialMode: 'shared',
  sharedUsername: 'robot',
  sharedPassword: SHARED_PASSWORD,
});

async function formApp(name: string, loginUrl: string) {
  const created = await manage('/api/v1/manage/app/create', { name, protocol: 'form' });
  const appId = (created.data as { app: { appId: string } }).app.appId;
  expect((await manage('/api/v1/manage/app/form/update', formSettings(appId, loginUrl))).code).toBe(200);
  expect((await manage('/api/v1/manage/app/status', { appId, status: 'opened' })).code).toBe(200);
  return appId;
}

const storedLoginUrl = async (appId: string) =>
  (
    await ctx.database.db
      .selectFrom('app_form_configs')
      .select('login_url')
      .where('app_id', '=', appId)
      .executeTakeFirstOrThrow()
  ).login_url;

describe('the login address of a form-fill app', () => {
  it('is https, or http on the loopback host only', async () => {
    const appId = await formApp('Intranet Wiki', 'https://wiki.example.com/login');
    for (const url of [
      'http://wiki.example.com/login',
      'http://10.0.0.8/login',
      'HTTP://Wiki.Example.com/',
    ]) {
      const refused = await manage('/api/v1/manage/app/form/update', formSettings(appId, url));
      expect(refused).toMatchObject({
        code: 400,
        msg: 'The password is posted to this address: use https (http is allowed for localhost only)',
        data: { reason: 'app.login_url_http', fields: [{ field: 'loginUrl' }] },
      });
    }
    const inChinese = await manage(
      '/api/v1/manage/app/form/update',
      formSettings(appId, 'http://wiki.example.com/login'),
      'zh-CN',
    );
    expect(inChinese.msg).toBe('密码将提交到此地址，请使用 https（仅 localhost 允许使用 http）');
    expect(await storedLoginUrl(appId)).toBe('https://wiki.example.com/login');

    for (const url of ['http://localhost:8081/login', 'http://127.0.0.1/login', 'http://[::1]:9000/']) {
      expect((await manage('/api/v1/manage/app/form/update', formSettings(appId, url))).code).toBe(200);
      expect(await storedLoginUrl(appId)).toBe(url);
    }
  });

  it('saved as http before the rule: the launch is refused with a clear page, the password never sent', async () => {
    const appId = await formApp('Old Ledger', 'https://ledger.example.com/login');
    await ctx.database.db
      .updateTable('app_form_configs')
      .set({ login_url: 'http://ledger.example.com/login' })
      .where('app_id', '=', appId)
      .execute();
    const person = await companyMember(ctx, owner, 'form-url-person');
    const { jar } = await signInToPortal(ctx.baseUrl, person.username, person.password);
    const myApps = await browse(jar, `${ctx.baseUrl}/portal/apps`);
    const launched = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, {
      csrf: csrfOf(myApps.html),
    });
    expect(launched.response.status).toBe(409);
    expect(launched.html).toContain('its sign-in address does not use https');
    expect(launched.html).not.toContain(SHARED_PASSWORD);
    expect(launched.html).not.toContain('data-auto-submit');
    const viaLink = await browse(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch?lang=zh`);
    expect(viaLink.response.status).toBe(409);
    expect(viaLink.html).toContain('其登录地址未使用 https');
    // The administrator sees the stored address, and saving it needs a protected one.
    const detail = await manage('/api/v1/manage/app/form/detail', { appId });
    expect((detail.data as { loginUrl: string }).loginUrl).toBe('http://ledger.example.com/login');
  });
});
