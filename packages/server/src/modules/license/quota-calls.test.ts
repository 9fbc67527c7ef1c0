import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  companyMember,
  createAccount,
  grantLicense,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';

/**
 * Issue 12 (tenancy): platform administrators list companies with their usage and set their
 * quotas; company administrators see their own company's quotas and usage in the licence, never
 * the installation's.
 */
let ctx: TestContext;
let operator: { id: string; token: string };
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;
let globex: Awaited<ReturnType<typeof ownerWithCompany>>;

const PASSWORD = 'Sunny-Day-42';

beforeAll(async () => {
  ctx = await startTestApp({ companyQuotas: { user: 50, app: 5 } });
  await grantLicense(ctx, { user: 1000, app: 40 });
  const account = await createAccount(ctx, { username: 'operator', platformAdmin: true });
  operator = { id: account.id, token: await sessionFor(ctx, account.id, 'admin') };
  acme = await ownerWithCompany(ctx, 'acme-owner', 'Acme Rockets');
  globex = await ownerWithCompany(ctx, 'globex-owner', 'Globex');
  for (let i = 0; i < 3; i++) await companyMember(ctx, globex, `globex-${i}`);
  await call(ctx, '/api/v1/manage/app/create', { name: 'Globex Wiki' }, globex);
});
afterAll(() => ctx.close());

type QuotaRow = {
  companyId: string;
  name: string;
  quotas: { module: string; quota: number | null; used: number }[];
};

const asOperator = <T = QuotaRow>(path: string, body: unknown, lang = 'en') =>
  call<T>(ctx, path, body, { token: operator.token, lang });

const quotasOf = async (companyId: string) =>
  ctx.database.db
    .selectFrom('company_quotas')
    .select(['module', 'quota'])
    .where('company_id', '=', companyId)
    .orderBy('module')
    .execute();

const quotaEvents = () =>
  ctx.database.db
    .selectFrom('audit_events')
    .selectAll()
    .where('action', '=', 'company.quota.update')
    .orderBy('created_at')
    .execute();

describe('license/quota/list', () => {
  it('lists companies by name with quotas and usage, paged and searchable', async () => {
    const all = await asOperator<{ list: QuotaRow[]; total: number }>(
      '/api/v1/manage/license/quota/list',
      {},
    );
    expect(all.data.total).toBe(2);
    expect(all.data.list.map((c) => c.name)).toEqual(['Acme Rockets', 'Globex']);
    expect(all.data.list[1]).toMatchObject({
      companyId: globex.companyId,
      ownerUsername: 'globex-owner',
      quotas: [
        { module: 'user', quota: 50, used: 4 },
        { module: 'app', quota: 5, used: 1 },
      ],
    });
    const page = await asOperator<{ list: QuotaRow[]; total: number }>('/api/v1/manage/license/quota/list', {
      page: 2,
      pageSize: 1,
    });
    expect(page.data).toMatchObject({ total: 2, list: [{ name: 'Globex' }] });
    const found = await asOperator<{ list: QuotaRow[] }>('/api/v1/manage/license/quota/list', {
      keyword: 'rock',
    });
    expect(found.data.list.map((c) => c.name)).toEqual(['Acme Rockets']);
    const byId = await asOperator<{ list: QuotaRow[] }>('/api/v1/manage/license/quota/list', {
      keyword: globex.companyId,
    });
    expect(byId.data.list.map((c) => c.name)).toEqual(['Globex']);
    const wildcard = await asOperator<{ list: QuotaRow[] }>('/api/v1/manage/license/quota/list', {
      keyword: '%',
    });
    expect(wildcard.data.list).toEqual([]);
  });
});

describe('license/quota/update', () => {
  it('sets quotas, no limit included, audited with before and after in the company', async () => {
    const set = await asOperator('/api/v1/manage/license/quota/update', {
      companyId: acme.companyId,
      quotas: { user: 200, app: null },
    });
    expect(set.data).toMatchObject({
      companyId: acme.companyId,
      quotas: [
        { module: 'user', quota: 200, used: 1 },
        { module: 'app', quota: null, used: 0 },
      ],
    });
    expect(await quotasOf(acme.companyId)).toEqual([
      { module: 'app', quota: null },
      { module: 'user', quota: 200 },
    ]);
    const [event] = await quotaEvents();
    expect(event).toMatchObject({
      company_id: acme.companyId,
      actor_account_id: operator.id,
      target_id: acme.companyId,
    });
    expect(event?.before).toEqual({ user: { quota: 50, used: 1 }, app: { quota: 5, used: 0 } });
    expect(event?.after).toEqual({ user: { quota: 200, used: 1 }, app: { quota: null, used: 0 } });
    // One function at a time leaves the other as it is.
    await asOperator('/api/v1/manage/license/quota/update', {
      companyId: acme.companyId,
      quotas: { app: 7 },
    });
    expect(await quotasOf(acme.companyId)).toEqual([
      { module: 'app', quota: 7 },
      { module: 'user', quota: 200 },
    ]);
  });

  it('refuses a quota below usage unless confirmed; confirmed, it keeps everyone and blocks new ones', async () => {
    const before = await quotasOf(globex.companyId);
    const events = (await quotaEvents()).length;
    const refused = await asOperator('/api/v1/manage/license/quota/update', {
      companyId: globex.companyId,
      quotas: { user: 2, app: 0 },
    });
    expect(refused).toMatchObject({
      code: 409,
      msg: "The new user quota (2) is below the company's current usage (4). Confirm to set it anyway: nobody is removed, and new users are refused until usage is below the quota",
      data: {
        reason: 'quota.user_below_usage',
        fields: [
          { field: 'quotas.user', message: expect.stringContaining('user quota (2)') },
          { field: 'quotas.app', message: expect.stringContaining('application quota (0)') },
        ],
      },
    });
    const zh = await asOperator(
      '/api/v1/manage/license/quota/update',
      { companyId: globex.companyId, quotas: { user: 2 } },
      'zh',
    );
    expect(zh.msg).toBe(
      '新的用户配额（2）低于该企业当前的用量（4）。确认后仍可设置：不会移除任何用户，但在用量低于配额之前不能再新增用户',
    );
    expect(await quotasOf(globex.companyId)).toEqual(before);
    expect(await quotaEvents()).toHaveLength(events);

    const confirmed = await asOperator('/api/v1/manage/license/quota/update', {
      companyId: globex.companyId,
      quotas: { user: 2 },
      confirmBelowUsage: true,
    });
    expect(confirmed.data.quotas[0]).toEqual({ module: 'user', quota: 2, used: 4 });
    expect((await quotaEvents()).at(-1)?.after).toMatchObject({ belowUsageConfirmed: true });
    const blocked = await call(
      ctx,
      '/api/v1/manage/user/create',
      { username: 'globex-new', password: PASSWORD, confirmPassword: PASSWORD },
      globex,
    );
    expect(blocked.data).toEqual({ reason: 'quota.user_quota_exceeded' });
  });

  it('refuses bad values with a message in en and zh, storing nothing', async () => {
    const before = await quotasOf(acme.companyId);
    const events = (await quotaEvents()).length;
    for (const quotas of [{ user: -1 }, { user: 1.5 }, { app: 'ten' }, { user: 100_000_001 }]) {
      expect(
        await asOperator('/api/v1/manage/license/quota/update', { companyId: acme.companyId, quotas }),
      ).toMatchObject({
        code: 400,
        msg: 'A quota is a whole number from 0 to 100,000,000, or no limit',
        data: { reason: 'quota.invalid' },
      });
    }
    const zh = await asOperator(
      '/api/v1/manage/license/quota/update',
      { companyId: acme.companyId, quotas: { user: -1 } },
      'zh',
    );
    expect(zh.msg).toBe('配额须为 0 到 100,000,000 之间的整数，或不限');
    expect(
      await asOperator('/api/v1/manage/license/quota/update', { companyId: acme.companyId, quotas: {} }),
    ).toMatchObject({ code: 400, msg: 'Choose at least one quota to set' });
    expect(
      await asOperator('/api/v1/manage/license/quota/update', {
        companyId: 'no-such-company',
        quotas: { user: 5 },
      }),
    ).toMatchObject({ code: 404, data: { reason: 'company.not_found' } });
    expect(await quotasOf(acme.companyId)).toEqual(before);
    expect(await quotaEvents()).toHaveLength(events);
  });
});

describe('who may see and set quotas', () => {
  it('refuses everyone but platform administrators, whatever their role', async () => {
    const admin = await call<{ userId: string }>(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'acme-admin', role: 'admin', password: PASSWORD },
      acme,
    );
    const external = await call<{ userId: string }>(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'acme-external', role: 'external_admin', password: PASSWORD },
      acme,
    );
    const member = await companyMember(ctx, acme, 'acme-member');
    const developer = await createAccount(ctx, { username: 'lonely-developer' });
    const callers = {
      owner: acme.token,
      admin: await sessionFor(ctx, admin.data.userId),
      external_admin: await sessionFor(ctx, external.data.userId),
      member: await sessionFor(ctx, member.id),
      developer: await sessionFor(ctx, developer.id),
    };
    const before = await quotasOf(acme.companyId);
    for (const [role, token] of Object.entries(callers)) {
      for (const [path, body] of [
        ['/api/v1/manage/license/quota/list', {}],
        [
          '/api/v1/manage/license/quota/update',
          { companyId: acme.companyId, quotas: { user: 100_000 }, confirmBelowUsage: true },
        ],
      ] as const) {
        const answer = await call(ctx, path, body, { token, companyId: acme.companyId });
        expect({ role, path, code: answer.code, msg: answer.msg }).toEqual({
          role,
          path,
          code: 403,
          msg: 'Only platform administrators can see and set company quotas',
        });
      }
    }
    expect(await quotasOf(acme.companyId)).toEqual(before);
    expect((await call(ctx, '/api/v1/manage/license/quota/list', {})).code).toBe(401);
  });
});

describe('license/detail and license/info', () => {
  type Detail = {
    scope: string;
    list: {
      module: string;
      total: number | null;
      used: number | null;
      remaining: number | null;
      status: string;
    }[];
  };
  const moduleOf = (detail: Detail, module: string) => detail.list.find((m) => m.module === module);

  it("shows a company administrator the company's quota, usage and remaining, not the installation's", async () => {
    const detail = await call<Detail>(ctx, '/api/v1/manage/license/detail', {}, globex);
    expect(detail.data.scope).toBe('company');
    expect(moduleOf(detail.data, 'user')).toMatchObject({
      total: 2,
      used: 4,
      remaining: 0,
      status: 'normal',
    });
    expect(moduleOf(detail.data, 'app')).toMatchObject({ total: 5, used: 1, remaining: 4, status: 'normal' });
    expect(moduleOf(detail.data, 'mfa')).toMatchObject({ total: null, used: null, status: 'not_active' });
    const text = JSON.stringify(detail.data);
    expect(text).not.toContain('1000');
    expect(text).not.toContain('"total":40');

    // No limit beyond the licence: no company total, and still only the company's usage.
    const acmeDetail = await call<Detail>(ctx, '/api/v1/manage/license/detail', {}, acme);
    expect(moduleOf(acmeDetail.data, 'app')).toMatchObject({ total: 7, used: 0, remaining: 7 });
    await asOperator('/api/v1/manage/license/quota/update', {
      companyId: acme.companyId,
      quotas: { user: null },
    });
    const unlimited = await call<Detail>(ctx, '/api/v1/manage/license/detail', {}, acme);
    expect(moduleOf(unlimited.data, 'user')).toMatchObject({ total: null, remaining: null, used: 4 });
  });

  it('shows a platform administrator the installation totals and usage', async () => {
    await ctx.database.db
      .insertInto('company_members')
      .values({ company_id: acme.companyId, account_id: operator.id, role: 'admin' })
      .execute();
    const detail = await call<Detail>(
      ctx,
      '/api/v1/manage/license/detail',
      {},
      { token: operator.token, companyId: acme.companyId },
    );
    const accounts = await ctx.database.db
      .selectFrom('accounts')
      .select('id')
      .where('is_platform_admin', '=', false)
      .execute();
    expect(detail.data.scope).toBe('installation');
    expect(moduleOf(detail.data, 'user')).toMatchObject({
      total: 1000,
      used: accounts.length,
      remaining: 1000 - accounts.length,
    });
    expect(moduleOf(detail.data, 'app')).toMatchObject({ total: 40, used: 1, remaining: 39 });
  });

  it("keeps the top bar's licence info for company administrators (Info[0]: status and days left)", async () => {
    const info = await call<{ Info: { module: string; status: string; reduceDay: number }[] }>(
      ctx,
      '/api/v1/manage/license/info',
      {},
      globex,
    );
    expect(info.data.Info[0]).toMatchObject({ module: 'user', status: 'normal' });
    expect(info.data.Info[0]?.reduceDay).toBeGreaterThan(300);
  });
});
