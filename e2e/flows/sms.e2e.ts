import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { openPglite } from '../../packages/server/src/db/database.ts';
import { type SmsStandIn, startAliyunSms } from '../../packages/server/src/test/sms-providers.ts';
import { consolePage } from '../support/console.page.ts';
import { startServer } from '../support/server.process.ts';
import type { Suite } from '../support/suite.ts';

const SMS_USERS = [
  { username: 'sia.sms', phone: '+8613800001111', password: 'Sia-sms-2026', lang: 'en' },
  { username: 'shu.sms', phone: '+8613800002222', password: 'Shu-sms-2026', lang: 'zh' },
] as const;
const ACCOUNT = {
  accessKeyId: 'LTAI-e2e-key',
  accessKeySecret: 'e2e/secret+=',
  signNames: ['Tessera'],
  templateIds: ['SMS_100200300'],
};

/**
 * Codes by SMS, against a local stand-in of Alibaba Cloud SMS that checks each request's
 * signature as the provider does: the platform administrator sets the provider on the setup page
 * and sends a test message; a company asks for an SMS code as the second factor; its people sign
 * in with a password and the code texted to their verified phone, then reset a forgotten password
 * by SMS and are still asked for the second factor. In English and Chinese. Its own server (the
 * stand-in listens on 127.0.0.1, which the outbound rule allows only when told).
 */
export function smsFlows(s: Suite) {
  const { openPage } = s;

  test('SMS codes: the provider set with a test message, an SMS second factor, a forgotten password by SMS, in English and Chinese', async () => {
    const provider = await startAliyunSms(ACCOUNT);
    const dataDir = await mkdtemp(join(tmpdir(), 'tessera-e2e-sms-'));
    const env = { TESSERA_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' };
    let server = await startServer(s.adminPassword, env, { dataDir, logFile: s.serverLog });
    try {
      const platform = await openPage();
      try {
        await consolePage(platform.page, server.baseUrl).signIn('/admin/', s.adminPassword, /\/admin\//);
        await setProvider(platform.page, server.baseUrl, provider);
      } finally {
        await platform.context.close();
      }
      const { context, page } = await openPage();
      const ui = consolePage(page, server.baseUrl);
      try {
        await ui.signIn('/dev/', s.adminPassword, /create-company/);
        await page.getByLabel('Company name').fill('SMS Test Co');
        await page.getByRole('button', { name: 'Create company' }).click();
        await page.waitForURL(`${server.baseUrl}/dev/dashboard`);
        for (const user of SMS_USERS)
          await ui.createUser(user.username, user.password, { phone: user.phone });
        const mfa = await ui.api(
          '/api/v1/manage/safety/mfa/update',
          { mode: 'required', types: ['sms', 'otp'], lockout: { maxFailures: 5, lockMinutes: 15 } },
          await ui.companyId(),
        );
        assert.equal(mfa.code, 200, mfa.msg);
      } finally {
        await context.close();
      }
      // The people proved their phones (the user centre's verification, done here directly).
      await server.stop();
      const database = await openPglite({ dataDir });
      await sql`update accounts set phone_verified_at = now()
        where username in (${SMS_USERS[0].username}, ${SMS_USERS[1].username})`.execute(database.db);
      await database.close();
      server = await startServer(s.adminPassword, env, { dataDir, logFile: s.serverLog });

      for (const user of SMS_USERS) {
        const texts = () => provider.messages.filter((message) => user.phone.endsWith(message.phone));
        const first = await openPage();
        try {
          await signInWithSmsFactor(first.page, server.baseUrl, user, user.password, texts);
        } finally {
          await first.context.close();
        }
        const second = await openPage();
        try {
          await resetBySms(second.page, server.baseUrl, user, texts);
        } finally {
          await second.context.close();
        }
      }
      assert.deepEqual(provider.refusals, [], 'every request carried a valid signature');
    } finally {
      await server.stop();
      await provider.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  /** The platform console's setup page: Alibaba Cloud SMS at the stand-in, then a test message. */
  async function setProvider(page: Page, baseUrl: string, provider: SmsStandIn) {
    await page.goto(`${baseUrl}/admin/setting/setup`);
    await page.getByText('SMS provider').first().waitFor();
    await page.getByText('Alibaba Cloud SMS').click();
    await page.getByLabel('AccessKey ID').fill(ACCOUNT.accessKeyId);
    await page.getByLabel('AccessKey secret').fill(ACCOUNT.accessKeySecret);
    await page.getByLabel('Sign name').fill(ACCOUNT.signNames[0] as string);
    await page.getByLabel('Code template').fill(ACCOUNT.templateIds[0] as string);
    await page.getByLabel('API address').fill(provider.url);
    await page.getByRole('button', { name: 'Save' }).last().click();
    await consolePage(page, baseUrl).expectMessage('SMS provider saved');
    await page.getByLabel('Phone number').fill('+8613800009999');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/The provider accepted the message/).waitFor();
    assert.equal(provider.messages.at(-1)?.params[0], '123456');
  }

  /** Waits (bounded) for one more text than `before`, and answers its code. */
  async function nextCode(texts: () => { params: string[] }[], before: number) {
    for (let i = 0; i < 400 && texts().length <= before; i++) await new Promise((r) => setTimeout(r, 25));
    const code = texts()[before]?.params[0];
    assert.ok(code && /^\d{6}$/.test(code), 'a code was texted');
    return code;
  }

  /** Password, then "Send a code by SMS", then the code: the user centre. */
  async function signInWithSmsFactor(
    portal: Page,
    baseUrl: string,
    user: (typeof SMS_USERS)[number],
    password: string,
    texts: () => { params: string[] }[],
  ) {
    const zh = user.lang === 'zh';
    const landing = `${baseUrl}/portal/account${zh ? '?lang=zh' : ''}`;
    await portal.goto(landing);
    await portal.locator('#identifier').fill(user.username);
    await portal.locator('#password').fill(password);
    await portal.locator('button.primary[type=submit]').click();
    const before = texts().length;
    await portal.locator('button[data-send-code="sms"]').click();
    await portal.locator('[data-code-sent]').waitFor();
    const code = await nextCode(texts, before);
    await portal.locator('#sent-code').fill(code);
    await portal.locator('form:has(#sent-code) button[type=submit]').click();
    await portal.waitForURL(landing);
    await portal.getByText(user.username).first().waitFor();
  }

  /** "Forgot password?" with the phone number: the code by SMS, a new password, the second factor still asked. */
  async function resetBySms(
    portal: Page,
    baseUrl: string,
    user: (typeof SMS_USERS)[number],
    texts: () => { params: string[] }[],
  ) {
    const zh = user.lang === 'zh';
    await portal.goto(`${baseUrl}/portal/account${zh ? '?lang=zh' : ''}`);
    await portal.getByRole('link', { name: zh ? '忘记密码？' : 'Forgot password?' }).click();
    await portal.locator('#identifier').fill(user.phone);
    const before = texts().length;
    await portal.getByRole('button', { name: zh ? '发送验证码' : 'Send the code' }).click();
    await portal.getByRole('heading', { name: zh ? '输入验证码' : 'Enter the code' }).waitFor();
    await portal.locator('#code').fill(await nextCode(texts, before));
    await portal.getByRole('button', { name: zh ? '继续' : 'Continue' }).click();
    const renewed = `${user.password}-new`;
    await portal.locator('#new-password').fill(renewed);
    await portal.locator('#confirm-password').fill(renewed);
    await portal.getByRole('button', { name: zh ? '设置密码' : 'Set the password' }).click();
    // Signed out everywhere; the new password signs in, and the second factor is still asked
    // (a reset proves the phone, not the factor; a new code would wait for the minute's pacing).
    await portal.locator('#identifier').fill(user.username);
    await portal.locator('#password').fill(renewed);
    await portal.locator('button.primary[type=submit]').click();
    await portal.locator('button[data-send-code="sms"]').waitFor();
  }
}
