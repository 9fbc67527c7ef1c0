import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { radclient, radclientPath } from '../../packages/server/src/test/radclient.ts';
import { consolePage, fieldMessagesGone, motionSettled } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const CLIENT_NAME = 'Office VPN';
const CA_NAME = 'Acme Root CA';
const NAS_IP = '192.0.2.10';

/** Picks an option of the antd select labelled `label` in `dialog` and waits until it is shown as chosen. */
async function choose(page: Page, dialog: Locator, label: string, option: string) {
  await dialog.getByRole('combobox', { name: label }).click();
  await motionSettled(page);
  await page
    .locator(
      `.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option[title="${option}"]`,
    )
    .click();
  await dialog.locator('.ant-select', { hasText: option }).waitFor();
}

/**
 * RADIUS and certificate authorities: a RADIUS client added with its secret shown once (and a real
 * radclient signing in through it, shown in the sign-in log), a CA created, a certificate issued
 * as PKCS#12 and revoked; both screens in English and Chinese at 1280 and 900 px.
 */
export function radiusCaFlows(s: Suite) {
  const { devSession, devFlow, openPage } = s;

  devFlow(
    'RADIUS: a client is added with its secret shown once, and radclient signs in through it',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      await page.goto(`${s.server.baseUrl}/dev/safety-management/radius`);
      await page.getByTestId('radius-server').getByText(`UDP port ${s.server.radiusPort}`).waitFor();
      await ui.expectNoRawPhraseKeys();

      await page.getByRole('button', { name: 'Add client' }).click();
      const dialog = page.getByRole('dialog').filter({ hasText: 'Add a RADIUS client' });
      await motionSettled(page);
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await dialog.getByText('Please enter the name of the RADIUS client').waitFor();
      await dialog.getByText('Please enter the IP address or CIDR range the client sends from').waitFor();
      await dialog.getByLabel('Name', { exact: true }).fill(CLIENT_NAME);
      await dialog.getByLabel('Source IP or CIDR').fill('10.0.0.300');
      await fieldMessagesGone(dialog);
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      // The server's wording, on the field.
      await dialog.getByText('Enter an IPv4 or IPv6 address, or a CIDR range such as 10.0.0.0/24').waitFor();
      await dialog.getByLabel('Source IP or CIDR').fill('127.0.0.1');
      await fieldMessagesGone(dialog);
      await ui.screenshot('radius-client-form.en', [1280]);
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();

      const secret = (await page.getByTestId('secret-once').innerText()).trim();
      assert.match(secret, /^\S{16,}$/);
      s.secrets.push(secret);
      await page.getByText(`Shared secret of ${CLIENT_NAME}`).waitFor();
      await motionSettled(page);
      await page.getByRole('button', { name: 'I have saved it' }).click();
      await page.getByTestId('secret-once').waitFor({ state: 'detached' });
      const row = page.getByTestId('radius-clients').getByRole('row').filter({ hasText: CLIENT_NAME });
      await row.getByText('127.0.0.1').waitFor();
      assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown again');

      if (radclientPath) {
        const reply = await radclient(s.server.radiusPort, secret, {
          'User-Name': 'admin',
          'User-Password': s.adminPassword,
          'Message-Authenticator': '0x00',
          'NAS-IP-Address': NAS_IP,
          'Calling-Station-Id': '02-00-5e-00-53-01',
        });
        assert.equal(reply.code, 'Access-Accept', reply.output);
        // The sign-in log shows the NAS and the calling station of the RADIUS sign-in.
        await page.goto(`${s.server.baseUrl}/dev/log/index`);
        await page
          .getByTestId('sign-in-nas')
          .filter({ hasText: `NAS ${NAS_IP} · Caller 02-00-5e-00-53-01` })
          .first()
          .waitFor();
        await page.goto(`${s.server.baseUrl}/dev/safety-management/radius`);
        await row.waitFor();
      }
      await ui.screenshot('radius.en');
    },
  );

  devFlow(
    'CA: created with ECC P-256, a PKCS#12 issued with its password shown once, then revoked',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      await page.goto(`${s.server.baseUrl}/dev/safety-management/ca`);
      await page.getByTestId('ca-list').waitFor();
      await ui.expectNoRawPhraseKeys();

      // Import needs the CA file (spec §5).
      await page.getByRole('button', { name: 'Import CA' }).click();
      const importing = page.getByRole('dialog').filter({ hasText: 'Import a certificate authority' });
      await motionSettled(page);
      await importing.getByLabel('Name', { exact: true }).fill('Imported');
      await importing.getByRole('button', { name: 'Import', exact: true }).click();
      await importing.getByText('Please choose the CA file').waitFor();
      await importing.getByRole('button', { name: 'Cancel' }).click();

      await page.getByRole('button', { name: 'Create CA' }).click();
      const creating = page.getByRole('dialog').filter({ hasText: 'Create a certificate authority' });
      await motionSettled(page);
      await creating.getByRole('button', { name: 'Create', exact: true }).click();
      await creating.getByText('Please enter the name of the certificate authority').waitFor();
      await creating.getByLabel('Name', { exact: true }).fill(CA_NAME);
      await creating.getByText('ECC', { exact: true }).click();
      await creating.getByTitle('P-256').waitFor();
      await fieldMessagesGone(creating);
      await ui.screenshot('ca-create.en', [1280]);
      await creating.getByRole('button', { name: 'Create', exact: true }).click();
      await ui.expectMessage(`The certificate authority “${CA_NAME}” was created`);

      await page.getByTestId('ca-list').getByRole('link', { name: CA_NAME }).click();
      const crl = page.getByTestId('crl-url');
      await crl.waitFor();
      const crlUrl = (await crl.locator('a').getAttribute('href')) ?? '';
      const published = await fetch(crlUrl);
      assert.equal(published.status, 200, `the CRL is published at ${crlUrl}`);

      await page.getByRole('button', { name: 'Issue certificate' }).click();
      const issuing = page.getByRole('dialog').filter({ hasText: 'Issue a certificate' });
      await motionSettled(page);
      await issuing.getByRole('button', { name: 'Issue', exact: true }).click();
      await issuing.getByText('Please choose the person').waitFor();
      await choose(page, issuing, 'Person', 'admin');
      await issuing.getByRole('button', { name: 'Issue', exact: true }).click();
      const password = (await page.getByTestId('secret-once').innerText()).trim();
      assert.ok(password.length >= 12, 'a one-time PKCS#12 password');
      s.secrets.push(password);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download PKCS#12' }).click(),
      ]);
      assert.match(download.suggestedFilename(), /\.p12$/);
      await motionSettled(page);
      await page.getByRole('button', { name: 'I have saved it' }).click();

      const row = page.getByTestId('certificate-list').getByRole('row').filter({ hasText: 'admin' });
      await row.getByText('Valid', { exact: true }).waitFor();
      await row.getByRole('button', { name: 'Revoke' }).click();
      const revoking = page.getByRole('dialog').filter({ hasText: 'Revoke the certificate of admin?' });
      await motionSettled(page);
      await choose(page, revoking, 'Reason', 'Key compromised');
      await ui.screenshot('ca-revoke.en', [1280]);
      await revoking.getByRole('button', { name: 'Revoke' }).click();
      await row.getByText('Revoked', { exact: true }).waitFor();
      await row.getByText(/Key compromised/).waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('ca-detail.en');
      await page.getByRole('link', { name: 'All certificate authorities' }).click();
      await page.getByTestId('ca-list').getByText('0 valid · 1 revoked').waitFor();
      await ui.screenshot('ca.en');
    },
  );

  test('RADIUS and CA screens in Chinese at 1280 and 900 px', async () => {
    assert.ok(s.server);
    const { context, page } = await openPage({ lang: 'zh' });
    const ui = consolePage(page, s.server.baseUrl);
    try {
      await ui.signIn('/dev/safety-management/radius', s.adminPassword);
      await page.getByTestId('radius-clients').getByText(CLIENT_NAME).waitFor();
      await page.getByText('RADIUS 客户端', { exact: true }).waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('radius.zh');
      await page.getByRole('button', { name: '添加客户端' }).click();
      await page.getByRole('dialog').getByText('添加 RADIUS 客户端').waitFor();
      await ui.screenshot('radius-client-form.zh', [1280, 900]);
      await page.getByRole('dialog').getByRole('button', { name: '取消' }).click();

      await page.goto(`${s.server.baseUrl}/dev/safety-management/ca`);
      await page.getByTestId('ca-list').getByRole('link', { name: CA_NAME }).waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('ca.zh');
      await page.getByTestId('ca-list').getByRole('link', { name: CA_NAME }).click();
      await page.getByTestId('certificate-list').getByText('已吊销', { exact: true }).waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('ca-detail.zh');
    } finally {
      await context.close();
    }
  });
}
