import assert from 'node:assert/strict';
import { consolePage, signInToPortal } from '../support/console.page.ts';
import { startRelyingParty } from '../support/relying-party.ts';
import { APP_USER, APP_USER_PASSWORD, type Suite } from '../support/suite.ts';

/** Applications: an app added in the console signs its user in from My apps, until the user is taken off it. */
export function appFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  devFlow(
    'an application added in the console signs its user in from My apps, until the user is taken off it',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      const base = s.server.baseUrl;
      await ui.createUser(APP_USER, APP_USER_PASSWORD);
      const rp = await startRelyingParty(`${base}/oidc`);
      try {
        // The administrator adds the app; its secret is shown once.
        await page.goto(`${base}/dev/application/index`);
        await page.getByRole('button', { name: 'Add application' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel('Name', { exact: true }).fill('Team wiki');
        await dialog.getByRole('button', { name: 'Add', exact: true }).click();
        const secret = (await page.getByTestId('secret-once').innerText()).trim();
        assert.ok(secret.length >= 40, 'the client secret is shown');
        await page.getByRole('button', { name: 'I have saved it' }).click();
        await page.waitForURL(/\/dev\/application\/detail\?/);

        await page.getByRole('tab', { name: 'Protocol', exact: true }).click();
        const clientId = (await page.getByTestId('client-id').innerText()).trim();
        const form = page.getByTestId('protocol-form');
        await form.getByRole('button', { name: 'Add address' }).first().click();
        await form.getByLabel('Login callback URLs 1').fill(rp.redirectUri);
        await form.getByLabel('Initiate login URI').fill(rp.loginUrl);
        await form.getByRole('button', { name: 'Save' }).click();
        await ui.expectMessage('Saved');
        await page.getByRole('button', { name: 'Enable', exact: true }).click();
        await page.getByText('Opened', { exact: true }).first().waitFor();

        // Only assigned users, and the user is assigned.
        await page.getByRole('tab', { name: 'Access', exact: true }).click();
        await page.getByRole('radio', { name: /Only assigned users/ }).click();
        await ui.expectMessage('Saved');
        await page.getByRole('button', { name: 'Assign users' }).click();
        const assign = page.getByRole('dialog');
        await assign.getByRole('combobox').fill(APP_USER);
        await page.locator('.ant-select-item-option', { hasText: APP_USER }).first().click();
        await assign.getByRole('button', { name: 'Assign', exact: true }).click();
        await page.getByTestId('assignments').getByText(APP_USER).first().waitFor();
        await ui.expectNoRawPhraseKeys();
        rp.configure(clientId, secret);

        // The user opens it from My apps: the app starts the sign-in, the session is reused.
        const { context, page: portal } = await openPage();
        try {
          await signInToPortal(portal, base, APP_USER, APP_USER_PASSWORD);
          await portal.waitForURL(`${base}/portal/account`);
          await portal.goto(`${base}/portal/apps`);
          const shots = consolePage(portal, base);
          await shots.screenshot('my-apps.en');
          await portal.goto(`${base}/portal/apps?lang=zh`);
          await portal.getByRole('heading', { name: '我的应用' }).waitFor();
          await shots.screenshot('my-apps.zh');
          await portal.goto(`${base}/portal/apps?lang=en`);
          await portal.getByText('Open', { exact: true }).first().click();
          await portal.locator('#greeting').waitFor();
          assert.equal(await portal.locator('#greeting').innerText(), `Signed in as ${APP_USER}`);

          // Taken off the app in the console...
          const row = page.getByTestId('assignments').locator('tr', { hasText: APP_USER });
          await row.getByRole('button', { name: 'Remove' }).click();
          await page.locator('.ant-modal-confirm-btns .ant-btn-dangerous').click();
          await ui.expectMessage(`${APP_USER} is taken off the application`);

          // ...the app is gone from My apps, and signing in to it is refused.
          await portal.goto(`${base}/portal/apps`);
          await portal.getByText('No applications are available to you yet.').waitFor();
          await portal.goto(rp.loginUrl);
          await portal.getByRole('heading', { name: 'No access' }).waitFor();
          await portal.getByText('You have not been given access to this application').waitFor();
          await shots.screenshot('no-access.en', [1280]);
          assert.ok(!portal.url().startsWith(rp.baseUrl), 'the relying party never got a code');
        } finally {
          await context.close();
        }
      } finally {
        await rp.stop();
      }
    },
  );
}
