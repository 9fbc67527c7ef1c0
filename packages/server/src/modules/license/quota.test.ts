import { importLimits } from '@tessera/contract';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import {
  call,
  createAccount,
  grantLicense,
  MAIL_NEVER_SENT,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
  upload,
} from '../../test/harness.ts';
import { createAccountsRepo } from '../account/account.repo.ts';

/**
 * Issue 12 (tenancy): licence counts were shared by all companies, so one company could use up
 * every user and application of the installation. Each company now has quotas, checked with the
 * licence wherever a user or an application is added.
 */
let ctx: TestContext;
let operatorToken: string;
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;
let globex: Awaited<ReturnType<typeof ownerWithCompany>>;

const PASSWORD = 'Sunny-Day-42';

beforeAll(async () => {
  // New companies get what the configuration says (3 users, 1 application).
  const { companyQuotas } = loadConfig({ TESSERA_COMPANY_USER_QUOTA: '3', TESSERA_COMPANY_APP_QUOTA: '1' });
  ctx = await startTestApp({ companyQuotas, mail: MAIL_NEVER_SENT });
  await grantLicense(ctx, { user: 1000, app: 1000 });
  const operator = await createAccount(ctx, { username: 'operator', platformAdmin: true });
  operatorToken = await sessionFor(ctx, operator.id, 'admin');
  acme = await ownerWithCompany(ctx, 'acme-owner', 'Acme');
  globex = await ownerWithCompany(ctx, 'globex-owner', 'Globex');
});
afterAll(() => ctx.close());

type Company = typeof acme;

const setQuotas = (companyId: string, quotas: { user?: number | null; app?: number | null }) =>
  call(
    ctx,
    '/api/v1/manage/license/quota/update',
    { companyId, quotas, confirmBelowUsage: true },
    { token: operatorToken },
  );

const createUser = (company: Company, username: string, lang = 'en') =>
  call(
    ctx,
    '/api/v1/manage/user/create',
    { username, password: PASSWORD, confirmPassword: PASSWORD },
    { token: company.token, companyId: company.companyId, lang },
  );

const addAdministrator = (company: Company, username: string, lang = 'en') =>
  call(
    ctx,
    '/api/v1/manage/company/user/create',
    { username, role: 'admin', password: PASSWORD },
    { token: company.token, companyId: company.companyId, lang },
  );

const createApp = (company: Company, name: string, lang = 'en') =>
  call(
    ctx,
    '/api/v1/manage/app/create',
    { name },
    { token: company.token, companyId: company.companyId, lang },
  );

const countRecords = async (companyId: string) =>
  Number(
    (
      await ctx.database.db
        .selectFrom('company_members')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const accountNamed = (username: string) =>
  ctx.database.db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirst();

async function importUsers(company: Company, usernames: string[]) {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Users');
  sheet.addRow(['Username']);
  for (const username of usernames) sheet.addRow([username]);
  const started = await upload(
    ctx,
    '/api/v1/manage/user/batch-task/create',
    {
      bytes: Buffer.from(await book.xlsx.writeBuffer()),
      filename: 'people.xlsx',
      type: importLimits.xlsxType,
    },
    { token: company.token, companyId: company.companyId },
  );
  expect(started.code, started.msg).toBe(200);
  for (let i = 0; i < 600; i++) {
    const task = await call<{ status: string; errors: { message: string }[] }>(
      ctx,
      '/api/v1/manage/user/batch-task',
      { taskId: started.data.taskId },
      { token: company.token, companyId: company.companyId },
    );
    if (task.data.status !== 'importing') return task.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the import did not finish');
}

describe('company quotas', () => {
  it('gives a new company the quotas of the configuration', async () => {
    const rows = await ctx.database.db
      .selectFrom('company_quotas')
      .select(['module', 'quota'])
      .where('company_id', '=', acme.companyId)
      .orderBy('module', 'desc')
      .execute();
    expect(rows).toEqual([
      { module: 'user', quota: 3 },
      { module: 'app', quota: 1 },
    ]);
  });

  it('refuses a user beyond the company quota, by every way of adding one, storing nothing', async () => {
    // The owner is the first of Acme's 3 users.
    expect((await createUser(acme, 'acme-two')).code).toBe(200);
    expect((await addAdministrator(acme, 'acme-three')).code).toBe(200);
    const before = await countRecords(acme.companyId);

    const refused = await createUser(acme, 'acme-four');
    expect(refused).toMatchObject({
      code: 403,
      msg: "This company's user quota is 3, with 3 in use: no room for 1 more. A platform administrator can raise the quota",
      data: { reason: 'quota.user_quota_exceeded' },
    });
    expect(await createUser(acme, 'acme-four', 'zh')).toMatchObject({
      code: 403,
      msg: '本企业的用户配额为 3，已使用 3，无法再增加 1 个。平台管理员可以提高配额',
    });
    expect(await addAdministrator(acme, 'acme-admin-four')).toMatchObject({
      code: 403,
      data: { reason: 'quota.user_quota_exceeded' },
    });
    const imported = await importUsers(acme, ['acme-import-a']);
    expect(imported).toMatchObject({
      status: 'failed',
      errors: [{ message: expect.stringContaining("This company's user quota is 3") }],
    });

    expect(await countRecords(acme.companyId)).toBe(before);
    for (const username of ['acme-four', 'acme-admin-four', 'acme-import-a'])
      expect(await accountNamed(username)).toBeUndefined();
    // Another company's quota is its own.
    expect((await createUser(globex, 'globex-two')).code).toBe(200);
  });

  it('lets the company add again once a platform administrator raises the quota', async () => {
    expect((await setQuotas(acme.companyId, { user: 6 })).code).toBe(200);
    expect((await createUser(acme, 'acme-four')).code).toBe(200);
    const imported = await importUsers(acme, ['acme-import-a', 'acme-import-b']);
    expect(imported.status).toBe('success');
    // 6 of 6: a file of one more fails as a whole.
    expect((await importUsers(acme, ['acme-import-c'])).status).toBe('failed');
    expect(await accountNamed('acme-import-c')).toBeUndefined();
  });

  it('refuses an application beyond the company quota, storing nothing', async () => {
    expect((await createApp(acme, 'Acme Wiki')).code).toBe(200);
    const refused = await createApp(acme, 'Acme Chat');
    expect(refused).toMatchObject({
      code: 403,
      msg: "This company's application quota is 1, with 1 in use: no room for 1 more. A platform administrator can raise the quota",
    });
    expect((await createApp(acme, 'Acme Chat', 'zh')).msg).toBe(
      '本企业的应用配额为 1，已使用 1，无法再增加 1 个。平台管理员可以提高配额',
    );
    const stored = await ctx.database.db
      .selectFrom('apps')
      .select('id')
      .where('name', '=', 'Acme Chat')
      .execute();
    expect(stored).toEqual([]);
  });

  it('keeps the installation licence as the outer limit, naming it when it is the one hit', async () => {
    await setQuotas(globex.companyId, { user: null, app: null });
    const accounts = await createAccountsRepo(ctx.database.db).countLicensedAccounts();
    await grantLicense(ctx, { user: accounts, app: 1000 });
    try {
      const refused = await createUser(globex, 'globex-beyond-licence');
      expect(refused).toMatchObject({
        code: 403,
        msg: `The installation licence's user quantity (${accounts}) has no room for 1 more; a platform administrator can import a larger licence`,
        data: { reason: 'license.user_quantity_exceeded' },
      });
      expect((await createUser(globex, 'globex-beyond-licence', 'zh')).msg).toBe(
        `安装许可证的用户数量（${accounts}）已无法再增加 1 个。平台管理员可以导入更大数量的许可证`,
      );
      expect(await accountNamed('globex-beyond-licence')).toBeUndefined();
    } finally {
      await grantLicense(ctx, { user: 1000, app: 1000 });
    }
  });

  it('lets parallel creations in one company fill its quota exactly, never beyond', async () => {
    const company = await ownerWithCompany(ctx, 'rush-owner', 'Rush');
    await setQuotas(company.companyId, { user: 4, app: 2 });
    const users = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 ? createUser(company, `rush-${i}`) : addAdministrator(company, `rush-${i}`),
      ),
    );
    expect(users.filter((r) => r.code === 200)).toHaveLength(3);
    expect(users.filter((r) => r.code !== 200).map((r) => r.data)).toEqual(
      Array(5).fill({ reason: 'quota.user_quota_exceeded' }),
    );
    expect(await countRecords(company.companyId)).toBe(4);

    const apps = await Promise.all(Array.from({ length: 6 }, (_, i) => createApp(company, `Rush ${i}`)));
    expect(apps.filter((r) => r.code === 200)).toHaveLength(2);
    expect(apps.filter((r) => r.code !== 200).map((r) => r.data)).toEqual(
      Array(4).fill({ reason: 'quota.app_quota_exceeded' }),
    );
  });

  it('counts user records: a person in two companies takes a place in both', async () => {
    const shared = await accountNamed('globex-two');
    await ctx.database.db
      .insertInto('company_members')
      .values({ company_id: acme.companyId, account_id: shared!.id, role: 'member' })
      .execute();
    const row = await call<{ list: { quotas: { module: string; used: number }[] }[] }>(
      ctx,
      '/api/v1/manage/license/quota/list',
      { keyword: 'Acme' },
      { token: operatorToken },
    );
    expect(row.data.list[0]?.quotas.find((q) => q.module === 'user')?.used).toBe(7);
    // 7 of 6 now: the next one is refused until someone leaves.
    expect((await createUser(acme, 'acme-seven')).data).toEqual({ reason: 'quota.user_quota_exceeded' });
  });

  it('gives a developer account (of no company) a place in the licence only', async () => {
    const created = await call(
      ctx,
      '/api/v1/manage/user/admin/create-dev-user',
      { username: 'quota-dev', password: PASSWORD, confirmPassword: PASSWORD },
      { token: operatorToken },
    );
    expect(created.code).toBe(200);
  });
});
