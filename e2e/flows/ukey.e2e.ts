import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { test } from 'node:test';
import { consolePage, motionSettled, signInToPortal } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const PERSON = 'una.ukey';
const PERSON_PASSWORD = 'Una-ukey-2026';
const KEY_NAME = 'Una desk UKEY';
const BINDER = 'kim.keybind';
const BINDER_ZH = 'kai.keybind';
const BINDER_PASSWORD = 'Kim-keybind-2026';

/**
 * UKEY factors (issue 17): an administrator binds a person's key on the user's page (the key's
 * public key pasted; required fields refused first), and the person signs in with it: the
 * second-factor page shows a single-use challenge, signed here by Node's own ECDSA (not the
 * Tessera helper), as a vendor's middleware would. A person without a factor, when the policy
 * requires keys only, binds one at sign-in. The dialog and the key pages in English and Chinese
 * at 1280 and 900 px.
 */
export function ukeyFlows(s: Suite) {
  const { devSession, devFlow, openPage } = s;
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  let userId = '';

  devFlow('UKEY: bound on the user page by an administrator, then used to sign in', async () => {
    assert.ok(s.server);
    const { page, ui } = await devSession();
    s.secrets.push(PERSON_PASSWORD);
    userId = await ui.createUser(PERSON, PERSON_PASSWORD, { name: 'Una Ukey' });
    const companyId = await ui.companyId();
    const policy = await ui.api<Record<string, unknown>>('/api/v1/manage/safety/mfa', {}, companyId);
    try {
      const optional = await ui.api(
        '/api/v1/manage/safety/mfa/update',
        { mode: 'optional', types: ['otp', 'ukey_pubkey'], lockout: { maxFailures: 5, lockMinutes: 15 } },
        companyId,
      );
      assert.equal(optional.code, 200, optional.msg);

      await page.goto(`${s.server.baseUrl}/dev/org/user-detail?id=${userId}`);
      const card = page.getByTestId('user-mfa');
      await card.getByText('No MFA factor is bound yet').waitFor();
      await card.getByTestId('bind-key').click();
      const dialog = page.getByRole('dialog').filter({ hasText: 'Bind a key to Una Ukey' });
      await motionSettled(page);
      await dialog.getByRole('button', { name: 'Bind a key' }).click();
      await dialog.getByText('Please paste the public key (PEM)').waitFor();
      await dialog.getByLabel('Name', { exact: true }).fill(KEY_NAME);
      await dialog.getByLabel('Public key (PEM)').fill(publicKey);
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('ukey-bind.en');
      await dialog.getByRole('button', { name: 'Bind a key' }).click();
      await ui.expectMessage(`The key is bound: ${KEY_NAME}`);
      await card.getByText(KEY_NAME).waitFor();
      await card.getByText('UKEY public key').waitFor();

      // The person signs in: password, then the key's signature of the page's challenge.
      const person = await openPage();
      try {
        await signInToPortal(person.page, s.server.baseUrl, PERSON, PERSON_PASSWORD);
        await person.page.getByText('Sign in with a key').waitFor();
        const challenge = (await person.page.locator('textarea[data-challenge]').inputValue()).trim();
        assert.match(challenge, /^tessera-ukey:v1:/);
        const signature = sign('sha256', Buffer.from(challenge, 'utf8'), {
          key: keys.privateKey,
          dsaEncoding: 'der',
        }).toString('base64');
        await person.page.locator('#signature').fill(signature);
        await consolePage(person.page, s.server.baseUrl).screenshot('ukey-sign-in.en');
        await person.page.getByRole('button', { name: 'Verify the signature' }).click();
        await person.page.waitForURL(`${s.server.baseUrl}/portal/account`);
        await person.page.locator('#mfa li').getByText('UKEY (public key)').waitFor();
        // The person's own binding page: the key, then its signature of a binding challenge.
        await person.page.locator('#bind-type').selectOption('ukey_pubkey');
        await person.page.locator('#mfa').getByRole('button', { name: 'Bind', exact: true }).click();
        await person.page.getByRole('heading', { name: 'Bind a key' }).waitFor();
        await consolePage(person.page, s.server.baseUrl).screenshot('ukey-user-centre.en');
        await person.page.goto(`${s.server.baseUrl}/portal/account/mfa/key?type=ukey_pubkey&lang=zh`);
        await person.page.getByRole('heading', { name: '绑定密钥' }).waitFor();
        await consolePage(person.page, s.server.baseUrl).screenshot('ukey-user-centre.zh');
      } finally {
        await person.context.close();
      }
      await page.reload();
      await card.getByText('Last used: never').waitFor({ state: 'detached' });
    } finally {
      await ui.api('/api/v1/manage/safety/mfa/update', policy.data, companyId);
    }
  });

  devFlow(
    'UKEY: a person without a factor binds a key at sign-in when the policy requires keys only',
    async () => {
      assert.ok(s.server);
      const baseUrl = s.server.baseUrl;
      const { ui } = await devSession();
      s.secrets.push(BINDER_PASSWORD);
      await ui.createUser(BINDER, BINDER_PASSWORD, { name: 'Kim Key' });
      await ui.createUser(BINDER_ZH, BINDER_PASSWORD, { name: 'Kai Key' });
      const companyId = await ui.companyId();
      const policy = await ui.api<Record<string, unknown>>('/api/v1/manage/safety/mfa', {}, companyId);
      const signed = (challenge: string) =>
        sign('sha256', Buffer.from(challenge, 'utf8'), { key: keys.privateKey, dsaEncoding: 'der' }).toString(
          'base64',
        );
      try {
        const required = await ui.api(
          '/api/v1/manage/safety/mfa/update',
          {
            mode: 'required',
            types: ['ukey_pubkey', 'soft_lock'],
            lockout: { maxFailures: 5, lockMinutes: 15 },
          },
          companyId,
        );
        assert.equal(required.code, 200, required.msg);

        // English: the key binding page instead of an authenticator's QR code; the key and its signature.
        const person = await openPage();
        try {
          const portal = consolePage(person.page, baseUrl);
          await signInToPortal(person.page, baseUrl, BINDER, BINDER_PASSWORD);
          await person.page.getByRole('heading', { name: 'Bind a key' }).waitFor();
          assert.equal(await person.page.locator('img[alt="QR code of the authenticator key"]').count(), 0);
          await person.page.getByRole('link', { name: 'Soft lock' }).waitFor();
          await person.page.locator('#public-key').fill(publicKey);
          const challenge = (await person.page.locator('textarea[data-challenge]').inputValue()).trim();
          await person.page.locator('#signature').fill(signed(challenge));
          await portal.expectNoRawPhraseKeys();
          await portal.screenshot('ukey-sign-in-bind.en');
          await person.page.getByRole('button', { name: 'Bind the key' }).click();
          await person.page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
          await person.page.getByRole('link', { name: 'I have saved them, continue' }).click();
          await person.page.waitForURL(`${baseUrl}/portal/account`);
          await person.page.locator('#mfa li').getByText('UKEY (public key)').waitFor();
          assert.equal(await person.page.locator('#mfa li').count(), 1);
        } finally {
          await person.context.close();
        }

        // Chinese: the soft lock chosen, a signature of another key refused with the reason.
        const zh = await openPage({ lang: 'zh' });
        try {
          const portal = consolePage(zh.page, baseUrl);
          await signInToPortal(zh.page, baseUrl, BINDER_ZH, BINDER_PASSWORD);
          await zh.page.getByRole('heading', { name: '绑定密钥' }).waitFor();
          await zh.page.getByRole('link', { name: '软锁' }).click();
          await zh.page.getByLabel('软锁 ID').fill('SOFTLOCK-0001');
          await zh.page.locator('#public-key').fill(publicKey);
          await zh.page.locator('#signature').fill(signed('tessera-ukey:v1:not-the-challenge'));
          await zh.page.getByRole('button', { name: '绑定密钥' }).click();
          await zh.page.getByText('签名未通过').waitFor();
          assert.equal(await zh.page.locator('#key-id').inputValue(), 'SOFTLOCK-0001');
          await portal.expectNoRawPhraseKeys();
          await portal.screenshot('ukey-sign-in-bind.zh');
        } finally {
          await zh.context.close();
        }
      } finally {
        await ui.api('/api/v1/manage/safety/mfa/update', policy.data, companyId);
      }
    },
  );

  test('UKEY dialog in Chinese at 1280 and 900 px', async () => {
    assert.ok(s.server && userId);
    const { context, page } = await openPage({ lang: 'zh' });
    const ui = consolePage(page, s.server.baseUrl);
    try {
      await ui.signIn(`/dev/org/user-detail?id=${userId}`, s.adminPassword);
      const card = page.getByTestId('user-mfa');
      await card.getByText(KEY_NAME).waitFor();
      await card.getByTestId('bind-key').click();
      const dialog = page.getByRole('dialog').filter({ hasText: '为 Una Ukey 绑定密钥' });
      await motionSettled(page);
      await dialog.getByText('类型', { exact: true }).waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('ukey-bind.zh');
    } finally {
      await context.close();
    }
  });
}
