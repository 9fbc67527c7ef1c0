import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startLegacyFormApp } from '../../packages/server/src/test/legacy-form-app.ts';
import {
  callsThatMustSucceed,
  chooseTab,
  consolePage,
  motionSettled,
  signInToPortal,
} from '../support/console.page.ts';
import { startRelyingParty } from '../support/relying-party.ts';
import { APP_USER, APP_USER_PASSWORD, type Suite } from '../support/suite.ts';

type Console = ReturnType<typeof consolePage>;

const FORM_PASSWORD = 'Intranet-robot-pass-5';
const HTTP_REFUSED = 'The password is posted to this address: use https (http is allowed for localhost only)';

/**
 * Applications: an app added in the console signs its user in from My apps, until the user is
 * taken off it; a form-fill app signs its user in with the form posted for them.
 */
export function appFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  devFlow(
    'an application added in the console signs its user in from My apps, until the user is taken off it',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      const base = s.server.baseUrl;
      await ui.createUser(APP_USER, APP_USER_PASSWORD);
      const rp = await startRelyingParty(`${base}/oidc`, s.secrets);
      try {
        // The administrator adds the app; its secret is shown once.
        await page.goto(`${base}/dev/application/index`);
        await page.getByRole('button', { name: 'Add application' }).click();
        const dialog = page.getByRole('dialog');
        await motionSettled(page);
        await dialog.getByLabel('Name', { exact: true }).fill('Team wiki');
        await dialog.getByRole('button', { name: 'Add', exact: true }).click();
        const secret = (await page.getByTestId('secret-once').innerText()).trim();
        assert.ok(secret.length >= 40, 'the client secret is shown');
        s.secrets.push(secret);
        await motionSettled(page);
        await page.getByRole('button', { name: 'I have saved it' }).click();
        await page.waitForURL(/\/dev\/application\/detail\?/);

        await chooseTab(page, 'Protocol');
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
        await chooseTab(page, 'Access');
        await ui.assignOnlyUser(APP_USER);
        await ui.expectNoRawPhraseKeys();
        await assignDepartmentAndRole(page, ui, base);
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
  devFlow(
    'a form-fill app: its login address must be protected, and My apps posts its form for the user',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      const base = s.server.baseUrl;
      // Its login answers with a redirect to its other host: the launch page must not stop it.
      const legacy = await startLegacyFormApp({
        users: { 'intranet.robot': FORM_PASSWORD },
        tenant: 'acme',
        crossOriginHome: true,
      });
      s.secrets.push(FORM_PASSWORD);
      try {
        const created = await ui.api<{ app: { appId: string } }>(
          '/api/v1/manage/app/create',
          { name: 'Old intranet', protocol: 'form' },
          await ui.companyId(),
        );
        assert.equal(created.code, 200, created.msg);
        const appId = created.data.app.appId;
        await page.goto(`${base}/dev/application/detail?appId=${appId}&tab=form`);
        const form = page.getByTestId('form-fill');
        await form.getByLabel('Login URL').fill('http://intranet.example.com/login');
        await form.getByLabel('User name field').fill('login_user');
        await form.getByLabel('Password field').fill('login_pass');
        await form.getByRole('button', { name: 'Add field' }).click();
        await form.getByLabel('Field name').fill('tenant');
        await form.getByLabel('Value').fill('acme');
        await form.getByText('One shared account').click();
        await form.getByLabel('Shared user name').fill('intranet.robot');
        await form.getByLabel('Shared password').fill(FORM_PASSWORD);
        await form.getByRole('button', { name: 'Save' }).click();
        await form.getByText(HTTP_REFUSED).waitFor();
        // The legacy app listens on the loopback address: http is allowed there.
        await form.getByLabel('Login URL').fill(legacy.loginUrl);
        await form.getByRole('button', { name: 'Save' }).click();
        await ui.expectMessage('Saved');
        await page.getByRole('button', { name: 'Enable', exact: true }).click();
        await page.getByText('Opened', { exact: true }).first().waitFor();

        const { context, page: portal } = await openPage();
        try {
          await signInToPortal(portal, base, APP_USER, APP_USER_PASSWORD);
          await portal.waitForURL(`${base}/portal/account`);
          await portal.goto(`${base}/portal/apps`);
          // Open: the launch page's script (form-launch.js) posts the app's form at once.
          await portal.locator(`li[data-app-id="${appId}"] button[type=submit]`).click();
          await portal.getByRole('heading', { name: 'Welcome intranet.robot' }).waitFor();
          assert.deepEqual(legacy.posts, [
            { login_user: 'intranet.robot', login_pass: FORM_PASSWORD, tenant: 'acme' },
          ]);
        } finally {
          await context.close();
        }
      } finally {
        await legacy.close();
      }
    },
  );
}

/**
 * Issue 35: a department (its sub departments included) and a permission role are assigned on the
 * Access tab with the tree and role pickers; the tab is photographed in both languages.
 */
async function assignDepartmentAndRole(page: Page, ui: Console, base: string) {
  const companyId = await ui.companyId();
  const made = callsThatMustSucceed(ui, companyId);
  const root = (await made<{ tree: { departmentId: string } }>('/api/v1/manage/department/tree', {})).tree;
  const sales = await made<{ departmentId: string }>('/api/v1/manage/department/create', {
    name: 'Wiki sales',
    parentId: root.departmentId,
  });
  await made('/api/v1/manage/department/create', { name: 'Wiki sales east', parentId: sales.departmentId });
  await made('/api/v1/manage/permission/role/create', { name: 'Wiki editors', description: 'Edit the wiki' });

  await page.getByRole('button', { name: 'Assign departments or roles' }).click();
  const dialog = page.getByRole('dialog');
  await motionSettled(page);
  await dialog.getByRole('combobox').first().click();
  await page.locator('.ant-select-tree-title', { hasText: /^Wiki sales$/ }).click();
  // A multiple picker stays open after a choice: closed by a click elsewhere in the dialog.
  const closePicker = () => dialog.locator('.ant-modal-title').click();
  await closePicker();
  await dialog.getByRole('combobox').nth(1).click();
  await motionSettled(page);
  await page.locator('.ant-select-item-option', { hasText: 'Wiki editors' }).click();
  await closePicker();
  await dialog.getByRole('button', { name: 'Assign', exact: true }).click();
  const table = page.getByTestId('group-assignments');
  await table.getByText('Wiki editors').waitFor();
  await table.getByText('Wiki sales', { exact: true }).waitFor();
  await ui.expectNoRawPhraseKeys();
  // The dialog left the page scrolled: photographed from the top, as the other screens are.
  await page.evaluate(() => window.scrollTo(0, 0));
  await ui.screenshot('app-access.en');

  await page.context().addCookies([{ name: 'lang', value: 'zh', url: base }]);
  await page.reload();
  await page.getByText('已授权部门和角色').waitFor();
  await page.getByTestId('group-assignments').getByText('Wiki editors').waitFor();
  await ui.expectNoRawPhraseKeys();
  await ui.screenshot('app-access.zh');
  await page.context().addCookies([{ name: 'lang', value: 'en', url: base }]);
  await page.reload();
  await page.getByTestId('assignments').getByText(APP_USER).first().waitFor();
}
