import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openPglite } from '../../packages/server/src/db/database.ts';
import { consolePage, signInToPortal } from '../support/console.page.ts';
import { passkeyFlow, virtualAuthenticator } from '../support/passkey.flow.ts';
import { startServer } from '../support/server.process.ts';
import {
  EXPIRED_USER,
  EXPIRED_USER_PASSWORD,
  MFA_USER,
  MFA_USER_PASSWORD,
  PASSKEY_USER,
  PASSKEY_USER_PASSWORD,
  type Suite,
} from '../support/suite.ts';
import { totp } from '../support/totp.ts';

const PASSKEY_BINDER = 'pia.passkey';
const PASSKEY_BINDER_ZH = 'pei.passkey';
const PASSKEY_BINDER_PASSWORD = 'Pia-passkey-2026';

/**
 * Safety: a second factor bound in the user centre, passkeys (added in the user centre, or at
 * sign-in when the policy requires them), an expired password replaced at sign-in.
 */
export function safetyFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  const ADMIN_PASSWORD = s.adminPassword;
  devFlow(
    'with MFA optional, a user binds an authenticator in the user centre and is asked for its code',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      await page.goto(`${s.server.baseUrl}/dev/safety-management/mfa`);
      await page.getByTestId('mfa-safety').getByText('Optional', { exact: true }).click();
      await page.getByRole('button', { name: 'Save' }).click();
      await ui.expectMessage('Safety settings saved');
      await ui.expectNoRawPhraseKeys();

      const userId = await ui.createUser(MFA_USER, MFA_USER_PASSWORD, { name: 'Otto Twostep' });

      const { context, page: portal } = await openPage();
      const baseUrl = s.server.baseUrl;
      const signInWithPassword = () => signInToPortal(portal, baseUrl, MFA_USER, MFA_USER_PASSWORD);
      try {
        await signInWithPassword();
        await portal.waitForURL(`${s.server.baseUrl}/portal/account`);
        const section = portal.locator('#mfa');
        await section.getByText('No authenticator is bound.').waitFor();
        await section.getByLabel('Kind').selectOption('otp');
        await section.getByRole('button', { name: 'Bind' }).click();
        const secret = await portal.locator('code[data-secret]').getAttribute('data-secret');
        assert.ok(secret, 'the bind page shows the key for typing');
        s.secrets.push(secret);
        await portal.getByRole('img', { name: 'QR code of the authenticator key' }).waitFor();
        await portal.getByLabel('Verification code').fill(totp(secret, Date.now(), 5));
        await portal.getByRole('button', { name: 'Confirm' }).click();
        await portal.getByRole('alert').waitFor();
        await portal.getByLabel('Verification code').fill(totp(secret));
        await portal.getByRole('button', { name: 'Confirm' }).click();
        await portal.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
        s.secrets.push(...(await portal.locator('.recovery-codes code').allInnerTexts()));
        await portal.getByRole('link', { name: 'I have saved them, continue' }).click();
        await portal.locator('#mfa').getByText('Recovery codes left: 10').waitFor();

        // A new browser: the password is not enough any more.
        await context.clearCookies();
        await signInWithPassword();
        await portal.getByRole('heading', { name: 'Two-step verification' }).waitFor();
        // The code of the binding was used once already: a new period's code is needed.
        await portal.getByLabel('Verification code').fill(totp(secret, Date.now() + 30_000));
        await portal.getByRole('button', { name: 'Verify' }).click();
        await portal.waitForURL(`${s.server.baseUrl}/portal/account`);
        await portal.getByRole('heading', { name: 'My account' }).waitFor();
      } finally {
        await context.close();
      }
      // The administrator sees the factor on the user's page.
      await page.goto(`${s.server.baseUrl}/dev/org/user-detail?id=${userId}`);
      await page.getByText('Recovery codes left: 10 of 10').waitFor();
      await page.getByText('Bound', { exact: true }).first().waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('user-detail-mfa.en', [1280]);
    },
  );

  devFlow(
    'passkeys: allowed in the console, added in the user centre, then enough alone to sign in',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      await page.goto(`${s.server.baseUrl}/dev/safety-management/general`);
      await page.getByTestId('general-safety').getByText('Passkey (FIDO2, without a password)').click();
      await page.getByRole('button', { name: 'Save' }).click();
      await ui.expectMessage('Safety settings saved');
      await ui.createUser(PASSKEY_USER, PASSKEY_USER_PASSWORD);
      const { context, page: portal } = await openPage();
      try {
        await passkeyFlow(
          portal,
          context,
          s.server.baseUrl,
          { username: PASSKEY_USER, password: PASSKEY_USER_PASSWORD },
          s.secrets,
        );
      } finally {
        await context.close();
      }
    },
  );

  devFlow(
    'passkeys: a person without a factor creates one at sign-in when the policy requires passkeys only',
    async () => {
      assert.ok(s.server);
      const baseUrl = s.server.baseUrl;
      const { ui } = await devSession();
      s.secrets.push(PASSKEY_BINDER_PASSWORD);
      await ui.createUser(PASSKEY_BINDER, PASSKEY_BINDER_PASSWORD, { name: 'Pia Passkey' });
      await ui.createUser(PASSKEY_BINDER_ZH, PASSKEY_BINDER_PASSWORD, { name: 'Pei Passkey' });
      const companyId = await ui.companyId();
      const policy = await ui.api<Record<string, unknown>>('/api/v1/manage/safety/mfa', {}, companyId);
      try {
        const required = await ui.api(
          '/api/v1/manage/safety/mfa/update',
          { mode: 'required', types: ['fido2'], lockout: { maxFailures: 5, lockMinutes: 15 } },
          companyId,
        );
        assert.equal(required.code, 200, required.msg);
        for (const [lang, username, t] of [
          ['en', PASSKEY_BINDER, { title: 'Add a passkey', codes: 'Save your recovery codes' }],
          ['zh', PASSKEY_BINDER_ZH, { title: '添加通行密钥', codes: '保存恢复码' }],
        ] as const) {
          const person = await openPage({ lang });
          try {
            const portal = consolePage(person.page, baseUrl);
            const { cdp, authenticatorId } = await virtualAuthenticator(person.context, person.page);
            await signInToPortal(person.page, baseUrl, username, PASSKEY_BINDER_PASSWORD);
            // The passkey page of the sign-in, not an authenticator app's QR code.
            await person.page.getByRole('heading', { name: t.title }).waitFor();
            assert.equal(await person.page.locator('img[src^="data:image/svg"]').count(), 0);
            await portal.expectNoRawPhraseKeys();
            await portal.screenshot(`passkey-sign-in-bind.${lang}`);
            await person.page.locator('[data-passkey-button]').click();
            await person.page.getByRole('heading', { name: t.codes }).waitFor();
            s.secrets.push(...(await person.page.locator('.recovery-codes code').allInnerTexts()));
            await person.page.locator('a.button.primary').click();
            await person.page.waitForURL(`${baseUrl}/portal/account`);
            await person.page.locator('#mfa li').first().waitFor();
            assert.equal(await person.page.locator('#mfa li').count(), 1, 'one factor: the passkey');
            const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
            assert.equal(credentials.length, 1, 'the authenticator holds the new passkey');
          } finally {
            await person.context.close();
          }
        }
      } finally {
        await ui.api('/api/v1/manage/safety/mfa/update', policy.data, companyId);
      }
    },
  );

  test("a password older than the company's change cycle must be replaced at sign-in", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tessera-e2e-expiry-'));
    let second = await startServer(ADMIN_PASSWORD, {}, { dataDir, logFile: s.serverLog });
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
      second = await startServer(ADMIN_PASSWORD, {}, { dataDir, logFile: s.serverLog });

      const { context: portalContext, page: portal } = await openPage();
      try {
        await signInToPortal(portal, second.baseUrl, EXPIRED_USER, EXPIRED_USER_PASSWORD);
        await portal.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        await portal.getByText('has expired').waitFor();
        await portal.getByLabel('New password', { exact: true }).fill(EXPIRED_USER_PASSWORD);
        await portal.getByLabel('Confirm the new password').fill(EXPIRED_USER_PASSWORD);
        await portal.locator('button.primary[type=submit]').click();
        await portal.getByRole('alert').waitFor();
        s.secrets.push('Renewed-pass-2027');
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
}
