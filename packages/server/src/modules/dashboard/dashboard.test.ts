import { type ConsoleGrants, failureSpikeThresholds } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { delegatedAdmin } from '../../test/delegated-admin.ts';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { insertLoginEvent } from '../signin/login-events.repo.ts';

/** Issue 16: the dashboard's figures against sign-ins the test writes (known counts per window). */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let other: Awaited<ReturnType<typeof ownerWithCompany>>;
let bob: { id: string; username: string };
const apps: Record<string, { appId: string; clientId: string }> = {};
const asOwner = (lang?: string) => ({ token: owner.token, companyId: owner.companyId, lang });
const HOUR = 3_600_000;

async function event(
  hoursAgo: number,
  fields: {
    app?: string;
    result?: 'success' | 'failure';
    cause?: string;
    company?: string;
    account?: string | null;
  },
) {
  await ctx.database.db
    .insertInto('login_events')
    .values({
      id: newId(),
      company_id: fields.company ?? owner.companyId,
      account_id: fields.account === undefined ? bob.id : fields.account,
      identifier: 'bob',
      client_id: fields.app ? (apps[fields.app]?.clientId ?? null) : null,
      ip: null,
      user_agent: null,
      result: fields.result ?? 'success',
      failure_cause: fields.result === 'failure' ? (fields.cause ?? 'wrong_password') : null,
      created_at: new Date(Date.now() - hoursAgo * HOUR),
    })
    .execute();
}

beforeAll(async () => {
  ctx = await startTestApp({ jobs: { run: false } });
  owner = await ownerWithCompany(ctx, 'dash-owner', 'Dash Works');
  other = await ownerWithCompany(ctx, 'dash-other', 'Other Works');
  bob = await companyMember(ctx, owner, 'bob-dash');
  for (const name of ['Mail', 'Wiki', 'CRM', 'HR']) {
    const created = await call<{ app: { appId: string; clientId: string } }>(
      ctx,
      '/api/v1/manage/app/create',
      { name },
      asOwner(),
    );
    apps[name] = created.data.app;
  }
  // Inside the last three days (hours ago, UTC days: 1 to 3 hours ago is today unless just after midnight).
  for (let i = 0; i < 5; i++) await event(0.1, { app: 'Mail' });
  for (let i = 0; i < 3; i++) await event(0.1, { app: 'Wiki' });
  await event(0.1, { app: 'CRM' });
  await event(0.1, { result: 'failure', cause: 'wrong_password', app: 'Mail' });
  await event(0.1, { result: 'failure', cause: 'account_locked' });
  // 5 and 20 days ago: in the month, not in the week.
  for (let i = 0; i < 4; i++) await event(24 * 20, { app: 'HR' });
  await event(24 * 5 + 1, { result: 'failure', cause: 'wrong_password' });
  // 40 days ago: in no window.
  await event(24 * 40, { app: 'HR' });
  // Another company's sign-ins never count.
  await event(0.1, { company: other.companyId, account: other.account.id });
});
afterAll(() => ctx.close());

describe('dashboard', () => {
  it('counts users and second factors', async () => {
    expect((await call(ctx, '/api/v1/manage/index/user-data-overview', {}, asOwner())).data).toEqual({
      total: 2,
      enabled: 2,
      disabled: 0,
      locked: 0,
      administrators: 1,
      newLast7Days: 2,
      activeLast7Days: 1,
    });
    expect((await call(ctx, '/api/v1/manage/index/user-mfa-info', {}, asOwner())).data).toEqual({
      mode: 'off',
      users: 2,
      withFactor: 0,
      withoutFactor: 2,
      byType: [],
    });
  });

  it('counts sign-ins per day in the last 7 days and the last month', async () => {
    const week = await call<{ days: { day: string; success: number; failure: number }[] }>(
      ctx,
      '/api/v1/manage/index/user-login-trend',
      { window: 'week' },
      asOwner(),
    );
    expect(week.data.days).toHaveLength(7);
    const sum = (days: { success: number; failure: number }[]) =>
      days.reduce((t, d) => ({ success: t.success + d.success, failure: t.failure + d.failure }), {
        success: 0,
        failure: 0,
      });
    expect(sum(week.data.days)).toEqual({ success: 9, failure: 3 });
    expect(week.data.days.at(-1)?.day).toBe(new Date().toISOString().slice(0, 10));
    const month = await call<{ days: { success: number; failure: number }[] }>(
      ctx,
      '/api/v1/manage/index/user-login-trend',
      { window: 'month', timeZone: 'Asia/Shanghai' },
      asOwner(),
    );
    expect(month.data.days).toHaveLength(30);
    expect(sum(month.data.days)).toEqual({ success: 13, failure: 3 });
  });

  it('ranks applications, their trend and share', async () => {
    const count = await call(ctx, '/api/v1/manage/index/app-login-count', { window: 'week' }, asOwner());
    expect(count.data).toMatchObject({
      total: 4,
      toBeConfigured: 4,
      signIns: 9,
      top: [
        { name: 'Mail', count: 5 },
        { name: 'Wiki', count: 3 },
        { name: 'CRM', count: 1 },
      ],
    });
    const ratio = await call<{ total: number; list: { name: string; share: number }[]; others: number }>(
      ctx,
      '/api/v1/manage/index/app-login-count-ratio',
      { window: 'month' },
      asOwner(),
    );
    expect(ratio.data.total).toBe(13);
    expect(ratio.data.list.map((app) => [app.name, Math.round(app.share * 100)])).toEqual([
      ['Mail', 38],
      ['HR', 31],
      ['Wiki', 23],
      ['CRM', 8],
    ]);
    const trend = await call<{ apps: { name: string }[]; days: { counts: number[] }[] }>(
      ctx,
      '/api/v1/manage/index/app-login-trend',
      { window: 'week' },
      asOwner(),
    );
    expect(trend.data.apps.map((app) => app.name)).toEqual(['Mail', 'Wiki', 'CRM']);
    expect(trend.data.days.at(-1)?.counts).toEqual([5, 3, 1]);
  });

  it('shows failures by cause and the newest of the last three days', async () => {
    const trend = await call<{ causes: unknown[] }>(
      ctx,
      '/api/v1/manage/index/fail-trend',
      { window: 'week' },
      asOwner('zh'),
    );
    expect(trend.data.causes).toEqual([
      { cause: 'wrong_password', causeText: '密码错误', count: 2 },
      { cause: 'account_locked', causeText: '账号已锁定', count: 1 },
    ]);
    const fails = await call<{ list: { cause: string; appName: string | null }[] }>(
      ctx,
      '/api/v1/manage/index/new-fail-list',
      {},
      asOwner(),
    );
    expect(fails.data.list.map((row) => row.cause).sort()).toEqual(['account_locked', 'wrong_password']);
    const logins = await call<{ list: unknown[] }>(
      ctx,
      '/api/v1/manage/index/new-login-list',
      { limit: 50 },
      asOwner(),
    );
    expect(logins.data.list).toHaveLength(9);
    // Another company sees its own sign-ins only.
    const quiet = await call<{ list: unknown[] }>(
      ctx,
      '/api/v1/manage/index/new-login-list',
      {},
      {
        token: other.token,
        companyId: other.companyId,
      },
    );
    expect(quiet.data.list).toHaveLength(1);
  });

  it('refuses an unknown window or time zone in both languages', async () => {
    expect(
      await call(
        ctx,
        '/api/v1/manage/index/user-login-trend',
        { window: 'week', timeZone: 'Mars/Olympus' },
        asOwner('zh'),
      ),
    ).toMatchObject({ code: 400, msg: '未知的时区' });
    expect((await call(ctx, '/api/v1/manage/index/fail-trend', { window: 'year' }, asOwner())).code).toBe(
      400,
    );
  });
});

describe('hotspots, new countries and impossible travel', () => {
  it('places sign-ins by country and by Chinese province, and marks travel', async () => {
    const signIn = (ip: string) =>
      insertLoginEvent(ctx.database.db, {
        companyId: owner.companyId,
        accountId: bob.id,
        identifier: 'bob',
        clientId: apps.Mail?.clientId ?? null,
        ip,
        userAgent: null,
        result: 'success',
        failureCause: null,
      });
    await signIn('114.114.114.114'); // Jinan, Shandong
    await signIn('1.2.4.8'); // Beijing: about 360 km in no time
    await signIn('81.2.69.142'); // London: a new country, 8 000 km away
    const world = await call<{
      list: { key: string; count: number; newCountry: number; impossibleTravel: number }[];
    }>(ctx, '/api/v1/manage/index/login-hotspot', { scope: 'world' }, asOwner());
    expect(world.data.list).toEqual([
      { key: 'CN', count: 2, newCountry: 0, impossibleTravel: 1 },
      { key: 'GB', count: 1, newCountry: 1, impossibleTravel: 1 },
    ]);
    const china = await call<{ list: { key: string }[] }>(
      ctx,
      '/api/v1/manage/index/login-hotspot',
      { scope: 'china' },
      asOwner(),
    );
    expect(china.data.list.map((row) => row.key).sort()).toEqual(['Beijing', 'Shandong']);
    const marked = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      { mark: 'new_country' },
      asOwner(),
    );
    expect(marked.data.total).toBe(1);
  });
});

describe('failure spikes', () => {
  it('raises one alert per spike, shown on the dashboard of its company only', async () => {
    const rows = Array.from({ length: failureSpikeThresholds.account }, () => ({
      id: newId(),
      company_id: owner.companyId,
      account_id: bob.id,
      identifier: 'bob-dash',
      client_id: null,
      ip: null,
      user_agent: null,
      result: 'failure' as const,
      failure_cause: 'wrong_password',
    }));
    await ctx.database.db.insertInto('login_events').values(rows).execute();
    await ctx.tessera.jobs.runSoon('log.alerts');
    await ctx.tessera.jobs.drain();
    await ctx.tessera.jobs.runSoon('log.alerts');
    await ctx.tessera.jobs.drain();
    const trend = await call<{ alerts: unknown[] }>(ctx, '/api/v1/manage/index/fail-trend', {}, asOwner());
    expect(trend.data.alerts).toEqual([
      expect.objectContaining({
        cause: 'wrong_password',
        username: 'bob-dash',
        threshold: 50,
        windowMinutes: 10,
      }),
    ]);
    const otherTrend = await call<{ alerts: unknown[] }>(
      ctx,
      '/api/v1/manage/index/fail-trend',
      {},
      {
        token: other.token,
        companyId: other.companyId,
      },
    );
    expect(otherTrend.data.alerts).toEqual([]);
  });

  it('names the spike only to console roles that read the log (issue 28)', async () => {
    const alertsSeenBy = async (name: string, groups: ConsoleGrants['groups']) => {
      const { token } = await delegatedAdmin(ctx, owner, name, { groups, abilities: [] });
      const trend = await call<{ alerts: { username: string }[]; causes: unknown[] }>(
        ctx,
        '/api/v1/manage/index/fail-trend',
        {},
        { token, companyId: owner.companyId },
      );
      expect(trend.code).toBe(200);
      // The counts are every role's.
      expect(trend.data.causes.length).toBeGreaterThan(0);
      return trend.data.alerts.map((alert) => alert.username);
    };
    expect(await alertsSeenBy('dash-log-reader', { log: 'read' })).toEqual(['bob-dash']);
    expect(await alertsSeenBy('dash-help-desk', { user: 'manage' })).toEqual([]);
  });
});
