import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { consolePage, motionSettled, signInToPortal } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const LOG_USER = 'lena.logs';
const LOG_USER_PASSWORD = 'Lena-pass-2026';
const REDIRECT_URI = 'http://localhost:7001/callback';

/**
 * Issue 16: the log screen (filters, both views, an export), the dashboard with data and its
 * charts, the brand screen's live preview and the branded sign-in page, in both languages.
 */
export function logFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  s.secrets.push(LOG_USER_PASSWORD);

  devFlow('the sign-in log lists a failed attempt with its cause, filters it and exports it', async () => {
    assert.ok(s.server);
    const { page, ui } = await devSession();
    const base = s.server.baseUrl;
    await ui.createUser(LOG_USER, LOG_USER_PASSWORD);
    const { context, page: portal } = await openPage();
    try {
      await signInToPortal(portal, base, LOG_USER, 'Not-the-password-1');
      await portal.getByRole('alert').waitFor();
      await signInToPortal(portal, base, LOG_USER, LOG_USER_PASSWORD);
      await portal.waitForURL(`${base}/portal/account`);
    } finally {
      await context.close();
    }

    await page.goto(`${base}/dev/log/index`);
    const table = page.getByTestId('sign-in-log');
    await table.getByRole('cell', { name: LOG_USER, exact: true }).first().waitFor();
    await page.getByTestId('log-filter-result').click();
    await motionSettled(page);
    await page.locator('.ant-select-item-option', { hasText: 'Failure' }).click();
    await table.getByText('Wrong password').first().waitFor();
    // The rows of the filtered list, read at once: the unfiltered ones may still be on screen for
    // a moment (reading row by row raced with the table being redrawn with fewer rows).
    const rows = table.locator('tbody tr');
    await page.waitForFunction(
      () =>
        !Array.from(document.querySelectorAll<HTMLElement>('[data-testid="sign-in-log"] tbody tr')).some(
          (row) => /\bSuccess\b/.test(row.innerText),
        ),
    );
    for (const text of await rows.allInnerTexts()) assert.doesNotMatch(text, /\bSuccess\b/);
    await ui.expectNoRawPhraseKeys();
    await ui.screenshot('log-sign-ins.en');

    // The export holds the filtered rows only, with the cause in words.
    await page.getByTestId('log-export').click();
    await motionSettled(page);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('menuitem', { name: 'CSV' }).click(),
    ]);
    const csv = await readFile((await download.path()) as string, 'utf8');
    assert.match(csv, /Wrong password/);
    assert.match(csv, new RegExp(LOG_USER.replace('.', '\\.')));
    assert.doesNotMatch(csv, /,Success,/);

    // Administration: the user created above, with its fields as the change.
    await page.getByTestId('log-view').getByText('Administration').click();
    const admin = page.getByTestId('admin-log');
    await admin.getByText('user.create').first().waitFor();
    await admin.getByRole('button', { name: 'Show changes' }).first().click();
    await page.getByTestId('change-diff').first().waitFor();
    await ui.expectNoRawPhraseKeys();
    await ui.screenshot('log-administration.en', [1280]);
  });

  devFlow('the dashboard shows sign-ins on its charts and the map, and the recent sign-ins', async () => {
    assert.ok(s.server);
    const { page, ui } = await devSession();
    await page.goto(`${s.server.baseUrl}/dev/dashboard`);
    await page.getByTestId('panel-recent').getByText(LOG_USER).first().waitFor();
    await page.getByTestId('chart-trend').locator('canvas').waitFor();
    await page.getByTestId('chart-hotspot').locator('canvas').waitFor();
    await page.getByTestId('dashboard-window').getByText('Last month').click();
    await page.getByTestId('chart-trend').locator('canvas').waitFor();
    await ui.expectNoRawPhraseKeys();
    await ui.screenshot('dashboard-data.en');
  });

  devFlow(
    "the brand screen previews before saving, and the company's sign-in page wears the brand",
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      const base = s.server.baseUrl;
      const companyId = await ui.companyId();
      const app = await ui.api<{ app: { appId: string; clientId: string } }>(
        '/api/v1/manage/app/create',
        { name: 'Brand check' },
        companyId,
      );
      assert.equal(app.code, 200, app.msg);
      const { appId, clientId } = app.data.app;
      await ui.api('/api/v1/manage/app/update', { appId, redirectUris: [REDIRECT_URI] }, companyId);
      await ui.api('/api/v1/manage/app/status', { appId, status: 'opened' }, companyId);

      await page.goto(`${base}/dev/brand/index`);
      const form = page.getByTestId('brand-form');
      await form.getByLabel('Sign-in page title').fill('Acme Secure Sign-in');
      await form.getByLabel('Primary colour').last().fill('#c41d7f');
      await form.getByLabel('Bottom info bar').fill('京ICP备12345678号');
      await form.getByLabel('Info bar link').fill('https://beian.miit.gov.cn/');
      // The preview follows the form before anything is saved: the real sign-in page, drawn by
      // the server into a sandboxed frame (no script runs there, so its markup is read).
      await previewShows(page, ['Acme Secure Sign-in', '京ICP备12345678号', '--primary:#c41d7f']);
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('brand.en');
      await form.getByRole('button', { name: 'Save' }).click();
      await ui.expectMessage('Brand saved');

      // The application's sign-in page, without JavaScript.
      const context = await s.browser?.newContext({ javaScriptEnabled: false, locale: 'en-US' });
      assert.ok(context);
      try {
        const signIn = await context.newPage();
        const query = new URLSearchParams({
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          response_type: 'code',
          scope: 'openid',
          state: 'brand-check',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        });
        await signIn.goto(`${base}/oidc/auth?${query}`);
        await signIn.getByText('Acme Secure Sign-in').waitFor();
        await signIn.getByRole('link', { name: '京ICP备12345678号' }).waitFor();
        const button = await signIn
          .locator('button[type="submit"]')
          .first()
          .evaluate((el) => getComputedStyle(el).backgroundColor);
        assert.equal(button, 'rgb(196, 29, 127)');
        await consolePage(signIn, base).screenshot('sign-in-branded.en');
      } finally {
        await context.close();
      }
    },
  );

  test('the log, dashboard and brand screens in Chinese', async () => {
    assert.ok(s.server);
    const { context, page } = await openPage({ lang: 'zh' });
    const ui = consolePage(page, s.server.baseUrl);
    try {
      await ui.signIn('/dev/dashboard', s.adminPassword);
      await page.getByTestId('chart-trend').locator('canvas').waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('dashboard-data.zh');
      await page.goto(`${s.server.baseUrl}/dev/log/index`);
      await page.getByTestId('sign-in-log').getByText('密码错误').first().waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('log-sign-ins.zh');
      await page.goto(`${s.server.baseUrl}/dev/brand/index`);
      await previewShows(page, ['Acme Secure Sign-in']);
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('brand.zh');
      await page.goto(`${s.server.baseUrl}/dev/setting/basic-set`);
      await page.getByTestId('syslog-card').getByText('Syslog 转发').waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('settings-syslog.zh', [1280]);
    } finally {
      await context.close();
    }
  });
}

/** Waits until the brand screen's preview frame holds every one of `texts`. */
async function previewShows(page: Page, texts: string[]) {
  await page.waitForFunction((wanted) => {
    const html = document.querySelector('[data-testid="brand-preview"]')?.getAttribute('srcdoc') ?? '';
    return wanted.every((text) => html.includes(text));
  }, texts);
}
