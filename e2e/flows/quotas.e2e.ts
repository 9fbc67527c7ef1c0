import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { consolePage, motionSettled } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

export const QUOTA_COMPANY = 'Quota Works';
const QUOTA_ADMIN = 'quinn.quota';
const QUOTA_ADMIN_PASSWORD = 'Quinn-pass-2026';

/**
 * Company quotas (issue 12): the platform administrator sets a company's user quota on the
 * licence screen; the company's own administrator is then refused one user more, with the
 * message shown, and sees the company's quota and usage (not the installation's).
 */
export function quotaFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  let companyId = '';

  devFlow(
    "quotas: the platform administrator sets a company's user quota on the licence screen",
    async () => {
      assert.ok(s.server);
      const { page, ui } = await devSession();
      const created = await ui.api<{ companyId: string }>('/api/v1/manage/company/create', {
        name: QUOTA_COMPANY,
      });
      assert.equal(created.code, 200, created.msg);
      companyId = created.data.companyId;
      const admin = await ui.api(
        '/api/v1/manage/company/user/create',
        { username: QUOTA_ADMIN, role: 'admin', password: QUOTA_ADMIN_PASSWORD },
        companyId,
      );
      assert.equal(admin.code, 200, admin.msg);

      await page.goto(`${s.server.baseUrl}/dev/setting/license`);
      const section = page.getByTestId('company-quotas');
      await section.getByRole('searchbox', { name: 'Company name or ID' }).fill('quota');
      await section.getByRole('searchbox', { name: 'Company name or ID' }).press('Enter');
      const row = section.getByRole('row').filter({ hasText: QUOTA_COMPANY });
      // The default of the server's configuration (TESSERA_COMPANY_USER_QUOTA); the owner and the
      // administrator are the company's two users.
      await row.getByText('2 / 1,000').waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('license-quotas.en');

      await row.getByRole('button', { name: `Set quotas of ${QUOTA_COMPANY}` }).click();
      const dialog = page.getByRole('dialog', { name: `Quotas of ${QUOTA_COMPANY}` });
      await dialog.getByText('2 in use').waitFor();
      await dialog.getByLabel('Users', { exact: true }).fill('2');
      await ui.screenshot('license-quota-dialog.en');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await ui.expectMessage(`Quotas of ${QUOTA_COMPANY} saved`);
      await row.getByText('2 / 2', { exact: true }).waitFor();
    },
  );

  test("quotas: the company's administrator is refused one user more and sees the company's usage", async () => {
    assert.ok(s.server);
    for (const lang of ['en', 'zh'] as const) {
      const { context, page } = await openPage({ lang });
      const ui = consolePage(page, s.server.baseUrl);
      try {
        await page.goto(`${s.server.baseUrl}/dev/`);
        await ui.expectSignInPage();
        await ui.submitSignIn(QUOTA_ADMIN, QUOTA_ADMIN_PASSWORD);
        await page.waitForURL(`${s.server.baseUrl}/dev/dashboard`);
        await createOneUserTooMany(page, lang);
        await ui.expectMessage(
          lang === 'en'
            ? "This company's user quota is 2, with 2 in use: no room for 1 more. A platform administrator can raise the quota"
            : '本企业的用户配额为 2，已使用 2，无法再增加 1 个。平台管理员可以提高配额',
        );
        const stored = await ui.api<{ total: number }>('/api/v1/manage/user/list', {}, companyId);
        assert.equal(stored.data.total, 2, 'nobody was added');

        await page.goto(`${s.server.baseUrl}/dev/setting/license`);
        const users = page.getByTestId('license-table').getByRole('row').nth(1);
        await users.getByText(lang === 'en' ? 'Users' : '用户数').waitFor();
        assert.deepEqual(
          (await users.getByRole('cell').allInnerTexts()).slice(1, 4),
          ['2', '2', '0'],
          'quota, used and remaining of the company',
        );
        assert.equal(await page.getByTestId('company-quotas').count(), 0);
        assert.equal(await page.getByRole('button', { name: /Import licence|导入许可证/ }).count(), 0);
        await page.getByTestId('license-company-hint').getByText(QUOTA_COMPANY).waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`license-company.${lang}`);
      } finally {
        await context.close();
      }
    }
  });

  test('quotas: the section in Chinese, for the platform administrator', async () => {
    assert.ok(s.server);
    const { context, page } = await openPage({ lang: 'zh' });
    const ui = consolePage(page, s.server.baseUrl);
    try {
      await ui.signIn('/dev/setting/license', s.adminPassword);
      const row = page.getByTestId('company-quotas').getByRole('row').filter({ hasText: QUOTA_COMPANY });
      await row.getByText('2 / 2', { exact: true }).waitFor();
      await page.getByText('企业配额').first().waitFor();
      await ui.screenshot('license-quotas.zh');
      await row.getByRole('button', { name: `设置 ${QUOTA_COMPANY} 的配额` }).click();
      await page
        .getByRole('dialog', { name: `${QUOTA_COMPANY} 的配额` })
        .getByText('已使用 2')
        .first()
        .waitFor();
      await ui.screenshot('license-quota-dialog.zh');
    } finally {
      await context.close();
    }
  });
}

/** Opens "Create user" on the users screen and submits a complete new user. */
async function createOneUserTooMany(page: Page, lang: 'en' | 'zh') {
  const en = lang === 'en';
  await page.goto(`${page.url().split('/dev/')[0]}/dev/org/user`);
  await page
    .getByRole('button', { name: en ? 'Create user' : '新建用户' })
    .first()
    .click();
  const dialog = page.getByRole('dialog');
  await motionSettled(page);
  await dialog.getByLabel(en ? 'Username' : '用户名', { exact: true }).fill(`one.too.many.${lang}`);
  await dialog.getByLabel(en ? 'Password' : '密码', { exact: true }).fill('One-too-many-1');
  await dialog.getByLabel(en ? 'Confirm password' : '确认密码').fill('One-too-many-1');
  await dialog.getByRole('button', { name: en ? 'Create user' : '新建用户' }).click();
}
