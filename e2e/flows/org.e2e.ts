import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { hostileWorkbooks } from '../../packages/server/src/test/workbooks.ts';
import { motionSettled, signInToPortal } from '../support/console.page.ts';
import { NEWCOMER, NEWCOMER_FIRST_PASSWORD, NEWCOMER_NEW_PASSWORD, type Suite } from '../support/suite.ts';

/** Organisation: a new user with a forced password change, import, departments. */
export function orgFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  devFlow(
    'a new user with a forced password change signs in through the portal and must choose a new one',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      await page.goto(`${s.server.baseUrl}/dev/org/user`);
      await page.getByRole('button', { name: 'Create user' }).first().click();
      const dialog = page.getByRole('dialog');
      await motionSettled(page);
      await dialog.getByLabel('Username', { exact: true }).fill(NEWCOMER);
      await dialog.getByLabel('Name', { exact: true }).fill('Nora Newcomer');
      await dialog.getByLabel('Email', { exact: true }).fill(`${NEWCOMER}@example.com`);
      await dialog.getByLabel('Password', { exact: true }).fill(NEWCOMER_FIRST_PASSWORD);
      await dialog.getByLabel('Confirm password').fill(NEWCOMER_FIRST_PASSWORD);
      const forced = dialog.getByLabel('Must change the password at the next sign-in');
      if (!(await forced.isChecked())) await forced.check();
      await dialog.getByRole('button', { name: 'Create user' }).click();
      await ui.expectMessage(`${NEWCOMER} was created`);
      await page.getByTestId('users').getByText(NEWCOMER, { exact: true }).waitFor();
      await ui.expectNoRawPhraseKeys();

      // The new user, in a browser of their own, opens their user centre.
      const { context, page: portal } = await openPage();
      try {
        await signInToPortal(portal, s.server.baseUrl, NEWCOMER, NEWCOMER_FIRST_PASSWORD);
        await portal.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        // Going around the step does not reach the user centre.
        await signInToPortal(portal, s.server.baseUrl, NEWCOMER, NEWCOMER_FIRST_PASSWORD);
        await portal.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        await portal.getByLabel('New password', { exact: true }).fill('Short-1');
        await portal.getByLabel('Confirm the new password').fill('Short-2');
        await portal.locator('button.primary[type=submit]').click();
        await portal.getByRole('alert').waitFor();
        await portal.getByLabel('New password', { exact: true }).fill(NEWCOMER_NEW_PASSWORD);
        await portal.getByLabel('Confirm the new password').fill(NEWCOMER_NEW_PASSWORD);
        await portal.locator('button.primary[type=submit]').click();
        await portal.waitForURL(`${s.server.baseUrl}/portal/account`);
        await portal.getByRole('heading', { name: 'My account' }).waitFor();
        await portal.getByText(`${NEWCOMER}@example.com`).waitFor();
      } finally {
        await context.close();
      }
      // The console shows the change is done.
      await page.reload();
      await page.getByTestId('users').getByText(NEWCOMER, { exact: true }).click();
      await page.waitForURL(/\/dev\/org\/user-detail\?/);
      await page.getByText('Nora Newcomer').first().waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('user-detail.en');
    },
  );

  devFlow('an .xlsx of 200 users is imported and listed', async () => {
    assert.ok(s.server);
    const { page, ui } = await devSession();
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Users');
    sheet.addRow(['Username', 'Name', 'Nickname', 'Email', 'Phone', 'Departments', 'Password']);
    for (let i = 1; i <= 200; i++) {
      const n = String(i).padStart(3, '0');
      sheet.addRow([
        `imported.${n}`,
        `Imported Person ${n}`,
        '',
        `imported.${n}@example.com`,
        `+86139000${n}00`,
        '',
        // Without mail on the platform, imported people need a password to sign in.
        `Imported-Pass-${n}`,
      ]);
    }
    const file = join(s.vendorDir, 'people.xlsx');
    await writeFile(file, Buffer.from(await workbook.xlsx.writeBuffer()));

    await page.goto(`${s.server.baseUrl}/dev/org/user`);
    // The button's name ends with its label (after its icon's); rows name people such as imported.089.
    await page.getByRole('button', { name: /Import$/ }).click();
    const dialog = page.getByRole('dialog');
    await motionSettled(page);
    await dialog.locator('input[type=file]').setInputFiles(file);
    await dialog.getByText('Users imported from people.xlsx: 200').waitFor({ timeout: 60_000 });
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await page.getByPlaceholder('Name, username, email or phone').fill('imported.');
    await page.getByPlaceholder('Name, username, email or phone').press('Enter');
    await page.getByText('Users: 200').waitFor();
    await page.getByPlaceholder('Name, username, email or phone').fill('imported.200');
    await page.getByPlaceholder('Name, username, email or phone').press('Enter');
    await page.getByTestId('users').getByText('Imported Person 200', { exact: true }).waitFor();
    await page.getByText('Users: 1', { exact: true }).waitFor();
    await ui.screenshot('users-imported.en', [1280]);
  });

  devFlow(
    'a workbook that inflates to hundreds of MiB fails with its reason; the console keeps answering',
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      const file = join(s.vendorDir, 'bomb.xlsx');
      await writeFile(file, await hostileWorkbooks.lyingSizes());
      await page.goto(`${s.server.baseUrl}/dev/org/user`);
      // The button's name ends with its label (after its icon's); rows name people such as imported.089.
      await page.getByRole('button', { name: /Import$/ }).click();
      const dialog = page.getByRole('dialog');
      await motionSettled(page);
      await dialog.locator('input[type=file]').setInputFiles(file);
      // The upload is answered at once: the file is read later, in a worker.
      await dialog.getByText('Nothing was imported from bomb.xlsx').waitFor({ timeout: 60_000 });
      await dialog
        .getByText('The file is damaged: its contents do not match the sizes and checksums written in it', {
          exact: false,
        })
        .waitFor();
      await ui.screenshot('import-failed.en', [1280]);
      await dialog.getByRole('button', { name: 'Close' }).first().click();
      await page.reload();
      await page.getByTestId('users').waitFor();
    },
  );

  devFlow('a department with sub departments cannot be deleted', async () => {
    assert.ok(s.server);
    const { page, ui } = await devSession();
    const companyId = await ui.companyId();
    const tree = await ui.api<{ tree: { departmentId: string } }>(
      '/api/v1/manage/department/tree',
      {},
      companyId,
    );
    const parent = await ui.api<{ departmentId: string }>(
      '/api/v1/manage/department/create',
      { name: 'Field Operations', parentId: tree.data.tree.departmentId },
      companyId,
    );
    assert.equal(parent.code, 200, parent.msg);
    const child = await ui.api(
      '/api/v1/manage/department/create',
      { name: 'Field Support', parentId: parent.data.departmentId },
      companyId,
    );
    assert.equal(child.code, 200, child.msg);

    await page.goto(`${s.server.baseUrl}/dev/org/department`);
    await page.getByRole('tree').getByText('Field Operations', { exact: true }).click();
    await page.getByRole('button', { name: /(^|\s)Delete$/ }).click();
    await page.locator('.ant-modal-confirm-btns .ant-btn-dangerous').click();
    await ui.expectMessage(
      'Please delete all sub departments before proceeding with the delete department operation!',
    );
    await page.getByRole('tree').getByText('Field Operations', { exact: true }).waitFor();
    const after = await ui.api<{ tree: unknown }>('/api/v1/manage/department/tree', {}, companyId);
    assert.match(JSON.stringify(after.data.tree), /Field Support/);
  });
}
