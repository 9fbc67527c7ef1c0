/**
 * Browser tests of the console against a real server and Chromium (npm run test:e2e).
 * Starts the server on a free port with a fresh database, runs the flows in order (the admin
 * flow uses the company the developer flow creates) and always stops the server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/browser.ts';
import { consolePage } from './support/console.page.ts';
import { type RunningServer, startServer } from './support/server.process.ts';

const ADMIN_PASSWORD = 'E2e-admin-pass-1';
const COMPANY_NAME = 'Acme Identity Ltd';
/** Spec §9: names are cut to 10 characters plus an ellipsis in the top bar. */
const COMPANY_NAME_SHORT = 'Acme Ident…';

describe('Tessera console in Chromium', { timeout: 120_000 }, () => {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const pageErrors: string[] = [];

  before(async () => {
    server = await startServer(ADMIN_PASSWORD);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await server?.stop();
  });

  async function openPage(
    options: { lang?: 'en' | 'zh' } = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    assert.ok(browser && server);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    if (options.lang) {
      await context.addCookies([{ name: 'lang', value: options.lang, url: server.baseUrl }]);
    }
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    page.on('console', (message) => {
      // A refused call (the 401 test) is logged by the browser itself; anything else is a bug.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        pageErrors.push(`${page.url()}: console: ${message.text()}`);
      }
    });
    return { context, page };
  }

  test('/dev/: sign in, create a company, log out, and the old token is refused', async () => {
    assert.ok(server);
    const { context, page } = await openPage();
    const ui = consolePage(page, server.baseUrl);
    try {
      await page.goto(`${server.baseUrl}/dev/`);
      await ui.expectSignInPage();

      await ui.submitSignIn('admin', 'not-the-password');
      await ui.expectSignInError();

      await ui.submitSignIn('admin', ADMIN_PASSWORD);
      await page.waitForURL(`${server.baseUrl}/dev/create-company`);
      assert.equal(new URL(page.url()).search, '', 'code and state are gone from the address');

      await page.getByRole('button', { name: 'Create company' }).click();
      await page.getByText('Please enter the company name').waitFor();
      await ui.screenshot('create-company-first.en');

      await page.getByLabel('Company name').fill(COMPANY_NAME);
      await page.getByRole('button', { name: 'Create company' }).click();
      await page.waitForURL(`${server.baseUrl}/dev/dashboard`);
      assert.equal(await page.getByTestId('current-company').textContent(), COMPANY_NAME_SHORT);
      await page.getByRole('cell', { name: COMPANY_NAME, exact: true }).waitFor();
      await ui.expectNoRawPhraseKeys();

      const token = await ui.token();
      assert.equal(await ui.companyListCode(token), 200, 'the token works while signed in');

      await ui.logOut();
      await ui.expectSignInPage();
      assert.equal(await ui.companyListCode(token), 401, 'the token is refused after logging out');
    } finally {
      await context.close();
    }
  });

  test('/admin/: sign in, see the company, log out, and the old token is refused', async () => {
    assert.ok(server);
    const { context, page } = await openPage();
    const ui = consolePage(page, server.baseUrl);
    try {
      await page.goto(`${server.baseUrl}/admin/`);
      await ui.expectSignInPage();
      await ui.submitSignIn('admin', ADMIN_PASSWORD);
      await page.waitForURL(`${server.baseUrl}/admin/dashboard`);
      assert.equal(await page.getByTestId('current-company').textContent(), COMPANY_NAME_SHORT);
      await page.getByRole('cell', { name: COMPANY_NAME, exact: true }).waitFor();
      await page.getByText('Platform console').waitFor();

      const token = await ui.token();
      await ui.logOut();
      await ui.expectSignInPage();
      assert.equal(new URL(page.url()).pathname.startsWith('/interaction/'), true);
      assert.equal(await ui.companyListCode(token), 401, 'the token is refused after logging out');
    } finally {
      await context.close();
    }
  });

  for (const lang of ['en', 'zh'] as const) {
    test(`screenshots in ${lang === 'en' ? 'English' : 'Chinese'} at 1280 and 900 px`, async () => {
      assert.ok(server);
      const { context, page } = await openPage({ lang });
      const ui = consolePage(page, server.baseUrl);
      try {
        await page.goto(`${server.baseUrl}/dev/`);
        await ui.expectSignInPage();
        await ui.screenshot(`sign-in.${lang}`);

        await ui.submitSignIn('admin', ADMIN_PASSWORD);
        await page.waitForURL(`${server.baseUrl}/dev/dashboard`);
        await page.getByTestId('company-id').waitFor();
        await page.locator('.ant-skeleton').waitFor({ state: 'detached' });
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`dashboard.${lang}`, [1280, 900, 390]);

        await page.getByRole('button', { name: lang === 'en' ? 'Current company' : '当前企业' }).click();
        await page
          .getByRole('menuitem', { name: lang === 'en' ? 'Create another company' : '创建新企业' })
          .click();
        await page.waitForURL(`${server.baseUrl}/dev/create-company`);
        await page.getByRole('button', { name: lang === 'en' ? 'Create company' : '创建企业' }).click();
        await page.getByText(lang === 'en' ? 'Please enter the company name' : '请输入企业名称').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`create-company.${lang}`);

        // The single sign-on session is still open: the platform console signs in without a form.
        await page.goto(`${server.baseUrl}/admin/create-company`);
        await page.waitForURL(`${server.baseUrl}/admin/create-company`);
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
    assert.ok(server);
    const { context, page } = await openPage();
    const ui = consolePage(page, server.baseUrl);
    try {
      await page.goto(`${server.baseUrl}/dev/dashboard`);
      await ui.expectSignInPage();
      await ui.submitSignIn('admin', ADMIN_PASSWORD);
      await page.getByText('Welcome, admin').waitFor();
      await page.getByRole('button', { name: 'Language' }).click();
      await page.getByRole('menuitem', { name: '中文' }).click();
      await page.getByText('欢迎，admin').waitFor();
      const cookies = await context.cookies(server.baseUrl);
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
    assert.ok(server);
    const { context, page } = await openPage();
    const ui = consolePage(page, server.baseUrl);
    try {
      await page.goto(`${server.baseUrl}/console/favicon.svg`);
      await page.evaluate(() => window.localStorage.setItem('asp_admin_token', 'no-such-token'));
      await page.goto(`${server.baseUrl}/dev/dashboard`);
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

  test('no uncaught errors or console errors in the pages', () => {
    assert.deepEqual(pageErrors, []);
  });
});
