import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consolePage, motionSettled } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

/** Screens in both languages, the language switch, and an invalid stored token. */
export function screenFlows(s: Suite) {
  const { openPage } = s;
  const ADMIN_PASSWORD = s.adminPassword;
  for (const lang of ['en', 'zh'] as const) {
    test(`screenshots in ${lang === 'en' ? 'English' : 'Chinese'} at 1280 and 900 px`, async () => {
      assert.ok(s.server);
      const { context, page } = await openPage({ lang });
      const ui = consolePage(page, s.server.baseUrl);
      try {
        await page.goto(`${s.server.baseUrl}/dev/`);
        await ui.expectSignInPage();
        await ui.screenshot(`sign-in.${lang}`);

        await ui.submitSignIn('admin', ADMIN_PASSWORD);
        await page.waitForURL(`${s.server.baseUrl}/dev/dashboard`);
        await page.getByTestId('company-id').waitFor();
        await page.getByTestId('dashboard-loading').waitFor({ state: 'detached' });
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`dashboard.${lang}`, [1280, 900, 390]);

        const zh = lang === 'zh';
        await page.goto(`${s.server.baseUrl}/dev/setting/basic-set`);
        await page.getByTestId('administrators').getByRole('cell', { name: 'admin', exact: true }).waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`settings.${lang}`);
        await page
          .getByRole('button', { name: zh ? '添加管理员' : 'Add administrator' })
          .first()
          .click();
        const dialog = page.getByRole('dialog');
        await motionSettled(page);
        await dialog.getByText(zh ? '新建人员' : 'Create a new person', { exact: true }).click();
        await dialog.getByLabel(zh ? '密码' : 'Password', { exact: true }).fill('Abcdef-1');
        await dialog.getByLabel(zh ? '确认密码' : 'Confirm password').fill('Abcdef-2');
        await dialog.getByRole('button', { name: zh ? '添加管理员' : 'Add administrator' }).click();
        await dialog.getByText(zh ? '两次输入的密码不一致' : 'Entered Passwords Differ').waitFor();
        await dialog.getByText(zh ? '请输入用户名' : 'Please enter the username').waitFor();
        await ui.screenshot(`settings-add-admin.${lang}`, [1280]);
        await dialog.getByRole('button', { name: zh ? '取消' : 'Cancel' }).click();

        await page.goto(`${s.server.baseUrl}/dev/application/select-app`);
        await page.getByTestId('template-huawei_iam').waitFor();
        await page
          .getByTestId('template-self-built')
          .getByText(zh ? 'SAML' : 'OIDC, SAML')
          .waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`catalogue.${lang}`);

        await page.goto(`${s.server.baseUrl}/dev/setting/license`);
        await page.getByTestId('license-summary').getByText('E2E Co').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`license.${lang}`);

        await page.goto(`${s.server.baseUrl}/dev/setting/about`);
        await page.getByTestId('third-party-table').getByRole('row').nth(10).waitFor();
        await page.getByTestId('about-system').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`about.${lang}`);

        await page.goto(`${s.server.baseUrl}/dev/org/user`);
        await page.getByTestId('users').getByRole('row').nth(1).waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`users.${lang}`);
        await page.goto(`${s.server.baseUrl}/dev/org/department`);
        await page.getByRole('tree').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`departments.${lang}`);

        await page.goto(`${s.server.baseUrl}/dev/safety-management/general`);
        await page.getByTestId('general-safety').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`safety-general.${lang}`);
        await page.goto(`${s.server.baseUrl}/dev/safety-management/mfa`);
        await page.getByTestId('mfa-safety').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`safety-mfa.${lang}`);

        await page.goto(`${s.server.baseUrl}/dev/no/such/page`);
        await page.waitForURL(`${s.server.baseUrl}/dev/404`);
        await ui.screenshot(`not-found.${lang}`, [1280]);

        await page.goto(`${s.server.baseUrl}/dev/dashboard`);
        await page.getByTestId('company-id').waitFor();

        await page.getByRole('button', { name: lang === 'en' ? 'Current company' : '当前企业' }).click();
        await motionSettled(page);
        await page
          .getByRole('menuitem', { name: lang === 'en' ? 'Create another company' : '创建新企业' })
          .click();
        await page.waitForURL(`${s.server.baseUrl}/dev/create-company`);
        await page.getByRole('button', { name: lang === 'en' ? 'Create company' : '创建企业' }).click();
        await page.getByText(lang === 'en' ? 'Please enter the company name' : '请输入企业名称').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`create-company.${lang}`);

        // The single sign-on session is still open: the platform console signs in without a form.
        await page.goto(`${s.server.baseUrl}/admin/create-company`);
        await page.waitForURL(`${s.server.baseUrl}/admin/create-company`);
        await page
          .getByRole('link', { name: lang === 'en' ? 'Open the developer console' : '打开开发者控制台' })
          .waitFor();
        await ui.screenshot(`create-company-admin.${lang}`);
      } finally {
        await context.close();
      }
    });
  }

  test('the language switch changes the console and sets the lang cookie for the sign-in pages', async () => {
    assert.ok(s.server);
    const { context, page } = await openPage();
    const ui = consolePage(page, s.server.baseUrl);
    try {
      await page.goto(`${s.server.baseUrl}/dev/dashboard`);
      await ui.expectSignInPage();
      await ui.submitSignIn('admin', ADMIN_PASSWORD);
      await page.getByText('Welcome, admin').waitFor();
      await page.getByRole('button', { name: 'Language' }).click();
      await motionSettled(page);
      await page.getByRole('menuitem', { name: '中文' }).click();
      await page.getByText('欢迎，admin').waitFor();
      await ui.expectTitle('首页 - Tessera');
      await page.reload();
      await page.getByText('欢迎，admin').waitFor();
      assert.equal(
        (await page.getByRole('button', { name: '语言' }).innerText()).trim(),
        '中文',
        'the choice survives a reload',
      );
      const cookies = await context.cookies(s.server.baseUrl);
      const lang = cookies.find((cookie) => cookie.name === 'lang');
      assert.equal(lang?.value, 'zh');
      assert.equal(lang?.path, '/');
      assert.ok(lang.expires * 1000 > Date.now() + 360 * 24 * 3600 * 1000, 'the cookie lasts a year');
      await ui.logOut('账号菜单', '退出登录');
      await ui.expectSignInPage();
      await page.locator('button.primary[type=submit]', { hasText: '登录' }).waitFor();
    } finally {
      await context.close();
    }
  });

  test('an invalid stored token shows the "Login Again" alert, then signs in again', async () => {
    assert.ok(s.server);
    const { context, page } = await openPage();
    const ui = consolePage(page, s.server.baseUrl);
    try {
      await page.goto(`${s.server.baseUrl}/console/favicon.svg`);
      await page.evaluate(() => window.localStorage.setItem('asp_admin_token', 'no-such-token'));
      await page.goto(`${s.server.baseUrl}/dev/dashboard`);
      const alert = page.getByRole('dialog', { name: 'Login Again' });
      await alert.getByText('Identity information invalid, please login again!').waitFor();
      assert.equal(await page.getByRole('dialog').count(), 1, 'one alert, however many calls failed');
      await ui.screenshot('login-again.en', [1280]);
      await alert.getByRole('button', { name: 'Sign in' }).click();
      await ui.expectSignInPage();
      assert.equal(await page.evaluate(() => window.localStorage.getItem('asp_admin_token')), null);
    } finally {
      await context.close();
    }
  });
}
