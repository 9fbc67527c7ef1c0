import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { test } from 'node:test';
import { consolePage, signInToPortal } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const PERSON = 'una.ukey';
const PERSON_PASSWORD = 'Una-ukey-2026';
const KEY_NAME = 'Una desk UKEY';

/**
 * UKEY factors (issue 17): an administrator binds a person's key on the user's page (the key's
 * public key pasted; required fields refused first), and the person signs in with it: the
 * second-factor page shows a single-use challenge, signed here by Node's own ECDSA (not the
 * Tessera helper), as a vendor's middleware would. The dialog and the key page in English and
 * Chinese at 1280 and 900 px.
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
      await dialog.getByText('类型', { exact: true }).waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('ukey-bind.zh');
    } finally {
      await context.close();
    }
  });
}
