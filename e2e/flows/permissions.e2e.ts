import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { chooseTab, consolePage, fieldMessagesGone, motionSettled } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const APP = 'Ledger';
const RESOURCE = 'invoices';
const ROLE = 'Approvers';
const MEMBER = 'pia.perm';
const MEMBER_PASSWORD = 'Pia-perm-2026';
const OUTSIDER = 'ray.perm';
const OUTSIDER_PASSWORD = 'Ray-perm-2026';

/**
 * Picks `option` in the antd select labelled `label` inside `scope` (typing it first to search);
 * a multiple select's list stays open, and is closed by clicking the dialog's title.
 */
async function pick(page: Page, scope: Locator, label: string, option: string, multiple = false) {
  const box = scope.getByLabel(label, { exact: true });
  await box.click();
  if (await box.isEditable()) await box.fill(option);
  await motionSettled(page);
  await page
    .locator('.ant-select-dropdown:visible .ant-select-item-option')
    .filter({ hasText: option })
    .first()
    .click();
  if (multiple) {
    await scope.locator('.ant-modal-title').click();
    await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'hidden' });
  }
}

/**
 * Permissions (issue 15): a resource, a role with a member and an authorization created on the
 * screens (required fields refused first, in English and Chinese); the authorization shows who
 * gains access before it is saved; "check access" explains the verdict.
 */
export function permissionFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;

  devFlow(
    'permissions: a resource, a role with a member, an authorization previewed, then checked',
    async () => {
      assert.ok(s.server);
      const base = `${s.server.baseUrl}/dev`;
      const { page, ui } = await devSession();
      s.secrets.push(MEMBER_PASSWORD, OUTSIDER_PASSWORD);
      const companyId = await ui.companyId();
      const app = await ui.api<{ app: { appId: string }; clientSecret: string }>(
        '/api/v1/manage/app/create',
        { name: APP },
        companyId,
      );
      assert.equal(app.code, 200, app.msg);
      s.secrets.push(app.data.clientSecret);
      await ui.createUser(MEMBER, MEMBER_PASSWORD, { name: 'Pia Perm' });
      await ui.createUser(OUTSIDER, OUTSIDER_PASSWORD, { name: 'Ray Perm' });

      // A resource: the name is required.
      await page.goto(`${base}/permission/index`);
      await page.getByRole('button', { name: 'New resource' }).click();
      let dialog = page.getByRole('dialog', { name: 'New resource' });
      await pick(page, dialog, 'Application', APP);
      await dialog.getByRole('button', { name: 'Create' }).click();
      await dialog.getByText('Please enter the resource name').waitFor();
      await dialog.getByLabel('Name', { exact: true }).fill(RESOURCE);
      const actions = dialog.getByLabel('Action types', { exact: true });
      await actions.fill('approve');
      await actions.press('Enter');
      await fieldMessagesGone(dialog);
      await ui.screenshot('permission-resource-dialog.en', [1280]);
      await dialog.getByRole('button', { name: 'Create' }).click();
      await ui.expectMessage(`Resource ${RESOURCE} created`);
      await page
        .getByTestId('resources')
        .getByRole('row')
        .filter({ hasText: RESOURCE })
        .getByText('approve')
        .waitFor();

      // A role: name and description are required.
      await chooseTab(page, 'Roles', false);
      await page.getByRole('button', { name: 'New role' }).click();
      dialog = page.getByRole('dialog', { name: 'New role' });
      await dialog.getByRole('button', { name: 'Create' }).click();
      await dialog.getByText('Please enter the role name').waitFor();
      await dialog.getByText('Please enter the role description').waitFor();
      await dialog.getByLabel('Name', { exact: true }).fill(ROLE);
      await dialog.getByLabel('Description', { exact: true }).fill('Approve invoices');
      await fieldMessagesGone(dialog);
      await dialog.getByRole('button', { name: 'Create' }).click();
      await ui.expectMessage(`Role ${ROLE} created`);
      await page.getByTestId('roles').getByRole('link', { name: ROLE }).click();
      await page.waitForURL(/\/dev\/permission\/role-detail\?id=/);

      // A member: nobody gains anything yet, the role authorizes nothing.
      await page.getByRole('button', { name: 'Add people' }).click();
      dialog = page.getByRole('dialog', { name: `Add people to ${ROLE}` });
      await pick(page, dialog, 'People', MEMBER, true);
      await dialog.getByRole('button', { name: 'Show the effect' }).click();
      await dialog.getByText('Nobody gains or loses access with this change.').waitFor();
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await ui.expectMessage('1 added to the role');
      await page.getByTestId('role-members').getByText(MEMBER).waitFor();

      // An authorization of the role: the preview names the member who gains, before it is saved.
      await page.getByRole('button', { name: 'New authorization' }).click();
      dialog = page.getByRole('dialog', { name: 'New authorization' });
      await pick(page, dialog, 'Application', APP);
      await dialog.getByRole('button', { name: 'Next: see the effect' }).click();
      await dialog.getByText('Please choose the resource').waitFor();
      await pick(page, dialog, 'Resources', RESOURCE, true);
      await dialog.getByText('Specific', { exact: true }).last().click();
      await pick(page, dialog, 'Actions', 'approve', true);
      await dialog.getByRole('button', { name: 'Next: see the effect' }).click();
      const impact = dialog.getByTestId('impact');
      await impact.getByText('Gain access: 1').waitFor();
      await impact.getByText(`Pia Perm (${MEMBER})`).waitFor();
      await impact.getByText(`${APP} · ${RESOURCE} · approve`).waitFor();
      assert.equal(await impact.getByText(OUTSIDER).count(), 0, 'only the member gains');
      await ui.screenshot('permission-preview.en');
      const before = await ui.api<{ total: number }>(
        '/api/v1/manage/permission/authorization/list',
        {},
        companyId,
      );
      assert.equal(before.data.total, 0, 'nothing is saved by the preview');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await ui.expectMessage('Authorization saved');
      await page.getByTestId('authorizations').getByText(RESOURCE).waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('permission-role-detail.en');

      // Check access: allowed through the role for the member; nothing matched for the outsider.
      await page.goto(`${base}/permission/index?tab=check`);
      const check = async (person: string) => {
        const form = page.locator('form[id=check]');
        await pick(page, form, 'Person', person);
        await pick(page, form, 'Application', APP);
        await pick(page, form, 'Resource', RESOURCE);
        await pick(page, form, 'Action', 'approve');
        await page.getByRole('button', { name: 'Check' }).click();
      };
      await check(MEMBER);
      const result = page.getByTestId('check-result');
      await result.getByText('Allowed', { exact: true }).waitFor();
      await result.getByText(`through the role ${ROLE}`).first().waitFor();
      await ui.screenshot('permission-check.en');
      await page.reload();
      await check(OUTSIDER);
      await result.getByText('Denied', { exact: true }).waitFor();
      await result.getByText('No rule gives this person this action on this resource: denied.').waitFor();
      await ui.expectNoRawPhraseKeys();
    },
  );

  devFlow('permissions: the screens in Chinese, with the required-field messages', async () => {
    assert.ok(s.server);
    const { page: signedIn } = await devSession();
    const { context, page } = await openPage({ lang: 'zh' });
    try {
      // The same console session, in a second browser tab with the Chinese cookie.
      // (Its language cookie stays Chinese: an earlier flow may have left the shared tab's at English.)
      await context.addCookies(
        (await signedIn.context().cookies()).filter((cookie) => cookie.name !== 'lang'),
      );
      const storage = await signedIn.evaluate(() => JSON.stringify(localStorage));
      await page.goto(`${s.server.baseUrl}/dev/404`);
      await page.evaluate((saved) => {
        for (const [key, value] of Object.entries(JSON.parse(saved) as Record<string, string>))
          localStorage.setItem(key, value);
      }, storage);
      const ui = consolePage(page, s.server.baseUrl);
      await page.goto(`${s.server.baseUrl}/dev/permission/index?tab=roles`);
      await page.getByTestId('roles').getByText(ROLE).waitFor();
      await page.getByRole('button', { name: '新建角色' }).click();
      const dialog = page.getByRole('dialog', { name: '新建角色' });
      await dialog
        .getByRole('button', { name: '创建' })
        .or(dialog.getByRole('button', { name: '创建' }))
        .click();
      await dialog.getByText('请输入角色名称').waitFor();
      await dialog.getByText('请输入角色描述').waitFor();
      await ui.screenshot('permission-role-dialog.zh');
      await dialog.getByRole('button', { name: /取\s?消/ }).click();
      await chooseTab(page, '资源', false);
      await page.getByTestId('resources').getByText(RESOURCE).waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('permission-index.zh');
    } finally {
      await context.close();
    }
  });
}
