/**
 * Browser tests of the console against a real server and Chromium (npm run test:e2e).
 * Starts the server on a free port with a fresh database and a vendor licence key made for the
 * run, runs the flows in order (later flows use the companies earlier ones create) and always
 * stops the server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { openPglite } from '../packages/server/src/db/database.ts';
import { launchChromium } from './support/browser.ts';
import { artifactsDir, consolePage, signInToPortal } from './support/console.page.ts';
import { licenseVendor } from './support/license.vendor.ts';
import { passkeyFlow } from './support/passkey.flow.ts';
import { startRelyingParty } from './support/relying-party.ts';
import { type RunningServer, startServer } from './support/server.process.ts';
import { totp } from './support/totp.ts';

const ADMIN_PASSWORD = 'E2e-admin-pass-1';
const COMPANY_NAME = 'Acme Identity Ltd';
/** Spec §9: names are cut to 10 characters plus an ellipsis in the top bar. */
const COMPANY_NAME_SHORT = 'Acme Ident…';
const LONG_NAME = 'Globex Corporation International';
const LONG_NAME_SHORT = 'Globex Cor…';
const SECOND_NAME = 'Initech';
const NEWCOMER = 'nora.newcomer';
const NEWCOMER_FIRST_PASSWORD = 'First-pass-2026';
const NEWCOMER_NEW_PASSWORD = 'Chosen-pass-2027';
const MFA_USER = 'otto.twostep';
const MFA_USER_PASSWORD = 'Otto-pass-2026';
const EXPIRED_USER = 'erin.expired';
const PASSKEY_USER = 'paula.passkey';
const PASSKEY_USER_PASSWORD = 'Paula-pass-2026';
const EXPIRED_USER_PASSWORD = 'Erin-pass-2026';
const APP_USER = 'wendy.wiki';
const APP_USER_PASSWORD = 'Wendy-pass-2026';
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

describe('Tessera console in Chromium', { timeout: 480_000 }, () => {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let vendorDir = '';
  let vendor: ReturnType<typeof licenseVendor> | undefined;
  const pageErrors: string[] = [];

  before(async () => {
    vendorDir = await mkdtemp(join(tmpdir(), 'tessera-e2e-vendor-'));
    vendor = licenseVendor(vendorDir);
    const publicKey = await vendor.keygen();
    [server, browser] = await Promise.all([
      startServer(ADMIN_PASSWORD, { TESSERA_LICENSE_PUBLIC_KEY: publicKey }),
      launchChromium(),
    ]);
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await server?.stop();
    await rm(vendorDir, { recursive: true, force: true });
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

  test('serves the console compressed and keeps the build manifest private', async () => {
    assert.ok(server);
    const index = await fetch(`${server.baseUrl}/dev/`);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await index.text())?.[1];
    assert.ok(script, 'the console page loads its script from /console/assets/');
    const asset = await fetch(`${server.baseUrl}${script}`, { headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-encoding') ?? '', /br|gzip/);
    const manifest = await fetch(`${server.baseUrl}/console/.vite/manifest.json`);
    assert.equal(manifest.status, 404);
  });

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

  /** One signed-in developer-console page shared by the shell flows below, in order. */
  let dev: { context: BrowserContext; page: Page; ui: ReturnType<typeof consolePage> } | undefined;
  const devSession = async () => {
    assert.ok(server);
    if (!dev) {
      const { context, page } = await openPage();
      const ui = consolePage(page, server.baseUrl);
      await ui.signIn('/dev/dashboard', ADMIN_PASSWORD);
      dev = { context, page, ui };
    }
    return dev;
  };

  /** A test on the shared page that leaves a screenshot of the page behind when it fails. */
  const devFlow = (name: string, body: () => Promise<void>) =>
    test(name, async () => {
      try {
        await body();
      } catch (error) {
        const slug = name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40);
        await dev?.page
          .screenshot({ path: `${artifactsDir}failure-${slug}.png`, fullPage: true })
          .catch(() => {});
        throw error;
      }
    });

  devFlow(
    'menus come from the route table: the full set under /dev, the reduced set under /admin',
    async () => {
      assert.ok(server);
      const { page, ui } = await devSession();
      const base = server.baseUrl;
      assert.deepEqual(await ui.menuLabels(), [
        'Dashboard',
        'Applications',
        'Organization',
        'Security',
        'Settings',
      ]);
      await page.getByTestId('sidebar').getByRole('menuitem', { name: 'Settings' }).click();
      await page.getByTestId('sidebar').getByRole('menuitem', { name: 'About' }).waitFor();
      assert.deepEqual(await ui.menuLabels(), [
        'Dashboard',
        'Applications',
        'Organization',
        'Security',
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

      for (const path of ['/no/such/page', '/permission/index', '/setting']) {
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
        'Organization',
        'Security',
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
      assert.ok(server);
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
        (await context.cookies(server?.baseUrl)).find((c) => c.name === 'sidebarStatus');
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
      assert.ok(server);
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
      await page.getByRole('cell', { name: LONG_NAME, exact: true }).waitFor();
      assert.equal(await ui.currentCompany(), LONG_NAME_SHORT);
      assert.equal(await page.getByTestId('company-id').innerText(), created[0]);
      const stored = await page.evaluate(() => [
        localStorage.getItem('asp_admin_company_id'),
        localStorage.getItem('asp_admin_company_name'),
      ]);
      assert.deepEqual(stored, [created[0], LONG_NAME]);
      // The choice holds across a reload.
      await page.reload();
      await page.getByRole('cell', { name: LONG_NAME, exact: true }).waitFor();
      assert.equal(await ui.currentCompany(), LONG_NAME_SHORT);
    },
  );

  devFlow('company settings: rename, key, logo, administrators', async () => {
    assert.ok(server);
    const { page, ui } = await devSession();
    await page.getByRole('button', { name: 'Current company' }).click();
    await page.getByRole('menu').last().getByRole('menuitem', { name: SECOND_NAME }).click();
    await page.waitForFunction(
      (name) => document.querySelector('[data-testid=current-company]')?.textContent === name,
      SECOND_NAME,
    );
    await page.goto(`${server.baseUrl}/dev/setting/basic-set`);
    const nameInput = page.getByLabel('Company name');
    await nameInput.waitFor();
    assert.equal(await nameInput.inputValue(), SECOND_NAME);
    await ui.expectTitle('Company settings - Tessera');

    await nameInput.fill('   ');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Please enter the company name').waitFor();
    await nameInput.fill('  Initech Renamed Worldwide  ');
    await page.getByRole('button', { name: 'Save' }).click();
    await ui.expectMessage('Company settings saved');
    assert.equal(await ui.currentCompany(), 'Initech Re…');
    assert.equal(await nameInput.inputValue(), 'Initech Renamed Worldwide');

    // The key: masked, revealed, regenerated after a confirmation.
    const key = page.getByTestId('company-key');
    assert.match(await key.innerText(), /^•+$/);
    await page.getByRole('button', { name: 'Show the key' }).click();
    const before = (await key.innerText()).trim();
    assert.match(before, /^[A-Za-z0-9_-]{20,}$/);
    await page.getByRole('button', { name: 'Regenerate' }).click();
    const confirm = page.getByRole('dialog').filter({ hasText: 'Regenerate the company key?' });
    await confirm.getByRole('button', { name: 'Regenerate' }).click();
    // The new key itself is the outcome to wait for (a toast can come and go under load).
    await page.waitForFunction((old) => {
      const text = document.querySelector('[data-testid=company-key]')?.textContent?.trim();
      return text && text !== old && !text.startsWith('•');
    }, before);

    // Logo: checked in the browser, then by the server (whose message is shown).
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
    await dialog.getByLabel('Password', { exact: true }).fill('Helper-pass-1');
    await dialog.getByLabel('Confirm password').fill('Helper-pass-2');
    await dialog.getByRole('button', { name: 'Add administrator' }).click();
    await dialog.getByText('Entered Passwords Differ').waitFor();
    await dialog.getByLabel('Confirm password').fill('Helper-pass-1');
    await dialog.getByRole('button', { name: 'Add administrator' }).click();
    await ui.expectMessage('e2e.helper was added');
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
    assert.ok(server && vendor);
    const { page, ui } = await devSession();
    await page.goto(`${server.baseUrl}/dev/setting/license`);
    const code = (await page.getByTestId('application-code').locator('code').innerText()).trim();
    assert.ok(code.length > 8, 'the application code is shown');
    await page.getByText('No licence imported yet').waitFor();
    const table = page.getByTestId('license-table');
    await table.getByRole('cell', { name: 'Not Active' }).first().waitFor();

    const file = await vendor.issue(code, 'valid.lic');
    await page.getByTestId('license-file').setInputFiles(file);
    await ui.expectMessage('Licence imported');
    await page.getByText('E2E Co').waitFor();
    const users = table.getByRole('row').filter({ hasText: 'Users' });
    await users.getByRole('cell', { name: 'Normal' }).waitFor();
    assert.match(await users.innerText(), /500/);
    assert.match(await users.innerText(), /2099-12-31/);
    await ui.expectNoRawPhraseKeys();

    const tampered = await vendor.tamper(file, 'tampered.lic');
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
    assert.ok(server);
    const { page, ui } = await devSession();
    await page.goto(`${server.baseUrl}/dev/setting/about`);
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
      assert.ok(server);
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
      dev = undefined;
    },
  );

  devFlow(
    'a new user with a forced password change signs in through the portal and must choose a new one',
    async () => {
      assert.ok(server);
      const { page, ui } = await devSession();
      await page.goto(`${server.baseUrl}/dev/org/user`);
      await page.getByRole('button', { name: 'Create user' }).first().click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Username', { exact: true }).fill(NEWCOMER);
      await dialog.getByLabel('Name', { exact: true }).fill('Nora Newcomer');
      await dialog.getByLabel('Email', { exact: true }).fill(`${NEWCOMER}@example.com`);
      await dialog.getByLabel('Password', { exact: true }).fill(NEWCOMER_FIRST_PASSWORD);
      await dialog.getByLabel('Confirm password').fill(NEWCOMER_FIRST_PASSWORD);
      const forced = dialog.getByLabel('Must change the password at the next sign-in');
      if (!(await forced.isChecked())) await forced.check();
      await dialog.getByRole('button', { name: 'Create user' }).click();
      await ui.expectMessage(`${NEWCOMER} was created`);
      await page.getByTestId('users').getByText(NEWCOMER, { exact: true }).waitFor();
      await ui.expectNoRawPhraseKeys();

      // The new user, in a browser of their own, opens their user centre.
      const { context, page: portal } = await openPage();
      try {
        await signInToPortal(portal, server.baseUrl, NEWCOMER, NEWCOMER_FIRST_PASSWORD);
        await portal.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        // Going around the step does not reach the user centre.
        await signInToPortal(portal, server.baseUrl, NEWCOMER, NEWCOMER_FIRST_PASSWORD);
        await portal.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        await portal.getByLabel('New password', { exact: true }).fill('Short-1');
        await portal.getByLabel('Confirm the new password').fill('Short-2');
        await portal.locator('button.primary[type=submit]').click();
        await portal.getByRole('alert').waitFor();
        await portal.getByLabel('New password', { exact: true }).fill(NEWCOMER_NEW_PASSWORD);
        await portal.getByLabel('Confirm the new password').fill(NEWCOMER_NEW_PASSWORD);
        await portal.locator('button.primary[type=submit]').click();
        await portal.waitForURL(`${server.baseUrl}/portal/account`);
        await portal.getByRole('heading', { name: 'My account' }).waitFor();
        await portal.getByText(`${NEWCOMER}@example.com`).waitFor();
      } finally {
        await context.close();
      }
      // The console shows the change is done.
      await page.reload();
      await page.getByTestId('users').getByText(NEWCOMER, { exact: true }).click();
      await page.waitForURL(/\/dev\/org\/user-detail\?/);
      await page.getByText('Nora Newcomer').first().waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('user-detail.en');
    },
  );

  devFlow('an .xlsx of 200 users is imported and listed', async () => {
    assert.ok(server);
    const { page, ui } = await devSession();
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Users');
    sheet.addRow(['Username', 'Name', 'Nickname', 'Email', 'Phone', 'Departments', 'Password']);
    for (let i = 1; i <= 200; i++) {
      const n = String(i).padStart(3, '0');
      sheet.addRow([
        `imported.${n}`,
        `Imported Person ${n}`,
        '',
        `imported.${n}@example.com`,
        `+86139000${n}00`,
        '',
        '',
      ]);
    }
    const file = join(vendorDir, 'people.xlsx');
    await writeFile(file, Buffer.from(await workbook.xlsx.writeBuffer()));

    await page.goto(`${server.baseUrl}/dev/org/user`);
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[type=file]').setInputFiles(file);
    await dialog.getByText('Users imported from people.xlsx: 200').waitFor({ timeout: 60_000 });
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await page.getByPlaceholder('Name, username, email or phone').fill('imported.');
    await page.getByPlaceholder('Name, username, email or phone').press('Enter');
    await page.getByText('Users: 200').waitFor();
    await page.getByPlaceholder('Name, username, email or phone').fill('imported.200');
    await page.getByPlaceholder('Name, username, email or phone').press('Enter');
    await page.getByTestId('users').getByText('Imported Person 200', { exact: true }).waitFor();
    await page.getByText('Users: 1', { exact: true }).waitFor();
    await ui.screenshot('users-imported.en', [1280]);
  });

  devFlow('a department with sub departments cannot be deleted', async () => {
    assert.ok(server);
    const { page, ui } = await devSession();
    const companyId = await ui.companyId();
    const tree = await ui.api<{ tree: { departmentId: string } }>(
      '/api/v1/manage/department/tree',
      {},
      companyId,
    );
    const parent = await ui.api<{ departmentId: string }>(
      '/api/v1/manage/department/create',
      { name: 'Field Operations', parentId: tree.data.tree.departmentId },
      companyId,
    );
    assert.equal(parent.code, 200, parent.msg);
    const child = await ui.api(
      '/api/v1/manage/department/create',
      { name: 'Field Support', parentId: parent.data.departmentId },
      companyId,
    );
    assert.equal(child.code, 200, child.msg);

    await page.goto(`${server.baseUrl}/dev/org/department`);
    await page.getByRole('tree').getByText('Field Operations', { exact: true }).click();
    await page.getByRole('button', { name: /(^|\s)Delete$/ }).click();
    await page.locator('.ant-modal-confirm-btns .ant-btn-dangerous').click();
    await ui.expectMessage(
      'Please delete all sub departments before proceeding with the delete department operation!',
    );
    await page.getByRole('tree').getByText('Field Operations', { exact: true }).waitFor();
    const after = await ui.api<{ tree: unknown }>('/api/v1/manage/department/tree', {}, companyId);
    assert.match(JSON.stringify(after.data.tree), /Field Support/);
  });

  devFlow(
    'with MFA optional, a user binds an authenticator in the user centre and is asked for its code',
    async () => {
      assert.ok(server);
      const { page, ui } = await devSession();
      await page.goto(`${server.baseUrl}/dev/safety-management/mfa`);
      await page.getByTestId('mfa-safety').getByText('Optional', { exact: true }).click();
      await page.getByRole('button', { name: 'Save' }).click();
      await ui.expectMessage('Safety settings saved');
      await ui.expectNoRawPhraseKeys();

      const userId = await ui.createUser(MFA_USER, MFA_USER_PASSWORD, { name: 'Otto Twostep' });

      const { context, page: portal } = await openPage();
      const baseUrl = server.baseUrl;
      const signInWithPassword = () => signInToPortal(portal, baseUrl, MFA_USER, MFA_USER_PASSWORD);
      try {
        await signInWithPassword();
        await portal.waitForURL(`${server.baseUrl}/portal/account`);
        const section = portal.locator('#mfa');
        await section.getByText('No authenticator is bound.').waitFor();
        await section.getByLabel('Kind').selectOption('otp');
        await section.getByRole('button', { name: 'Bind' }).click();
        const secret = await portal.locator('code[data-secret]').getAttribute('data-secret');
        assert.ok(secret, 'the bind page shows the key for typing');
        await portal.getByRole('img', { name: 'QR code of the authenticator key' }).waitFor();
        await portal.getByLabel('Verification code').fill(totp(secret, Date.now(), 5));
        await portal.getByRole('button', { name: 'Confirm' }).click();
        await portal.getByRole('alert').waitFor();
        await portal.getByLabel('Verification code').fill(totp(secret));
        await portal.getByRole('button', { name: 'Confirm' }).click();
        await portal.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
        await portal.getByRole('link', { name: 'I have saved them, continue' }).click();
        await portal.locator('#mfa').getByText('Recovery codes left: 10').waitFor();

        // A new browser: the password is not enough any more.
        await context.clearCookies();
        await signInWithPassword();
        await portal.getByRole('heading', { name: 'Two-step verification' }).waitFor();
        // The code of the binding was used once already: a new period's code is needed.
        await portal.getByLabel('Verification code').fill(totp(secret, Date.now() + 30_000));
        await portal.getByRole('button', { name: 'Verify' }).click();
        await portal.waitForURL(`${server.baseUrl}/portal/account`);
        await portal.getByRole('heading', { name: 'My account' }).waitFor();
      } finally {
        await context.close();
      }
      // The administrator sees the factor on the user's page.
      await page.goto(`${server.baseUrl}/dev/org/user-detail?id=${userId}`);
      await page.getByText('Recovery codes left: 10 of 10').waitFor();
      await page.getByText('Bound', { exact: true }).first().waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('user-detail-mfa.en', [1280]);
    },
  );

  devFlow(
    'passkeys: allowed in the console, added in the user centre, then enough alone to sign in',
    async () => {
      assert.ok(server);
      const { page, ui } = await devSession();
      await page.goto(`${server.baseUrl}/dev/safety-management/general`);
      await page.getByTestId('general-safety').getByText('Passkey (FIDO2, without a password)').click();
      await page.getByRole('button', { name: 'Save' }).click();
      await ui.expectMessage('Safety settings saved');
      await ui.createUser(PASSKEY_USER, PASSKEY_USER_PASSWORD);
      const { context, page: portal } = await openPage();
      try {
        await passkeyFlow(portal, context, server.baseUrl, {
          username: PASSKEY_USER,
          password: PASSKEY_USER_PASSWORD,
        });
      } finally {
        await context.close();
      }
    },
  );

  devFlow(
    'an application added in the console signs its user in from My apps, until the user is taken off it',
    async () => {
      assert.ok(server);
      const { page, ui } = await devSession();
      const base = server.baseUrl;
      await ui.createUser(APP_USER, APP_USER_PASSWORD);
      const rp = await startRelyingParty(`${base}/oidc`);
      try {
        // The administrator adds the app; its secret is shown once.
        await page.goto(`${base}/dev/application/index`);
        await page.getByRole('button', { name: 'Add application' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel('Name', { exact: true }).fill('Team wiki');
        await dialog.getByRole('button', { name: 'Add', exact: true }).click();
        const secret = (await page.getByTestId('secret-once').innerText()).trim();
        assert.ok(secret.length >= 40, 'the client secret is shown');
        await page.getByRole('button', { name: 'I have saved it' }).click();
        await page.waitForURL(/\/dev\/application\/detail\?/);

        await page.getByRole('tab', { name: 'Protocol', exact: true }).click();
        const clientId = (await page.getByTestId('client-id').innerText()).trim();
        const form = page.getByTestId('protocol-form');
        await form.getByRole('button', { name: 'Add address' }).first().click();
        await form.getByLabel('Login callback URLs 1').fill(rp.redirectUri);
        await form.getByLabel('Initiate login URI').fill(rp.loginUrl);
        await form.getByRole('button', { name: 'Save' }).click();
        await ui.expectMessage('Saved');
        await page.getByRole('button', { name: 'Enable', exact: true }).click();
        await page.getByText('Opened', { exact: true }).first().waitFor();

        // Only assigned users, and the user is assigned.
        await page.getByRole('tab', { name: 'Access', exact: true }).click();
        await page.getByRole('radio', { name: /Only assigned users/ }).click();
        await ui.expectMessage('Saved');
        await page.getByRole('button', { name: 'Assign users' }).click();
        const assign = page.getByRole('dialog');
        await assign.getByRole('combobox').fill(APP_USER);
        await page.locator('.ant-select-item-option', { hasText: APP_USER }).first().click();
        await assign.getByRole('button', { name: 'Assign', exact: true }).click();
        await page.getByTestId('assignments').getByText(APP_USER).first().waitFor();
        await ui.expectNoRawPhraseKeys();
        rp.configure(clientId, secret);

        // The user opens it from My apps: the app starts the sign-in, the session is reused.
        const { context, page: portal } = await openPage();
        try {
          await signInToPortal(portal, base, APP_USER, APP_USER_PASSWORD);
          await portal.waitForURL(`${base}/portal/account`);
          await portal.goto(`${base}/portal/apps`);
          const shots = consolePage(portal, base);
          await shots.screenshot('my-apps.en');
          await portal.goto(`${base}/portal/apps?lang=zh`);
          await portal.getByRole('heading', { name: '我的应用' }).waitFor();
          await shots.screenshot('my-apps.zh');
          await portal.goto(`${base}/portal/apps?lang=en`);
          await portal.getByText('Open', { exact: true }).first().click();
          await portal.locator('#greeting').waitFor();
          assert.equal(await portal.locator('#greeting').innerText(), `Signed in as ${APP_USER}`);

          // Taken off the app in the console...
          const row = page.getByTestId('assignments').locator('tr', { hasText: APP_USER });
          await row.getByRole('button', { name: 'Remove' }).click();
          await page.locator('.ant-modal-confirm-btns .ant-btn-dangerous').click();
          await ui.expectMessage(`${APP_USER} is taken off the application`);

          // ...the app is gone from My apps, and signing in to it is refused.
          await portal.goto(`${base}/portal/apps`);
          await portal.getByText('No applications are available to you yet.').waitFor();
          await portal.goto(rp.loginUrl);
          await portal.getByRole('heading', { name: 'No access' }).waitFor();
          await portal.getByText('You have not been given access to this application').waitFor();
          await shots.screenshot('no-access.en', [1280]);
          assert.ok(!portal.url().startsWith(rp.baseUrl), 'the relying party never got a code');
        } finally {
          await context.close();
        }
      } finally {
        await rp.stop();
      }
    },
  );

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
        await page.getByTestId('dashboard-loading').waitFor({ state: 'detached' });
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`dashboard.${lang}`, [1280, 900, 390]);

        const zh = lang === 'zh';
        await page.goto(`${server.baseUrl}/dev/setting/basic-set`);
        await page.getByTestId('administrators').getByRole('cell', { name: 'admin', exact: true }).waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`settings.${lang}`);
        await page
          .getByRole('button', { name: zh ? '添加管理员' : 'Add administrator' })
          .first()
          .click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel(zh ? '密码' : 'Password', { exact: true }).fill('Abcdef-1');
        await dialog.getByLabel(zh ? '确认密码' : 'Confirm password').fill('Abcdef-2');
        await dialog.getByRole('button', { name: zh ? '添加管理员' : 'Add administrator' }).click();
        await dialog.getByText(zh ? '两次输入的密码不一致' : 'Entered Passwords Differ').waitFor();
        await dialog.getByText(zh ? '请输入用户名' : 'Please enter the username').waitFor();
        await ui.screenshot(`settings-add-admin.${lang}`, [1280]);
        await dialog.getByRole('button', { name: zh ? '取 消' : 'Cancel' }).click();

        await page.goto(`${server.baseUrl}/dev/setting/license`);
        await page.getByTestId('license-summary').getByText('E2E Co').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`license.${lang}`);

        await page.goto(`${server.baseUrl}/dev/setting/about`);
        await page.getByTestId('third-party-table').getByRole('row').nth(10).waitFor();
        await page.getByTestId('about-system').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`about.${lang}`);

        await page.goto(`${server.baseUrl}/dev/org/user`);
        await page.getByTestId('users').getByRole('row').nth(1).waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`users.${lang}`);
        await page.goto(`${server.baseUrl}/dev/org/department`);
        await page.getByRole('tree').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`departments.${lang}`);

        await page.goto(`${server.baseUrl}/dev/safety-management/general`);
        await page.getByTestId('general-safety').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`safety-general.${lang}`);
        await page.goto(`${server.baseUrl}/dev/safety-management/mfa`);
        await page.getByTestId('mfa-safety').waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`safety-mfa.${lang}`);

        await page.goto(`${server.baseUrl}/dev/no/such/page`);
        await page.waitForURL(`${server.baseUrl}/dev/404`);
        await ui.screenshot(`not-found.${lang}`, [1280]);

        await page.goto(`${server.baseUrl}/dev/dashboard`);
        await page.getByTestId('company-id').waitFor();

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
      await ui.expectTitle('首页 - Tessera');
      await page.reload();
      await page.getByText('欢迎，admin').waitFor();
      assert.equal(
        (await page.getByRole('button', { name: '语言' }).innerText()).trim(),
        '中文',
        'the choice survives a reload',
      );
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

  test("a password older than the company's change cycle must be replaced at sign-in", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tessera-e2e-expiry-'));
    let second = await startServer(ADMIN_PASSWORD, {}, { dataDir });
    try {
      const { context, page } = await openPage();
      const ui = consolePage(page, second.baseUrl);
      try {
        await ui.signIn('/dev/', ADMIN_PASSWORD, /create-company/);
        await page.getByLabel('Company name').fill('Expiry Test Co');
        await page.getByRole('button', { name: 'Create company' }).click();
        await page.waitForURL(`${second.baseUrl}/dev/dashboard`);
        // The rule in the console: passwords must be changed every 30 days.
        await page.goto(`${second.baseUrl}/dev/safety-management/general`);
        await page.getByLabel('Forced change cycle').fill('30');
        await page.getByRole('button', { name: 'Save' }).click();
        await ui.expectMessage('Safety settings saved');
        await ui.createUser(EXPIRED_USER, EXPIRED_USER_PASSWORD);
      } finally {
        await context.close();
      }
      // Forty days pass: the password was set longer ago than the cycle.
      await second.stop();
      const database = await openPglite({ dataDir });
      await sql`update accounts set password_changed_at = now() - interval '40 days'
        where username = ${EXPIRED_USER}`.execute(database.db);
      await database.close();
      second = await startServer(ADMIN_PASSWORD, {}, { dataDir });

      const { context: portalContext, page: portal } = await openPage();
      try {
        await signInToPortal(portal, second.baseUrl, EXPIRED_USER, EXPIRED_USER_PASSWORD);
        await portal.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        await portal.getByText('has expired').waitFor();
        await portal.getByLabel('New password', { exact: true }).fill(EXPIRED_USER_PASSWORD);
        await portal.getByLabel('Confirm the new password').fill(EXPIRED_USER_PASSWORD);
        await portal.locator('button.primary[type=submit]').click();
        await portal.getByRole('alert').waitFor();
        await portal.getByLabel('New password', { exact: true }).fill('Renewed-pass-2027');
        await portal.getByLabel('Confirm the new password').fill('Renewed-pass-2027');
        await portal.locator('button.primary[type=submit]').click();
        await portal.waitForURL(`${second.baseUrl}/portal/account`);
        await portal.getByRole('heading', { name: 'My account' }).waitFor();
      } finally {
        await portalContext.close();
      }
    } finally {
      await second.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('no uncaught errors or console errors in the pages', () => {
    assert.deepEqual(pageErrors, []);
  });
});
