import assert from 'node:assert/strict';
import { startTestServiceProvider } from '../../packages/server/src/test/saml-sp.ts';
import { chooseTab, consolePage, motionSettled } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const SAML_USER = 'sam.saml';
const SAML_USER_PASSWORD = 'Sam-pass-2026';
const INSIDE_REFUSED =
  '169.254.169.254 is a cloud metadata, multicast or otherwise special address, which this server never connects to for companies';

/**
 * SAML applications: an administrator adds one from its service provider's metadata (a real
 * SAML SP, @node-saml/node-saml, on 127.0.0.1), and a person signs in at the service provider
 * (SP-initiated, on Tessera's sign-in page) and from My apps (IdP-initiated, single sign-on).
 */
export function samlFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  devFlow(
    'a SAML app added from its metadata signs its user in at the service provider and from My apps',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      const base = s.server.baseUrl;
      s.secrets.push(SAML_USER_PASSWORD);
      await ui.createUser(SAML_USER, SAML_USER_PASSWORD);
      const sp = await startTestServiceProvider();
      try {
        await page.goto(`${base}/dev/application/index`);
        await page.getByRole('button', { name: 'Add application' }).click();
        const dialog = page.getByRole('dialog');
        await motionSettled(page);
        await dialog.getByLabel('Name', { exact: true }).fill('Team docs');
        // check() clicks until the radio is checked and fails if it does not become so.
        await dialog.getByRole('radio', { name: /^SAML 2\.0 single sign-on/ }).check();
        await dialog.getByRole('button', { name: 'Add', exact: true }).click();
        await page.waitForURL(/\/dev\/application\/detail\?/);
        const appId = new URL(page.url()).searchParams.get('appId') as string;
        await chooseTab(page, 'SAML');

        // A metadata URL at the cloud metadata address: the server does not fetch it.
        await page.getByTestId('saml-import').click();
        const importer = page.getByRole('dialog');
        await motionSettled(page);
        await chooseTab(importer, 'From a URL', false);
        await importer.getByTestId('saml-import-url').fill('http://169.254.169.254/latest/meta-data/');
        await importer.getByTestId('saml-import-submit').click();
        await page.getByText(INSIDE_REFUSED).first().waitFor();
        // The metadata file, uploaded.
        await chooseTab(importer, 'Upload a file', false);
        await importer.locator('input[type=file]').setInputFiles({
          name: 'sp-metadata.xml',
          mimeType: 'application/xml',
          buffer: Buffer.from(sp.metadata),
        });
        await importer.getByText('sp-metadata.xml is read').waitFor();
        await importer.getByTestId('saml-import-submit').click();
        await ui.expectMessage('The metadata is imported');
        const form = page.getByTestId('saml-form');
        assert.equal(await form.getByLabel('Entity ID').inputValue(), sp.entityId);
        assert.equal(await form.getByLabel('ACS URL').first().inputValue(), `${sp.baseUrl}/acs`);
        await form.getByRole('button', { name: 'Add an attribute' }).click();
        await form.getByLabel('Attribute name').last().fill('uid');
        await form.getByRole('combobox', { name: 'Value' }).last().click();
        await motionSettled(page);
        await page.locator('.ant-select-item-option', { hasText: 'Username' }).click();
        await form.locator('.ant-select', { hasText: 'Username' }).last().waitFor();
        await form.getByRole('button', { name: 'Save' }).click();
        await ui.expectMessage('Saved');
        await page.getByRole('button', { name: 'Enable', exact: true }).click();
        await page.getByText('Opened', { exact: true }).first().waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot('app-saml.en');

        // The service provider is given the company's identity provider.
        const idp = await ui.api<{
          entityId: string;
          ssoUrl: string;
          sloUrl: string;
          certificates: { pem: string }[];
        }>('/api/v1/manage/app/saml/idp', {}, await ui.companyId());
        const metadataUrl = (await page.getByTestId('saml-idp-metadata-url').innerText()).trim();
        assert.equal(metadataUrl, `${base}/saml/${await ui.companyId()}/metadata`);
        sp.useIdp({
          ...idp.data,
          certificates: idp.data.certificates.map((c) => c.pem.replace(/-----[A-Z ]+-----|\s+/g, '')),
        });

        const { context, page: person } = await openPage();
        try {
          // SP-initiated: the service provider sends the person to Tessera's sign-in page.
          await person.goto(`${sp.baseUrl}/login?binding=redirect`);
          const shots = consolePage(person, base);
          await shots.expectSignInPage();
          await person.getByText('Team docs').first().waitFor();
          await shots.submitSignIn(SAML_USER, SAML_USER_PASSWORD);
          await person.waitForURL(`${sp.baseUrl}/acs`);
          const signedIn = JSON.parse(await person.locator('body').innerText());
          assert.equal(signedIn.profile.nameID, SAML_USER);
          assert.equal(signedIn.profile.uid, SAML_USER);

          // IdP-initiated from My apps, inside the single sign-on session.
          await person.goto(`${base}/portal/apps`);
          await person.locator(`li[data-app-id="${appId}"]`).getByText('Open', { exact: true }).click();
          await person.waitForURL(`${sp.baseUrl}/acs`);
          assert.equal(JSON.parse(await person.locator('body').innerText()).profile.nameID, SAML_USER);
        } finally {
          await context.close();
        }

        // The same tab in Chinese.
        const { context: zhContext, page: zhPage } = await openPage({ lang: 'zh' });
        try {
          const zh = consolePage(zhPage, base);
          await zh.signIn(`/dev/application/detail?appId=${appId}&tab=saml`, s.adminPassword);
          await zhPage.getByText('本公司的身份提供方（IdP）').waitFor();
          await zh.expectNoRawPhraseKeys();
          await zh.screenshot('app-saml.zh');
        } finally {
          await zhContext.close();
        }
      } finally {
        await sp.close();
      }
    },
  );
}
