import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import ExcelJS from 'exceljs';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestSmtp } from '../../packages/server/src/test/smtp.ts';
import { type CatalogueRp, startCatalogueRp } from '../support/catalogue-rp.ts';
import {
  artifactsDir,
  callsThatMustSucceed,
  consolePage,
  fieldMessagesGone,
  motionSettled,
} from '../support/console.page.ts';
import { type RunningServer, startServer } from '../support/server.process.ts';
import type { Suite } from '../support/suite.ts';

/**
 * A company's first week, from an empty installation of its own (a server with a new database
 * and a generated one-time password, as `npm start` gives a newcomer): the first administrator's
 * first sign-in, the platform console's setup page, a company, mail off and then on (a local SMTP
 * receiver), an import, the user centre at /portal/ and at the company's address, and a catalogue
 * application whose people are not asked for consent. The new and changed screens are kept in
 * both languages at 1280 and 900 px under e2e/artifacts/first-week/.
 */
// Not containing the username: the password rules refuse that.
const NEW_PASSWORD = 'Week-one-Pass-2027';
const COMPANY = 'First Week Trading';
const PERSON = { username: 'fay.frontdesk', password: 'Fay-pass-2026', email: 'fay@example.com' };
const SHOTS = 'first-week/';

type Lang = 'en' | 'zh';

/** An .xlsx of people without passwords (what a newcomer exports from an HR sheet). */
async function workbookWithoutPasswords(file: string, prefix: string, count: number) {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Users');
  sheet.addRow(['Username', 'Name', 'Nickname', 'Email', 'Phone', 'Departments', 'Password']);
  for (let i = 1; i <= count; i++) {
    sheet.addRow([`${prefix}.${i}`, `${prefix} ${i}`, '', `${prefix}.${i}@example.com`, '', '', '']);
  }
  await writeFile(file, Buffer.from(await workbook.xlsx.writeBuffer()));
}

/** The one-time password the server prints at its first start. */
async function printedPassword(logFile: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const log = await readFile(logFile, 'utf8').catch(() => '');
    const found = /password: (\S+) {3}\(one-time/.exec(log)?.[1];
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the server printed no one-time password');
}

export function firstWeekFlows(s: Suite) {
  let server: RunningServer | undefined;
  let smtp: Awaited<ReturnType<typeof startTestSmtp>> | undefined;
  let rp: CatalogueRp | undefined;
  let dataDir = '';
  let admin: { context: BrowserContext; page: Page } | undefined;
  let companyCode = '';
  const logFile = () => join(s.vendorDir, 'first-week-server.log');
  const base = () => {
    assert.ok(server, 'the first-week server runs');
    return server.baseUrl;
  };
  const start = (env: Record<string, string> = {}) =>
    startServer(
      'not-used',
      // No password from the operator: the server makes a one-time one and prints it.
      { TESSERA_BOOTSTRAP_ADMIN_PASSWORD: '', ...env },
      { dataDir, logFile: logFile() },
    );

  /** The page in each language (the lang cookie, then a reload), each at 1280 and 900 px. */
  async function bothLanguages(page: Page, name: string, ready: (lang: Lang) => Promise<unknown>) {
    const ui = consolePage(page, base());
    for (const lang of ['zh', 'en'] as const) {
      await page.context().addCookies([{ name: 'lang', value: lang, url: base() }]);
      await page.reload();
      await ready(lang);
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot(`${SHOTS}${name}.${lang}`);
    }
  }

  /** Signs the administrator in to the company console of the current server. */
  async function signInAdmin() {
    await admin?.context.close();
    admin = await s.openPage();
    const ui = consolePage(admin.page, base());
    await ui.signIn('/dev/dashboard', NEW_PASSWORD);
    await admin.page.getByTestId('company-id').waitFor();
    return { ...admin, ui };
  }

  /** A test that leaves a screenshot of the administrator's page behind when it fails. */
  function flow(name: string, body: () => Promise<void>) {
    test(`first week: ${name}`, async () => {
      try {
        await body();
      } catch (error) {
        const slug = name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40);
        await admin?.page
          .screenshot({ path: `${artifactsDir}${SHOTS}failure-${slug}.png`, fullPage: true })
          .catch(() => {});
        throw error;
      }
    });
  }

  after(async () => {
    await admin?.context.close().catch(() => {});
    await server?.stop();
    await smtp?.close();
    await rp?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  flow("the first administrator's one-time password is changed at the first sign-in", async () => {
    await mkdir(join(artifactsDir, SHOTS), { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), 'tessera-first-week-'));
    server = await start();
    const oneTime = await printedPassword(logFile());
    s.secrets.push(oneTime, NEW_PASSWORD);
    admin = await s.openPage();
    const { page } = admin;
    const ui = consolePage(page, base());
    await page.goto(`${base()}/admin/`);
    await ui.expectSignInPage();
    // The shared sign-in page leads people to their user centre.
    await page.getByRole('link', { name: 'Your account: profile, security and apps' }).waitFor();
    await ui.screenshot(`${SHOTS}sign-in.en`);
    await ui.submitSignIn('admin', oneTime);
    await page.getByLabel('New password', { exact: true }).waitFor();
    await ui.screenshot(`${SHOTS}first-password.en`);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm the new password').fill(NEW_PASSWORD);
    await page.locator('button.primary[type=submit]').click();
    await page.waitForURL(new RegExp(`^${base()}/admin/`));
    // The printed password is spent.
    const again = await s.openPage();
    try {
      const other = consolePage(again.page, base());
      await again.page.goto(`${base()}/admin/`);
      await other.expectSignInPage();
      await other.submitSignIn('admin', oneTime);
      await other.expectSignInError();
    } finally {
      await again.context.close();
    }
  });

  flow('the platform console setup page lists the installation settings', async () => {
    assert.ok(admin);
    const { page } = admin;
    await page.goto(`${base()}/admin/setting/setup`);
    await bothLanguages(page, 'setup', async (lang) => {
      const items = page.getByTestId('setup-items');
      await items.getByText(lang === 'en' ? 'Who may create companies' : '谁可以创建企业').waitFor();
    });
  });

  flow('a company is created; with mail off, an import without passwords is refused', async () => {
    assert.ok(admin);
    const { page } = admin;
    const ui = consolePage(page, base());
    await page.context().addCookies([{ name: 'lang', value: 'en', url: base() }]);
    await page.goto(`${base()}/dev/create-company`);
    await page.getByLabel('Company name').fill(COMPANY);
    await fieldMessagesGone(page);
    await page.getByRole('button', { name: 'Create company' }).click();
    await page.waitForURL(`${base()}/dev/dashboard`);
    // The persistent notice while mail is off.
    await page.getByTestId('mail-off-notice').getByText('Mail is not set up on this platform').waitFor();

    const file = join(s.vendorDir, 'first-week-no-mail.xlsx');
    await workbookWithoutPasswords(file, 'nomail', 3);
    await page.goto(`${base()}/dev/org/user`);
    await page.getByTestId('mail-off-notice').waitFor();
    // The button's name ends with its label (after its icon's); rows name people such as imported.089.
    await page.getByRole('button', { name: /Import$/ }).click();
    const dialog = page.getByRole('dialog');
    await motionSettled(page);
    await dialog.locator('input[type=file]').setInputFiles(file);
    await dialog.getByText(/3 rows have no password, and mail is not set up on this platform/).waitFor({
      timeout: 60_000,
    });
    await ui.screenshot(`${SHOTS}import-refused.en`, [1280]);
    await dialog.getByRole('button', { name: 'Close' }).first().click();

    // Actions that need mail are disabled, with the reason on hover.
    const userId = await ui.createUser(PERSON.username, PERSON.password, {
      name: 'Fay Frontdesk',
      email: PERSON.email,
      nickname: '前端组',
    });
    await page.goto(`${base()}/dev/org/user-detail?id=${userId}`);
    // The notice above the page moves the buttons down when it appears: hover once it is there.
    await page.getByTestId('mail-off-notice').waitFor();
    const link = page.getByRole('button', { name: 'Send sign-in link' });
    await link.waitFor();
    assert.equal(await link.isDisabled(), true, 'no sign-in link without mail');
    await link.locator('xpath=..').hover();
    await page.getByRole('tooltip').getByText('Mail is not set up on this platform').waitFor();
    const companyId = (await ui.companyId()) as string;
    const detail = await ui.api<{ code: string }>('/api/v1/manage/company/detail', {}, companyId);
    companyCode = detail.data.code;
  });

  flow('the administrators card of the company settings', async () => {
    assert.ok(admin);
    const { page } = admin;
    await page.goto(`${base()}/dev/setting/basic-set`);
    // A custom console role, made where the administrators are.
    const roles = page.getByTestId('console-roles');
    await roles.getByRole('button', { name: 'New console role' }).click();
    const dialog = page.getByRole('dialog', { name: 'New console role' });
    await dialog.getByLabel('Name').fill('Help desk');
    await dialog.getByLabel('Description').fill('Reads users and gets them back in');
    await dialog.locator('#console-group-user').locator('..').getByText('Read', { exact: true }).click();
    await dialog.getByRole('checkbox', { name: /Get people back in/ }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await roles.getByText('Users · Read').waitFor();
    await page.getByRole('button', { name: 'Add administrator' }).first().click();
    const adding = page.getByRole('dialog', { name: 'Add administrator' });
    await adding.getByLabel('Role').click();
    await page.locator('.ant-select-item-option').filter({ hasText: 'Help desk' }).waitFor();
    await page.keyboard.press('Escape');
    await adding.getByRole('button', { name: 'Cancel' }).click();
    await bothLanguages(page, 'settings-administrators', async () => {
      await page.getByTestId('administrators').getByRole('cell', { name: 'admin', exact: true }).waitFor();
      await page.getByTestId('console-role-list').getByText('Help desk').waitFor();
    });
  });

  flow('with mail on, the import sends each person a way in', async () => {
    await server?.stop();
    smtp = await startTestSmtp();
    server = await start({ TESSERA_SMTP_URL: smtp.url, TESSERA_MAIL_FROM: 'Tessera <noreply@example.com>' });
    const { page, ui } = await signInAdmin();
    assert.equal(await page.getByTestId('mail-off-notice').count(), 0, 'no notice with mail on');
    for (const [lang, count] of [
      ['en', 3],
      ['zh', 2],
    ] as const) {
      const file = join(s.vendorDir, `first-week-${lang}.xlsx`);
      await workbookWithoutPasswords(file, `week${lang}`, count);
      await page.context().addCookies([{ name: 'lang', value: lang, url: base() }]);
      await page.goto(`${base()}/dev/org/user`);
      await page.getByRole('button', { name: lang === 'en' ? /Import$/ : /导入$/ }).click();
      const dialog = page.getByRole('dialog');
      await motionSettled(page);
      await dialog.locator('input[type=file]').setInputFiles(file);
      await dialog
        .getByText(
          lang === 'en'
            ? `Users imported from first-week-${lang}.xlsx: ${count}`
            : `已从 first-week-${lang}.xlsx 导入 ${count} 个用户`,
        )
        .waitFor({ timeout: 60_000 });
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot(`${SHOTS}import-result.${lang}`);
      await dialog
        .getByRole('button', { name: lang === 'en' ? 'Close' : '关闭' })
        .first()
        .click();
    }
    // An imported person (no password) is sent a sign-in link, now that mail is on.
    await page.context().addCookies([{ name: 'lang', value: 'en', url: base() }]);
    await page.goto(`${base()}/dev/org/user`);
    await page.getByTestId('users').getByText('weeken.1', { exact: true }).click();
    await page.waitForURL(/\/dev\/org\/user-detail\?/);
    const link = page.getByRole('button', { name: 'Send sign-in link' });
    await link.click();
    await ui.expectMessage('A sign-in link was sent to weeken.1@example.com');
    for (let attempt = 0; attempt < 300 && !smtp?.received.length; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const mail = smtp?.received[0];
    assert.ok(mail, 'the sign-in link was mailed');
    const address = /https?:\/\/\S+\/portal\/link\/[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0];
    assert.ok(address, `a link in the mail: ${mail.text}`);
    s.secrets.push(address.split('/').pop() as string);
    const person = await s.openPage({ lang: 'en' });
    try {
      await person.page.goto(address);
      await person.page.locator('button.primary[type=submit]').click();
      // People imported without a password choose one on the way in.
      const newPassword = person.page.getByLabel('New password', { exact: true });
      const account = person.page.getByRole('heading', { name: 'My account' });
      await newPassword.or(account).first().waitFor();
      if (await newPassword.isVisible()) {
        await newPassword.fill('Weeken-pass-2027');
        await person.page.getByLabel('Confirm the new password').fill('Weeken-pass-2027');
        await person.page.locator('button.primary[type=submit]').click();
      }
      await account.waitFor();
      await person.page.getByText('weeken.1@example.com').first().waitFor();
    } finally {
      await person.context.close();
    }
  });

  flow("the user centre at /portal/ and at the company's address", async () => {
    assert.ok(admin);
    const ui = consolePage(admin.page, base());
    const companyId = (await ui.companyId()) as string;
    const branded = await ui.api(
      '/api/v1/manage/brand/update',
      { primaryColor: '#0e7c66', title: 'First Week People', footerText: 'First Week Trading · IT desk' },
      companyId,
    );
    assert.equal(branded.code, 200, branded.msg);
    const person = await s.openPage({ lang: 'en' });
    try {
      const { page } = person;
      const portal = consolePage(page, base());
      await page.goto(`${base()}/portal/`);
      await portal.expectSignInPage();
      await portal.submitSignIn(PERSON.username, PERSON.password);
      await page.waitForURL(`${base()}/portal/account`);
      await page.getByRole('heading', { name: 'My account' }).waitFor();
      // Fay's only company has a brand: her user centre wears it.
      await page.locator('header.brand').getByText('First Week People').waitFor();
      await page.goto(`${base()}/portal/c/${companyCode}/`);
      await bothLanguages(page, 'user-centre', async (lang) => {
        await page.getByRole('heading', { name: lang === 'en' ? 'My account' : '个人中心' }).waitFor();
        await page.getByText(PERSON.email).first().waitFor();
      });
      // The company address's sign-in page, in its brand.
      const fresh = await s.openPage({ lang: 'zh' });
      try {
        await fresh.page.goto(`${base()}/portal/c/${companyCode}/`);
        await consolePage(fresh.page, base()).expectSignInPage();
        await fresh.page.locator('header.brand').getByText('First Week People').waitFor();
        await consolePage(fresh.page, base()).screenshot(`${SHOTS}sign-in-company.zh`);
      } finally {
        await fresh.context.close();
      }
    } finally {
      await person.context.close();
    }
  });

  flow('a catalogue application signs its people in without asking for consent', async () => {
    assert.ok(admin);
    const { page } = admin;
    const ui = consolePage(page, base());
    const companyId = (await ui.companyId()) as string;
    rp = await startCatalogueRp(`${base()}/oidc`);
    const created = await ui.api<{ app: { appId: string; clientId: string }; clientSecret: string }>(
      '/api/v1/manage/app/create',
      { name: 'Grafana', type: 'third_party', template: 'grafana', baseUrl: rp.baseOf('grafana') },
      companyId,
    );
    assert.equal(created.code, 200, created.msg);
    const { appId, clientId } = created.data.app;
    const api = callsThatMustSucceed(ui, companyId);
    await api('/api/v1/manage/app/update', { appId, defaultAccess: 'allow_all' });
    await api('/api/v1/manage/app/status', { appId, status: 'opened' });
    rp.configure('grafana', { clientId, clientSecret: created.data.clientSecret });
    s.secrets.push(created.data.clientSecret);
    await page.goto(`${base()}/dev/application/detail?appId=${appId}`);
    await bothLanguages(page, 'app-detail', async () => {
      await page.getByText(appId).first().waitFor();
    });

    const person = await s.openPage({ lang: 'en' });
    try {
      const visited: string[] = [];
      person.page.on('framenavigated', (frame) => visited.push(frame.url()));
      await person.page.goto(rp.loginUrl('grafana'));
      await consolePage(person.page, base()).expectSignInPage();
      await consolePage(person.page, base()).submitSignIn(PERSON.username, PERSON.password);
      await person.page.locator('#outcome').waitFor();
      const outcome = rp.outcomes.get('grafana');
      assert.equal(outcome?.error, undefined, outcome?.error);
      assert.equal(outcome?.claims?.preferred_username, PERSON.username);
      assert.equal(await person.page.getByRole('heading', { name: 'Allow access' }).count(), 0);
      assert.ok(!visited.some((url) => /consent/i.test(url)), `no consent page: ${visited.join(' ')}`);
    } finally {
      await person.context.close();
    }
  });

  flow('a user detail page in both languages', async () => {
    assert.ok(admin);
    const { page } = admin;
    await page.goto(`${base()}/dev/org/user`);
    await page.getByTestId('users').getByText(PERSON.username, { exact: true }).click();
    await page.waitForURL(/\/dev\/org\/user-detail\?/);
    await bothLanguages(page, 'user-detail', async () => {
      await page.getByText('Fay Frontdesk').first().waitFor();
    });
  });
}
