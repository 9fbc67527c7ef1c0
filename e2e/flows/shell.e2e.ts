import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consolePage } from '../support/console.page.ts';
import {
  COMPANY_NAME,
  COMPANY_NAME_SHORT,
  LONG_NAME,
  LONG_NAME_SHORT,
  PNG,
  SECOND_NAME,
  type Suite,
} from '../support/suite.ts';

/** The console shell: serving, signing in to both variants, menus, sidebar, companies, settings, licence, about. */
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

  devFlow('company settings: rename, key, logo, administrators', async () => {
    assert.ok(s.server);
    const { page, ui } = await devSession();
    await page.getByRole('button', { name: 'Current company' }).click();
    await page.getByRole('menu').last().getByRole('menuitem', { name: SECOND_NAME }).click();
    await page.waitForFunction(
      (name) => document.querySelector('[data-testid=current-company]')?.textContent === name,
      SECOND_NAME,
    );
    await page.goto(`${s.server.baseUrl}/dev/setting/basic-set`);
    const nameInput = page.getByLabel('Company name');
    await nameInput.waitFor();
    assert.equal(await nameInput.inputValue(), SECOND_NAME);
    await ui.expectTitle('Company settings - Tessera');

    const save = page.getByTestId('company-info').getByRole('button', { name: 'Save' });
    await nameInput.fill('   ');
    await save.click();
    await page.getByText('Please enter the company name').waitFor();
    await nameInput.fill('  Initech Renamed Worldwide  ');
    await save.click();
    await ui.expectMessage('Company settings saved');
    assert.equal(await ui.currentCompany(), 'Initech Re…');
    assert.equal(await nameInput.inputValue(), 'Initech Renamed Worldwide');

    // The key: masked, revealed, regenerated after a confirmation.
    const key = page.getByTestId('company-key');
    assert.match(await key.innerText(), /^•+$/);
    await page.getByRole('button', { name: 'Show the key' }).click();
    const before = (await key.innerText()).trim();
    assert.match(before, /^[A-Za-z0-9_-]{20,}$/);
    s.secrets.push(before);
    await page.getByRole('button', { name: 'Regenerate' }).click();
    const confirm = page.getByRole('dialog').filter({ hasText: 'Regenerate the company key?' });
    await confirm.getByRole('button', { name: 'Regenerate' }).click();
    // The new key itself is the outcome to wait for (a toast can come and go under load).
    await page.waitForFunction((old) => {
      const text = document.querySelector('[data-testid=company-key]')?.textContent?.trim();
      return text && text !== old && !text.startsWith('•');
    }, before);
    s.secrets.push((await key.innerText()).trim());

    // Logo: checked in the browser, then by the s.server (whose message is shown).
    const logoInput = page.locator('input[type=file]');
    await logoInput.setInputFiles({
      name: 'big.png',
      mimeType: 'image/png',
      buffer: Buffer.alloc(1024 * 1024 + 1),
    });
    await ui.expectMessage('The image is larger than 1 MiB');
    await logoInput.setInputFiles({
      name: 'fake.png',
      mimeType: 'image/png',
      buffer: Buffer.from('not a picture'),
    });
    await ui.expectMessage(/This file type is not allowed/);
    await logoInput.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    await ui.expectMessage('Logo updated');
    await page.locator('header img').first().waitFor();

    // Administrators: the owner cannot be removed; add one (passwords must match), then remove.
    const table = page.getByTestId('administrators');
    await table.getByRole('cell', { name: 'admin', exact: true }).waitFor();
    assert.equal(await table.getByRole('button', { name: 'Remove' }).count(), 0);
    await page.getByRole('button', { name: 'Add administrator' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add administrator' });
    await dialog.getByLabel('Username').fill('e2e.helper');
    await dialog.getByLabel('Email').fill('helper@example.com');
    s.secrets.push('Helper-pass-1');
    await dialog.getByLabel('Password', { exact: true }).fill('Helper-pass-1');
    await dialog.getByLabel('Confirm password').fill('Helper-pass-2');
    await dialog.getByRole('button', { name: 'Add administrator' }).click();
    await dialog.getByText('Entered Passwords Differ').waitFor();
    await dialog.getByLabel('Confirm password').fill('Helper-pass-1');
    await dialog.getByRole('button', { name: 'Add administrator' }).click();
    await ui.expectMessage('e2e.helper was added');
    // Closed for good: while it closes, the dialog hands the focus back to its button, where an
    // Enter pressed in the search box below would open it again.
    await dialog.waitFor({ state: 'hidden' });
    await table.getByRole('cell', { name: 'e2e.helper', exact: true }).waitFor();
    await ui.expectNoRawPhraseKeys();

    await page.getByRole('searchbox', { name: 'Username, email or phone' }).fill('helper');
    await page.getByRole('searchbox', { name: 'Username, email or phone' }).press('Enter');
    await table.getByRole('cell', { name: 'admin', exact: true }).waitFor({ state: 'detached' });
    await table.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Remove' }).click();
    await ui.expectMessage('e2e.helper was removed');
    await table.getByRole('cell', { name: 'e2e.helper', exact: true }).waitFor({ state: 'detached' });
  });

  devFlow('licence: import a valid file, then a tampered one is refused', async () => {
    assert.ok(s.server && s.vendor);
    const { page, ui } = await devSession();
    await page.goto(`${s.server.baseUrl}/dev/setting/license`);
    const code = (await page.getByTestId('application-code').locator('code').innerText()).trim();
    assert.ok(code.length > 8, 'the application code is shown');
    await page.getByText('No licence imported yet').waitFor();
    const table = page.getByTestId('license-table');
    await table.getByRole('cell', { name: 'Not Active' }).first().waitFor();

    const file = await s.vendor.issue(code, 'valid.lic');
    await page.getByTestId('license-file').setInputFiles(file);
    await ui.expectMessage('Licence imported');
    await page.getByText('E2E Co').waitFor();
    const users = table.getByRole('row').filter({ hasText: 'Users' });
    await users.getByRole('cell', { name: 'Normal' }).waitFor();
    assert.match(await users.innerText(), /500/);
    assert.match(await users.innerText(), /2099-12-31/);
    await ui.expectNoRawPhraseKeys();

    const tampered = await s.vendor.tamper(file, 'tampered.lic');
    await page.getByTestId('license-file').setInputFiles(tampered);
    await ui.expectMessage(/^The licence signature is not valid/);
    await users.getByRole('cell', { name: 'Normal' }).waitFor();

    // The top bar's version popover shows the version and the expiry of the licence.
    await page.reload();
    await page.getByTestId('version').waitFor();
    await page.getByRole('button', { name: 'Version information' }).click();
    const summary = page.getByTestId('licence-summary');
    await summary.getByText(/Expires 2099-12-31/).waitFor();
    await ui.screenshot('version-popover.en', [1280]);
    await page.keyboard.press('Escape');
  });

  devFlow('about: version and build, licence summary, searchable third-party licences', async () => {
    assert.ok(s.server);
    const { page, ui } = await devSession();
    await page.goto(`${s.server.baseUrl}/dev/setting/about`);
    const system = page.getByTestId('about-system');
    await system.getByText('0.1.0').waitFor();
    await page.getByTestId('about-licence').getByText('E2E Co').waitFor();
    const table = page.getByTestId('third-party-table');
    await table.getByRole('row').nth(10).waitFor();
    assert.equal(await table.getByRole('row').count(), 11, 'ten packages a page');
    await page.getByRole('searchbox', { name: 'Package or licence' }).fill('axios');
    await table.getByRole('cell', { name: 'axios', exact: true }).waitFor();
    assert.equal(await table.getByRole('row').count(), 2, 'the header and the one match');
    await page.getByRole('searchbox', { name: 'Package or licence' }).fill('');
    await ui.expectNoRawPhraseKeys();
  });

  devFlow(
    'Profile opens the user centre for the current company in a new tab; Log Out ends the session',
    async () => {
      assert.ok(s.server);
      const { page, context, ui } = await devSession();
      const companyId = await ui.companyId();
      await page.getByRole('button', { name: 'Account menu' }).click();
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
