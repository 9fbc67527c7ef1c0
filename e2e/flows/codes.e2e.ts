import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { openPglite } from '../../packages/server/src/db/database.ts';
import { startTestSmtp } from '../../packages/server/src/test/smtp.ts';
import { consolePage } from '../support/console.page.ts';
import { startServer } from '../support/server.process.ts';
import type { Suite } from '../support/suite.ts';

const CODE_USERS = [
  { username: 'cody.code', email: 'cody.code@example.com', password: 'Cody-code-2026', lang: 'en' },
  { username: 'cai.code', email: 'cai.code@example.com', password: 'Cai-code-2026', lang: 'zh' },
] as const;

/**
 * Codes by email: a company offers "email code" as a login method in the console, and its people
 * sign in to the user centre with a code sent to their verified address (a local SMTP server
 * receives it), in English and Chinese. Its own server, with mail set up, on its own database:
 * the run's server has no mail, which other flows rely on.
 */
export function codeFlows(s: Suite) {
  const { openPage } = s;

  test('signing in to the user centre with an email code, and resetting a forgotten password by email, in English and Chinese', async () => {
    const smtp = await startTestSmtp();
    const dataDir = await mkdtemp(join(tmpdir(), 'tessera-e2e-codes-'));
    const env = { TESSERA_SMTP_URL: smtp.url };
    let server = await startServer(s.adminPassword, env, { dataDir, logFile: s.serverLog });
    try {
      const { context, page } = await openPage();
      const ui = consolePage(page, server.baseUrl);
      try {
        await ui.signIn('/dev/', s.adminPassword, /create-company/);
        await page.getByLabel('Company name').fill('Codes Test Co');
        await page.getByRole('button', { name: 'Create company' }).click();
        await page.waitForURL(`${server.baseUrl}/dev/dashboard`);
        await page.goto(`${server.baseUrl}/dev/safety-management/general`);
        await page.getByText('Email code (to a verified email address)').click();
        await page.getByRole('button', { name: 'Save' }).click();
        await ui.expectMessage('Safety settings saved');
        await ui.expectNoRawPhraseKeys();
        for (const user of CODE_USERS)
          await ui.createUser(user.username, user.password, { email: user.email });
      } finally {
        await context.close();
      }
      // The people proved their addresses (the user centre's verification, done here directly).
      await server.stop();
      const database = await openPglite({ dataDir });
      await sql`update accounts set email_verified_at = now()
        where username in (${CODE_USERS[0].username}, ${CODE_USERS[1].username})`.execute(database.db);
      await database.close();
      server = await startServer(s.adminPassword, env, { dataDir, logFile: s.serverLog });

      for (const user of CODE_USERS) {
        const mailsOf = () => smtp.received.filter((mail) => JSON.stringify(mail.to).includes(user.email));
        const { context: portalContext, page: portal } = await openPage();
        try {
          await signInWithEmailCode(portal, server.baseUrl, user, mailsOf);
        } finally {
          await portalContext.close();
        }
        const { context: resetContext, page: resetPage } = await openPage();
        try {
          await resetForgottenPassword(resetPage, server.baseUrl, user, mailsOf);
        } finally {
          await resetContext.close();
        }
      }
    } finally {
      await server.stop();
      await smtp.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  /** From the sign-in page to the account page with a code: one wrong code first, then the right one. */
  async function signInWithEmailCode(
    portal: Page,
    baseUrl: string,
    user: (typeof CODE_USERS)[number],
    mailsOf: () => { text?: string }[],
  ) {
    const zh = user.lang === 'zh';
    await portal.goto(`${baseUrl}/portal/account${zh ? '?lang=zh' : ''}`);
    await portal
      .getByRole('link', { name: zh ? '使用邮箱验证码登录' : 'Sign in with an email code' })
      .click();
    await portal.locator('#identifier').fill(user.username);
    await portal.getByRole('button', { name: zh ? '发送验证码' : 'Send the code' }).click();
    await portal.getByRole('heading', { name: zh ? '输入验证码' : 'Enter the code' }).waitFor();
    // The code leaves once the page has answered: wait for the mail (bounded).
    for (let i = 0; i < 400 && mailsOf().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    const code = /\b(\d{6})\b/.exec(mailsOf()[0]?.text ?? '')?.[1];
    assert.ok(code, `a code was mailed to ${user.email}`);
    // Not among the run's secrets: six digits are too short for a search of the log to mean anything.
    await portal.locator('#code').fill(code === '000000' ? '111111' : '000000');
    await portal.locator('button.primary[type=submit]').click();
    await portal
      .getByRole('alert')
      .filter({ hasText: zh ? '还可尝试 4 次' : '4 tries left' })
      .waitFor();
    await portal.locator('#code').fill(code);
    await portal.locator('button.primary[type=submit]').click();
    await portal.waitForURL(`${baseUrl}/portal/account${zh ? '?lang=zh' : ''}`);
    await portal.getByText(user.username).first().waitFor();
  }

  /**
   * "Forgot password?" on the user centre's sign-in page: the code mailed to the person, a new
   * password under the company's rules, then a sign-in with it (the old one no longer works).
   */
  async function resetForgottenPassword(
    portal: Page,
    baseUrl: string,
    user: (typeof CODE_USERS)[number],
    mailsOf: () => { text?: string }[],
  ) {
    const zh = user.lang === 'zh';
    const before = mailsOf().length;
    await portal.goto(`${baseUrl}/portal/account${zh ? '?lang=zh' : ''}`);
    await portal.getByRole('link', { name: zh ? '忘记密码？' : 'Forgot password?' }).click();
    await portal.locator('#identifier').fill(user.username);
    await portal.getByRole('button', { name: zh ? '发送验证码' : 'Send the code' }).click();
    await portal.getByRole('heading', { name: zh ? '输入验证码' : 'Enter the code' }).waitFor();
    for (let i = 0; i < 400 && mailsOf().length === before; i++) await new Promise((r) => setTimeout(r, 25));
    const code = /\b(\d{6})\b/.exec(mailsOf()[before]?.text ?? '')?.[1];
    assert.ok(code, `a reset code was mailed to ${user.email}`);
    await portal.locator('#code').fill(code);
    await portal.getByRole('button', { name: zh ? '继续' : 'Continue' }).click();
    await portal.getByRole('heading', { name: zh ? '设置新密码' : 'Choose a new password' }).waitFor();
    const renewed = `${user.password}-new`;
    await portal.locator('#new-password').fill(renewed);
    await portal.locator('#confirm-password').fill(renewed);
    await portal.getByRole('button', { name: zh ? '设置密码' : 'Set the password' }).click();
    await portal
      .getByText(
        zh
          ? '密码已修改，该账号的所有会话均已结束。请使用新密码登录。'
          : 'Your password has been changed and every session of the account has ended. Sign in with the new password.',
      )
      .waitFor();
    await portal.locator('#identifier').fill(user.username);
    await portal.locator('#password').fill(renewed);
    await portal.locator('button.primary[type=submit]').click();
    await portal.waitForURL(`${baseUrl}/portal/account${zh ? '?lang=zh' : ''}`);
    await portal.getByText(user.username).first().waitFor();
  }
}
