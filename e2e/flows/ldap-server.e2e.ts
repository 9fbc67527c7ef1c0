import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { chooseTab, consolePage, motionSettled } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const LDAP_USER = 'lena.ldap';
const LDAP_USER_PASSWORD = 'Lena-pass-2026';
const LDAP_OUTSIDER = 'oscar.outside';
const LDAP_OUTSIDER_PASSWORD = 'Oscar-pass-2026';
const FLOW =
  'an LDAP app added in the console lets its user through Apache httpd (mod_authnz_ldap) with HTTP basic authentication, and refuses the unassigned';

/**
 * The LDAP server (issue 32) with a real LDAP client: Apache httpd with mod_authnz_ldap from
 * scripts/with-apache-ldap.sh protects a page with HTTP basic authentication against the
 * company's directory. An administrator adds an LDAP application in the console, makes its
 * service account's secret, turns POSIX accounts on, enables it and assigns one person; Chromium
 * opens the page with that person's user name and password and sees it; another person gets 401.
 */
export function ldapServerFlows(s: Suite) {
  const start = process.env.TESSERA_TEST_APACHE_LDAP_START;
  const port = process.env.TESSERA_TEST_APACHE_LDAP_PORT;
  const isCi = process.env.CI === 'true' || process.env.CI === '1';
  if (!start && !isCi) {
    test(FLOW, {
      skip: 'Apache httpd with mod_authnz_ldap: run under bash scripts/with-apache-ldap.sh',
    }, () => {});
    return;
  }
  const { devSession, devFlow } = s;
  devFlow(FLOW, async () => {
    assert.ok(s.server && s.browser);
    assert.ok(start && port, 'scripts/with-apache-ldap.sh did not run');
    assert.ok(s.server.ldapPort, 'the e2e server runs without TESSERA_LDAP_PORT');
    const { page, ui } = await devSession();
    const base = s.server.baseUrl;
    const protectedPage = `http://127.0.0.1:${port}/protected/index.shtml`;
    s.secrets.push(LDAP_USER_PASSWORD, LDAP_OUTSIDER_PASSWORD);
    await ui.createUser(LDAP_USER, LDAP_USER_PASSWORD, { name: 'Lena Ldap', email: 'lena@ldap.example' });
    await ui.createUser(LDAP_OUTSIDER, LDAP_OUTSIDER_PASSWORD);

    // The administrator adds the application with the LDAP protocol.
    await page.goto(`${base}/dev/application/index`);
    await page.getByRole('button', { name: 'Add application' }).click();
    const dialog = page.getByRole('dialog');
    await motionSettled(page);
    await dialog.getByLabel('Name', { exact: true }).fill('Build server');
    // check() clicks until the radio is checked and fails if it does not become so.
    await dialog.getByRole('radio', { name: /^LDAP directory/ }).check();
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await page.waitForURL(/\/dev\/application\/detail\?/);
    const appId = new URL(page.url()).searchParams.get('appId') as string;
    await chooseTab(page, 'LDAP');
    const bindDn = (await page.getByTestId('ldap-bind-dn').innerText()).trim();
    const baseDn = (await page.getByTestId('ldap-base-dn').innerText()).trim();
    assert.match(bindDn, new RegExp(`^cn=${appId},ou=apps,`));

    // Its service account's secret, shown once.
    await page.getByRole('button', { name: 'Make secret' }).click();
    const secret = (await page.getByTestId('secret-once').innerText()).trim();
    assert.ok(secret.length >= 40, 'the service account secret is shown');
    s.secrets.push(secret);
    await motionSettled(page);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByTestId('secret-once').waitFor({ state: 'detached' });
    await page.getByText(/it is never shown again/).waitFor();

    // POSIX accounts for Linux hosts: on.
    await page.getByRole('switch', { name: 'POSIX accounts (Linux hosts)' }).click();
    await ui.expectMessage('Saved');
    await page.getByRole('switch', { name: 'POSIX accounts (Linux hosts)', checked: true }).waitFor();

    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByText('Opened', { exact: true }).first().waitFor();
    await ui.expectNoRawPhraseKeys();
    await page.locator('.ant-message-notice').first().waitFor({ state: 'detached' });
    // From the top: the clicks above scrolled the page, which a full-page shot shows mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await ui.screenshot('app-ldap.en');

    // Only assigned users, and the person is assigned.
    await chooseTab(page, 'Access');
    await ui.assignOnlyUser(LDAP_USER);

    // Apache protects its page with the company's directory and the application's service account.
    await promisify(execFile)(start, [
      `ldap://127.0.0.1:${s.server.ldapPort}`,
      bindDn,
      secret,
      `ou=people,${baseDn}`,
    ]);

    const person = await s.browser.newContext({
      httpCredentials: { username: LDAP_USER, password: LDAP_USER_PASSWORD },
    });
    try {
      const page = await person.newPage();
      const response = await page.goto(protectedPage);
      assert.equal(response?.status(), 200);
      assert.equal(await page.locator('#user').innerText(), LDAP_USER);
      assert.equal(await page.locator('#email').innerText(), 'lena@ldap.example');
    } finally {
      await person.close();
    }

    // The person not given the application: Apache's search with the service account does not
    // find them, so the page answers 401.
    const outsider = await s.browser.newContext({
      httpCredentials: { username: LDAP_OUTSIDER, password: LDAP_OUTSIDER_PASSWORD },
    });
    try {
      const page = await outsider.newPage();
      const response = await page.goto(protectedPage);
      assert.equal(response?.status(), 401);
    } finally {
      await outsider.close();
    }

    await ldapTabInChinese(s, appId);
  });
}

/** The LDAP tab in Chinese, in the administration console (/admin), at both widths. */
async function ldapTabInChinese(s: Suite, appId: string) {
  assert.ok(s.server);
  const { context, page } = await s.openPage({ lang: 'zh' });
  try {
    const zh = consolePage(page, s.server.baseUrl);
    await zh.signIn(`/admin/application/detail?appId=${appId}&tab=ldap`, s.adminPassword);
    await page.getByText('LDAP 目录', { exact: true }).first().waitFor();
    await page.getByTestId('ldap-bind-dn').waitFor();
    await page.getByRole('switch', { name: 'POSIX 账号（Linux 主机）', checked: true }).waitFor();
    await zh.expectNoRawPhraseKeys();
    await zh.screenshot('app-ldap.zh');
  } finally {
    await context.close();
  }
}
