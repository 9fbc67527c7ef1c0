import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { chooseTab, consolePage, motionSettled } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const CAS_USER = 'cara.cas';
const CAS_USER_PASSWORD = 'Cara-pass-2026';
const CAS_OUTSIDER = 'otis.outside';
const CAS_OUTSIDER_PASSWORD = 'Otis-pass-2026';
const FLOW =
  'a CAS app added in the console signs its user in at Apache httpd (mod_auth_cas), refuses the unassigned, and signing out ends the Apache session';

/**
 * CAS applications (issue 30) with a real CAS client: Apache httpd with mod_auth_cas from
 * scripts/with-apache-cas.sh protects a page. An administrator adds a CAS application in the
 * console, allows the page's address and assigns one person; that person signs in at the page
 * through Tessera's sign-in page and sees their username and attributes; another person is
 * refused; signing out of Tessera ends the Apache session (back-channel logoutRequest).
 */
export function casFlows(s: Suite) {
  const start = process.env.TESSERA_TEST_APACHE_CAS_START;
  const port = process.env.TESSERA_TEST_APACHE_CAS_PORT;
  const isCi = process.env.CI === 'true' || process.env.CI === '1';
  if (!start && !isCi) {
    test(FLOW, {
      skip: 'Apache httpd with mod_auth_cas: run under bash scripts/with-apache-cas.sh',
    }, () => {});
    return;
  }
  const { openPage, devSession, devFlow } = s;
  devFlow(FLOW, async () => {
    assert.ok(s.server);
    assert.ok(start && port, 'scripts/with-apache-cas.sh did not run');
    const { page, ui } = await devSession();
    const base = s.server.baseUrl;
    const protectedPage = `http://127.0.0.1:${port}/protected/index.shtml`;
    s.secrets.push(CAS_USER_PASSWORD, CAS_OUTSIDER_PASSWORD);
    await ui.createUser(CAS_USER, CAS_USER_PASSWORD, { name: 'Cara Cas', email: 'cara@cas.example' });
    await ui.createUser(CAS_OUTSIDER, CAS_OUTSIDER_PASSWORD);

    // The administrator adds the application with the CAS protocol and allows the page.
    await page.goto(`${base}/dev/application/index`);
    await page.getByRole('button', { name: 'Add application' }).click();
    const dialog = page.getByRole('dialog');
    await motionSettled(page);
    await dialog.getByLabel('Name', { exact: true }).fill('Campus portal');
    // check() clicks until the radio is checked and fails if it does not become so.
    await dialog.getByRole('radio', { name: /^CAS single sign-on/ }).check();
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await page.waitForURL(/\/dev\/application\/detail\?/);
    const appId = new URL(page.url()).searchParams.get('appId') as string;
    await chooseTab(page, 'CAS');
    const form = page.getByTestId('cas-form');
    const serverUrl = (await page.getByTestId('cas-server-url').innerText()).trim();
    assert.equal(serverUrl, `${base}/cas/${await ui.companyId()}`);
    await form.getByLabel('Service URL pattern 1').fill(`http://127.0.0.1:${port}/protected`);
    await form.getByRole('button', { name: 'Save' }).click();
    await ui.expectMessage('Saved');
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByText('Opened', { exact: true }).first().waitFor();
    await ui.expectNoRawPhraseKeys();
    // The tab itself, without the toasts of the save and the enabling over it.
    await page.locator('.ant-message-notice').first().waitFor({ state: 'detached' });
    await ui.screenshot('app-cas.en');

    // Only assigned users, and the person is assigned.
    await chooseTab(page, 'Access');
    await ui.assignOnlyUser(CAS_USER);

    // Apache protects its page with the company's CAS server.
    await promisify(execFile)(start, [serverUrl]);

    const { context, page: person } = await openPage();
    try {
      // Apache sends the person to Tessera's sign-in page, which names the application.
      await person.goto(protectedPage);
      const shots = consolePage(person, base);
      await shots.expectSignInPage();
      await person.getByText('Campus portal').first().waitFor();
      await shots.submitSignIn(CAS_USER, CAS_USER_PASSWORD);
      await person.waitForURL(protectedPage);
      assert.equal(await person.locator('#user').innerText(), CAS_USER);
      assert.equal(await person.locator('#name').innerText(), 'Cara Cas');
      assert.equal(await person.locator('#email').innerText(), 'cara@cas.example');

      // Signing out of Tessera (the application's CAS logout): Apache is told on the back channel,
      // so the page, which the browser is sent back to, asks for a sign-in again.
      await person.goto(`${serverUrl}/logout?${new URLSearchParams({ service: protectedPage })}`);
      await person.locator('button[name="logout"][value="yes"]').click();
      await shots.expectSignInPage();
      await person.goto(protectedPage);
      await shots.expectSignInPage();
    } finally {
      await context.close();
    }

    // The unassigned person signs in and is told they have no access; Apache never gets a ticket.
    const { context: outside, page: outsider } = await openPage();
    try {
      await outsider.goto(protectedPage);
      const shots = consolePage(outsider, base);
      await shots.expectSignInPage();
      await shots.submitSignIn(CAS_OUTSIDER, CAS_OUTSIDER_PASSWORD);
      await outsider.getByRole('heading', { name: 'No access' }).waitFor();
      await outsider.getByText('You have not been given access to this application').waitFor();
      assert.ok(outsider.url().startsWith(base), `the person stays at Tessera, not at ${outsider.url()}`);
      await shots.screenshot('cas-refused.en', [1280]);
    } finally {
      await outside.close();
    }

    await casTabInChinese(s, appId);
  });
}

/**
 * The CAS tab in Chinese, in the other route set (the administration console, /admin: CAS is a
 * protocol choice of an application in both), photographed at both widths.
 */
async function casTabInChinese(s: Suite, appId: string) {
  assert.ok(s.server);
  const { context, page } = await s.openPage({ lang: 'zh' });
  try {
    const zh = consolePage(page, s.server.baseUrl);
    await zh.signIn(`/admin/application/detail?appId=${appId}&tab=cas`, s.adminPassword);
    await page.getByText('CAS 服务', { exact: true }).waitFor();
    await page.getByTestId('cas-server-url').waitFor();
    await zh.expectNoRawPhraseKeys();
    await zh.screenshot('app-cas.zh');
  } finally {
    await context.close();
  }
}
