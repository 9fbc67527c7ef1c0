import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { insertLoginEvent } from '../signin/login-events.repo.ts';

/** Issue 16: the log screen's calls (sign-ins and administration), exports and retention. */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let alice: { id: string; username: string };
let appId: string;
let clientId: string;
const asOwner = () => ({ token: owner.token, companyId: owner.companyId });
const DAY = 86_400_000;

async function signInAt(
  daysAgo: number,
  fields: Partial<{
    result: 'success' | 'failure';
    cause: string;
    accountId: string | null;
    clientId: string | null;
    identifier: string;
  }> = {},
) {
  await ctx.database.db
    .insertInto('login_events')
    .values({
      id: newId(),
      company_id: owner.companyId,
      account_id: fields.accountId === undefined ? alice.id : fields.accountId,
      identifier: fields.identifier ?? alice.username,
      client_id: fields.clientId === undefined ? clientId : fields.clientId,
      ip: '203.0.113.9',
      user_agent: null,
      result: fields.result ?? 'success',
      failure_cause: fields.cause ?? null,
      created_at: new Date(Date.now() - daysAgo * DAY),
    })
    .execute();
}

beforeAll(async () => {
  ctx = await startTestApp({ jobs: { run: false } });
  owner = await ownerWithCompany(ctx, 'log-owner', 'Log Works');
  alice = await companyMember(ctx, owner, 'alice-log');
  const app = await call<{ app: { appId: string; clientId: string } }>(
    ctx,
    '/api/v1/manage/app/create',
    { name: 'Wiki' },
    asOwner(),
  );
  appId = app.data.app.appId;
  clientId = app.data.app.clientId;
  // 5 in the last month (2 failures), 3 more in the three months before, 1 older still.
  for (const daysAgo of [1, 2, 3]) await signInAt(daysAgo);
  await signInAt(4, { result: 'failure', cause: 'wrong_password' });
  await signInAt(5, { result: 'failure', cause: 'account_locked', clientId: null });
  for (const daysAgo of [40, 50, 80]) await signInAt(daysAgo);
  await signInAt(120);
  // A formula planted in what a person typed.
  await signInAt(6, {
    result: 'failure',
    cause: 'unknown_account',
    accountId: null,
    identifier: '=HYPERLINK("http://evil.example","x")',
  });
});
afterAll(() => ctx.close());

describe('sign-in log', () => {
  it('lists the ranges of spec §9 newest first, with filters and paging', async () => {
    const month = await call<{
      list: { time: string; result: string; appName: string | null }[];
      total: number;
    }>(ctx, '/api/v1/manage/log/sign-in/list', { range: 'month' }, asOwner());
    expect(month.data.total).toBe(6);
    const times = month.data.list.map((row) => row.time);
    expect([...times].sort().reverse()).toEqual(times);
    expect(month.data.list[0]?.appName).toBe('Wiki');
    const three = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      { range: 'three_months' },
      asOwner(),
    );
    expect(three.data.total).toBe(9);
    const failures = await call<{ total: number; list: { causeText: string }[] }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      { range: 'month', result: 'failure', cause: 'wrong_password' },
      { ...asOwner(), lang: 'zh' },
    );
    expect(failures.data.total).toBe(1);
    expect(failures.data.list[0]?.causeText).toBe('密码错误');
    const byApp = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      { range: 'month', appId },
      asOwner(),
    );
    expect(byApp.data.total).toBe(5);
    const byPerson = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      { range: 'three_months', userId: alice.id },
      asOwner(),
    );
    expect(byPerson.data.total).toBe(8);
    const page2 = await call<{ list: unknown[]; total: number }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      { range: 'three_months', page: 2, pageSize: 4, order: 'asc' },
      asOwner(),
    );
    expect(page2.data.list).toHaveLength(4);
    const custom = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      {
        range: 'custom',
        from: new Date(Date.now() - 130 * DAY).toISOString(),
        to: new Date(Date.now() - 100 * DAY).toISOString(),
      },
      asOwner(),
    );
    expect(custom.data.total).toBe(1);
  });

  it('refuses a bad range or a page too deep, in English and Chinese', async () => {
    const backwards = {
      range: 'custom',
      from: new Date().toISOString(),
      to: new Date(Date.now() - DAY).toISOString(),
    };
    expect(await call(ctx, '/api/v1/manage/log/sign-in/list', backwards, asOwner())).toMatchObject({
      code: 400,
      msg: 'Choose a start time before the end time',
    });
    expect(
      await call(ctx, '/api/v1/manage/log/sign-in/list', backwards, { ...asOwner(), lang: 'zh' }),
    ).toMatchObject({
      code: 400,
      msg: '开始时间必须早于结束时间',
    });
    const long = {
      range: 'custom',
      from: new Date(Date.now() - 400 * DAY).toISOString(),
      to: new Date().toISOString(),
    };
    expect((await call(ctx, '/api/v1/manage/log/sign-in/list', long, asOwner())).msg).toBe(
      'A custom range can span at most 366 days',
    );
    expect(
      (
        await call(
          ctx,
          '/api/v1/manage/log/sign-in/list',
          { page: 501, pageSize: 20 },
          { ...asOwner(), lang: 'zh' },
        )
      ).data,
    ).toMatchObject({ reason: 'log.page_too_deep' });
    expect((await call(ctx, '/api/v1/manage/log/sign-in/list', { range: 'year' }, asOwner())).code).toBe(400);
  });

  it('writes place and browser when an event is written, and keeps them off for private addresses', async () => {
    await insertLoginEvent(ctx.database.db, {
      companyId: owner.companyId,
      accountId: alice.id,
      identifier: alice.username,
      clientId,
      ip: '81.2.69.142',
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
      result: 'success',
      failureCause: null,
    });
    const list = await call<{ list: { place: unknown; browser: string; os: string }[] }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      { range: 'month', pageSize: 1 },
      asOwner(),
    );
    expect(list.data.list[0]).toMatchObject({
      place: { country: 'GB', city: 'London' },
      browser: 'Edge 126',
      os: 'Windows 10/11',
    });
    await signInAt(0.001, { identifier: 'private-address' });
    const row = await ctx.database.db
      .selectFrom('login_events')
      .select(['country', 'latitude'])
      .where('identifier', '=', 'private-address')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ country: null, latitude: null });
  });
});

describe('administration log', () => {
  it('lists changes with before and after, filtered by actor and action', async () => {
    await call(ctx, '/api/v1/manage/company/update', { name: 'Log Works Renamed' }, asOwner());
    const list = await call<{
      list: { action: string; actorName: string; before: unknown; after: unknown }[];
    }>(
      ctx,
      '/api/v1/manage/log/admin/list',
      { action: 'company.update', actorId: owner.account.id },
      asOwner(),
    );
    expect(list.data.list[0]).toMatchObject({
      action: 'company.update',
      actorName: 'log-owner',
      before: { name: 'Log Works' },
      after: { name: 'Log Works Renamed' },
    });
    const actions = await call<{ list: string[] }>(ctx, '/api/v1/manage/log/admin/actions', {}, asOwner());
    expect(actions.data.list).toEqual(
      expect.arrayContaining(['app.create', 'company.create', 'company.update']),
    );
    expect([...actions.data.list].sort()).toEqual(actions.data.list);
  });
});

async function download(body: unknown, lang?: string) {
  const response = await ctx.tessera.app.inject({
    method: 'POST',
    url: '/api/v1/manage/log/export',
    headers: {
      'content-type': 'application/json',
      access_token: owner.token,
      company_id: owner.companyId,
      ...(lang ? { 'accept-language': lang } : {}),
    },
    payload: JSON.stringify(body),
  });
  return response;
}

describe('export', () => {
  it('streams the filtered sign-ins as .xlsx with formula cells neutralised', async () => {
    const response = await download({
      view: 'signin',
      format: 'xlsx',
      range: 'month',
      result: 'failure',
      language: 'zh',
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toContain('.xlsx');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(response.rawPayload as unknown as ExcelJS.Buffer);
    const sheet = book.worksheets[0] as ExcelJS.Worksheet;
    expect(sheet.name).toBe('登录日志');
    expect(sheet.getRow(1).getCell(1).text).toBe('时间（UTC）');
    expect(sheet.actualRowCount).toBe(1 + 3);
    const identifiers: string[] = [];
    sheet.eachRow((row, number) => {
      if (number > 1) identifiers.push(row.getCell(3).text);
      row.eachCell((cell) => expect(cell.formula).toBeUndefined());
    });
    expect(identifiers).toContain(`'=HYPERLINK("http://evil.example","x")`);
  });

  it('streams the administration log as CSV with a byte order mark', async () => {
    const response = await download({ view: 'admin', format: 'csv' });
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const text = response.rawPayload.toString('utf8');
    expect(text.startsWith('\uFEFFTime (UTC),Actor,Action')).toBe(true);
    expect(text).toContain('company.update');
    // The export itself is recorded.
    const exports = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/log/admin/list',
      { action: 'log.export' },
      asOwner(),
    );
    expect(exports.data.total).toBe(2);
  });

  it('refuses a bad export request with the envelope and records nothing', async () => {
    const response = await download({ view: 'signin', format: 'pdf' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 400 });
    const exports = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/log/admin/list',
      { action: 'log.export' },
      asOwner(),
    );
    expect(exports.data.total).toBe(2);
  });
});

describe('retention', () => {
  it('validates the days in both languages and stores nothing on refusal', async () => {
    expect(await call(ctx, '/api/v1/manage/log/settings', {}, asOwner())).toMatchObject({
      data: { retentionDays: 180 },
    });
    for (const [lang, msg] of [
      ['en', 'Logs are kept between 1 and 3650 days'],
      ['zh', '日志保留天数须在 1 到 3650 天之间'],
    ]) {
      expect(
        await call(ctx, '/api/v1/manage/log/settings/update', { retentionDays: 0 }, { ...asOwner(), lang }),
      ).toMatchObject({ code: 400, msg });
    }
    expect(await call(ctx, '/api/v1/manage/log/settings', {}, asOwner())).toMatchObject({
      data: { retentionDays: 180 },
    });
  });

  it('purges events older than the retention from the jobs table', async () => {
    const before = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      { range: 'three_months' },
      asOwner(),
    );
    expect(
      await call(ctx, '/api/v1/manage/log/settings/update', { retentionDays: 60 }, asOwner()),
    ).toMatchObject({
      code: 200,
      data: { retentionDays: 60 },
    });
    await ctx.tessera.jobs.runSoon('log.purge');
    await ctx.tessera.jobs.drain();
    const left = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/log/sign-in/list',
      { range: 'three_months' },
      asOwner(),
    );
    // The event of 80 days ago is gone (and the one of 120); those of 40 and 50 days ago stay.
    expect(left.data.total).toBe(before.data.total - 1);
    expect(
      await ctx.database.db
        .selectFrom('login_events')
        .select('id')
        .where('company_id', '=', owner.companyId)
        .where('created_at', '<', new Date(Date.now() - 60 * DAY))
        .execute(),
    ).toEqual([]);
    const job = await ctx.database.db
      .selectFrom('jobs')
      .select(['run_after', 'attempts', 'last_error'])
      .where('key', '=', 'every:log.purge')
      .executeTakeFirstOrThrow();
    expect(job.last_error).toBeNull();
    expect(job.run_after.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
  });
});
