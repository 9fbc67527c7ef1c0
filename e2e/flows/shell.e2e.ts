import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consolePage, fieldMessagesGone, motionSettled } from '../support/console.page.ts';
import {
  COMPANY_NAME,
  COMPANY_NAME_SHORT,
  LONG_NAME,
  LONG_NAME_SHORT,
  SECOND_NAME,
  type Suite,
} from '../support/suite.ts';
import { settingsFlows } from './settings.e2e.ts';

/** The console shell: serving, signing in to both variants, menus, sidebar, companies (then settings.e2e.ts), the account menu. */
export function shellFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  const ADMIN_PASSWORD = s.adminPassword;
  test('serves the console compressed and keeps the build manifest private', async () => {
    assert.ok(s.server);
    const index = await fetch(`${s.server.baseUrl}/dev/`);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await index.text())?.[1];
    assert.ok(script, 'the console page loads its script from /console/assets/');
    const asset = await fetch(`${s.server.baseUrl}${script}`, { headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-encoding') ?? '', /br|gzip/);
    for (const path of ['/console/.vite/manifest.json', '/console//.vite/manifest.json']) {
      assert.equal((await fetch(`${s.server.baseUrl}${path}`)).status, 404, path);
    }
  });

  test('the API reference works under its Content-Security-Policy', async () => {
    assert.ok(s.server);
    const { context, page } = await openPage();
    try {
      await page.goto(`${s.server.baseUrl}/api/docs`);
      await page.locator('.swagger-ui .info .title').waitFor();
      // An operation opened: its parameters, schemas and examples render too.
      await page.locator('.opblock-summary').first().click();
      await page.locator('.opblock-body').first().waitFor();
      assert.equal(await page.locator('.swagger-ui .errors-wrapper').count(), 0);
    } finally {
      await context.close();
    }
  });

  test('/dev/: sign in, create a company, log out, and the old token is refused', async () => {
    assert.ok(s.server);
    const { context, page } = await openPage();
    const ui = consolePage(page, s.server.baseUrl);
    try {
      await page.goto(`${s.server.baseUrl}/dev/`);
      await ui.expectSignInPage();

      s.secrets.push('not-the-password');
      await ui.submitSignIn('admin', 'not-the-password');
      await ui.expectSignInError();

      await ui.submitSignIn('admin', ADMIN_PASSWORD);
      await page.waitForURL(`${s.server.baseUrl}/dev/create-company`);
      assert.equal(new URL(page.url()).search, '', 'code and state are gone from the address');

      await page.getByRole('button', { name: 'Create company' }).click();
      await page.getByText('Please enter the company name').waitFor();
      await ui.screenshot('create-company-first.en');

      await page.getByLabel('Company name').fill(COMPANY_NAME);
      await fieldMessagesGone(page);
      await page.getByRole('button', { name: 'Create company' }).click();
      await page.waitForURL(`${s.server.baseUrl}/dev/dashboard`);
      assert.equal(await page.getByTestId('current-company').textContent(), COMPANY_NAME_SHORT);
      await ui.expectDashboardCompany(COMPANY_NAME);
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
    assert.ok(s.server);
    const { context, page } = await openPage();
    const ui = consolePage(page, s.server.baseUrl);
    try {
      await page.goto(`${s.server.baseUrl}/admin/`);
      await ui.expectSignInPage();
      await ui.submitSignIn('admin', ADMIN_PASSWORD);
      await page.waitForURL(`${s.server.baseUrl}/admin/dashboard`);
      assert.equal(await page.getByTestId('current-company').textContent(), COMPANY_NAME_SHORT);
      await ui.expectDashboardCompany(COMPANY_NAME);
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

  test('keeps the session alive in two tabs: one refresh before the idle expiry, both go on with the new token (issue 15)', async () => {
    assert.ok(s.server);
    const { context, page } = await openPage();
    // The pages' clocks run from now and can jump: two hours pass in a moment.
    await context.clock.install();
    const ui = consolePage(page, s.server.baseUrl);
    try {
      await ui.signIn('/dev/dashboard', ADMIN_PASSWORD);
      const other = await context.newPage();
      await other.goto(`${s.server.baseUrl}/dev/dashboard`);
      await other.getByTestId('current-company').waitFor();
      const refreshes: string[] = [];
      context.on('request', (request) => {
        if (request.url().endsWith('/api/v1/dev/oidc/refresh'))
          refreshes.push(request.headers().access_token ?? '');
      });
      const before = await ui.token();
      // Both tabs are used, so both plan the refresh for the same moment.
      for (const tab of [page, other]) await tab.mouse.move(200, 200);
      // The server's idle expiry is 2 hours: the refresh is due 5 minutes before it.
      await context.clock.fastForward('01:56:00');
      await page.waitForFunction((old) => localStorage.getItem('asp_admin_token') !== old, before);
      const after = await ui.token();
      assert.deepEqual(refreshes, [before], 'one tab refreshed, with the old token');
      assert.equal(await ui.companyListCode(before), 401, 'the old token is refused');
      // The other tab goes on with the new token, without "Login Again".
      await other.bringToFront();
      const [next] = await Promise.all([
        other.waitForRequest((request) => request.url().endsWith('/api/v1/manage/app/list')),
        other.getByTestId('sidebar').getByRole('menuitem', { name: 'Applications' }).click(),
      ]);
      assert.equal(next.headers().access_token, after);
      assert.equal((await next.response())?.status(), 200);
      assert.equal(await other.getByText('Login Again').count(), 0);
      assert.equal(await page.getByText('Login Again').count(), 0);
    } finally {
      await context.close();
    }
  });

  devFlow(
    'menus come from the route table: the full set under /dev, the reduced set under /admin',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      const base = s.server.baseUrl;
      assert.deepEqual(await ui.menuLabels(), [
        'Dashboard',
        'Applications',
        'Identity sources',
        'Organization',
        'Permissions',
        'Security',
        'Logs',
        'Branding',
        'Settings',
      ]);
      await page.getByTestId('sidebar').getByRole('menuitem', { name: 'Settings' }).click();
      await page.getByTestId('sidebar').getByRole('menuitem', { name: 'About' }).waitFor();
      assert.deepEqual(await ui.menuLabels(), [
        'Dashboard',
        'Applications',
        'Identity sources',
        'Organization',
        'Permissions',
        'Security',
        'Logs',
        'Branding',
        'Settings',
        'Company settings',
        'Licence',
        'About',
      ]);

      await page.getByTestId('sidebar').getByRole('menuitem', { name: 'Licence' }).click();
      await page.waitForURL(`${base}/dev/setting/license`);
      await ui.expectTitle('Licence - Tessera');
      const crumbs = await page.getByRole('navigation', { name: 'You are here' }).innerText();
      assert.deepEqual(crumbs.split(/\s*\/\s*|\n/).filter(Boolean), ['Dashboard', 'Settings', 'Licence']);
      const tabs = await page.getByTestId('tab').allInnerTexts();
      assert.deepEqual(
        tabs.map((tab) => tab.trim()),
        ['Dashboard', 'Licence'],
      );
      // The dashboard's tab is pinned; the licence tab closes and the console moves to its neighbour.
      assert.equal(await page.getByTestId('tab').first().getByRole('button').count(), 0);
      await page.getByTestId('tab').nth(1).getByRole('button', { name: 'Close Licence' }).click();
      await page.waitForURL(`${base}/dev/dashboard`);

      for (const path of ['/no/such/page', '/brand/no-such-screen', '/setting']) {
        await page.goto(`${base}/dev${path}`);
        await page.waitForURL(`${base}/dev/404`);
      }
      await page.getByText('Page not found').first().waitFor();
      await page.goto(`${base}/dev/`);
      await page.waitForURL(`${base}/dev/dashboard`);

      // The single sign-on session is open: the platform console signs in without a form.
      await page.goto(`${base}/admin/setting/basic-set`);
      await page.waitForURL(`${base}/admin/setting/basic-set`);
      await page.getByTestId('sidebar').getByRole('menuitem', { name: 'Company settings' }).waitFor();
      assert.deepEqual(await ui.menuLabels(), [
        'Dashboard',
        'Applications',
        'Identity sources',
        'Organization',
        'Security',
        'Logs',
        'Branding',
        'Settings',
        'Company settings',
        // The platform console's own page: what the installation lets companies do.
        'Setup',
      ]);
      // The reduced set has the users screens but not the departments.
      await page.getByTestId('sidebar').getByRole('menuitem', { name: 'Organization' }).click();
      await page.getByTestId('sidebar').getByRole('menuitem', { name: 'Users' }).waitFor();
      assert.equal(
        await page.getByTestId('sidebar').getByRole('menuitem', { name: 'Departments' }).count(),
        0,
      );
      for (const path of [
        '/setting/license',
        '/setting/about',
        '/permission',
        '/org/department',
        '/application/select-app',
      ]) {
        await page.goto(`${base}/admin${path}`);
        await page.waitForURL(`${base}/admin/404`);
      }
      await page.goto(`${base}/dev/dashboard`);
      await page.getByTestId('company-id').waitFor();
    },
  );

  devFlow(
    'the sidebar closes by itself below 992 px and the hamburger choice is kept in sidebarStatus',
    async () => {
      assert.ok(s.server);
      const { page, context, ui } = await devSession();
      assert.equal(await ui.sidebarWidth(), 220);
      await page.setViewportSize({ width: 900, height: 800 });
      await ui.waitSidebarWidth(80);
      assert.equal(await ui.sidebarWidth(), 80);
      await ui.screenshot('sidebar-collapsed.en', [900]);
      await page.setViewportSize({ width: 1280, height: 800 });
      await ui.waitSidebarWidth(220);

      await page.getByRole('button', { name: 'Collapse the menu' }).click();
      await ui.waitSidebarWidth(80);
      const cookie = async () =>
        (await context.cookies(s.server?.baseUrl)).find((c) => c.name === 'sidebarStatus');
      assert.equal((await cookie())?.value, '0');
      await page.reload();
      await page.getByTestId('company-id').waitFor();
      assert.equal(await ui.sidebarWidth(), 80, 'the choice survives a reload');
      await page.getByRole('button', { name: 'Expand the menu' }).click();
      assert.equal((await cookie())?.value, '1');

      // Full screen where the browser cannot: a warning instead.
      await page.evaluate(() => Object.defineProperty(document, 'fullscreenEnabled', { value: false }));
      await page.getByRole('button', { name: 'Full screen' }).click();
      await ui.expectMessage('Your browser does not support full screen');

      // Narrow device mode: the menu is a drawer behind the hamburger.
      await page.setViewportSize({ width: 600, height: 800 });
      await page.getByTestId('sidebar').waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Expand the menu' }).click();
      await page.getByRole('dialog').getByRole('menuitem', { name: 'Dashboard' }).waitFor();
      await page.keyboard.press('Escape');
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByTestId('sidebar').waitFor();
    },
  );

  devFlow(
    'switching companies: names cut to 10 characters, later calls and the screen use the new company',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      const created: string[] = [];
      for (const name of [LONG_NAME, SECOND_NAME]) {
        const answer = await ui.api<{ companyId: string }>('/api/v1/manage/company/create', { name });
        assert.equal(answer.code, 200, answer.msg);
        created.push(answer.data.companyId);
      }
      await page.reload();
      await page.getByTestId('company-id').waitFor();
      await page.getByRole('button', { name: 'Current company' }).click();
      const menu = page.getByRole('menu').last();
      await menu.getByRole('menuitem', { name: LONG_NAME_SHORT }).waitFor();
      await ui.screenshot('company-switcher.en', [1280]);
      await menu.getByRole('menuitem', { name: LONG_NAME_SHORT }).click();
      await ui.expectDashboardCompany(LONG_NAME);
      assert.equal(await ui.currentCompany(), LONG_NAME_SHORT);
      assert.equal(await page.getByTestId('company-id').innerText(), created[0]);
      const stored = await page.evaluate(() => [
        localStorage.getItem('asp_admin_company_id'),
        localStorage.getItem('asp_admin_company_name'),
      ]);
      assert.deepEqual(stored, [created[0], LONG_NAME]);
      // The choice holds across a reload.
      await page.reload();
      await ui.expectDashboardCompany(LONG_NAME);
      assert.equal(await ui.currentCompany(), LONG_NAME_SHORT);
    },
  );

  settingsFlows(s);

  devFlow(
    'Profile opens the user centre for the current company in a new tab; Log Out ends the session',
    async () => {
      assert.ok(s.server);
      const { page, context, ui } = await devSession();
      const companyId = await ui.companyId();
      await page.getByRole('button', { name: 'Account menu' }).click();
      await motionSettled(page);
      const [popup] = await Promise.all([
        context.waitForEvent('page'),
        page.getByRole('menuitem', { name: 'Profile' }).click(),
      ]);
      await popup.waitForURL(/\/portal\/account/);
      const url = new URL(popup.url());
      assert.equal(url.pathname, '/portal/account');
      assert.equal(url.searchParams.get('company_id'), companyId);
      await popup.close();

      await page.keyboard.press('Escape');
      await ui.logOut();
      await ui.expectSignInPage();
      await context.close();
      s.endDevSession();
    },
  );
}
