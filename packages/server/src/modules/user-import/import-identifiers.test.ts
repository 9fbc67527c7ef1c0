import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  grantLicense,
  MAIL_NEVER_SENT,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import {
  countAllAccounts,
  type ImportTaskView,
  startImport,
  waitForTask,
  workbookOf,
} from '../../test/import-kit.ts';

/**
 * Issue 12, tenancy: one import file checked 2 000 candidate usernames, emails and phone numbers
 * against the whole platform in a second, row by row. Identifiers of the company's own people are
 * still named by row; those of other companies' people are told only as a count, and that answer
 * spends the company's identifier checks (identifier-checks.ts), each audited, then refused.
 */

let ctx: TestContext;
type Owner = Awaited<ReturnType<typeof ownerWithCompany>>;
let victim: Owner;
let prober: Owner;

const HEADER = ['Username', 'Email', 'Phone'];

async function importRows(as: Owner, rows: string[][], lang = 'en'): Promise<ImportTaskView> {
  const started = await startImport(ctx, as, { bytes: await workbookOf(rows, HEADER) });
  expect(started.code, started.msg).toBe(200);
  return waitForTask(ctx, as, started.data.taskId as string, lang);
}

const vip = (i: number) => [`vip-${i}`, `vip-${i}@victim.example`, `1390000${String(i).padStart(4, '0')}`];

beforeAll(async () => {
  ctx = await startTestApp({ mail: MAIL_NEVER_SENT });
  await grantLicense(ctx, { user: 1000 });
  victim = await ownerWithCompany(ctx, 'ids-victim-owner', 'Victim');
  prober = await ownerWithCompany(ctx, 'ids-prober-owner', 'Prober');
  const people = await importRows(
    victim,
    Array.from({ length: 30 }, (_, i) => vip(i)),
  );
  expect(people).toMatchObject({ status: 'success', created: 30 });
  expect(await importRows(prober, [['own.person', 'own@prober.example', '']])).toMatchObject({
    status: 'success',
  });
});
afterAll(() => ctx.close());

const auditOf = (companyId: string) =>
  ctx.database.db
    .selectFrom('audit_events')
    .select(['after', 'actor_account_id'])
    .where('company_id', '=', companyId)
    .where('action', '=', 'user.identifier_taken')
    .orderBy('created_at')
    .execute();

describe('identifiers taken in an import', () => {
  it("names its own people's rows, counts other companies' without naming them, and spends that many checks", async () => {
    const before = await countAllAccounts(ctx);
    const task = await importRows(
      prober,
      [
        ['fresh.one', '', ''],
        ['OWN.PERSON', '', ''],
        // Two identifiers of one person of another company, and a third person's phone.
        ['vip-0', 'VIP-0@victim.example', ''],
        ['fresh.two', '', vip(1)[2] as string],
        ['fresh.three', 'own@PROBER.example', ''],
      ],
      'zh-CN',
    );
    expect(task.status).toBe('failed');
    expect(task.errors).toEqual([
      {
        row: 0,
        field: null,
        message:
          '文件中有 3 个用户名、邮箱或手机号已被本企业以外的人使用（不显示具体是哪些），请修改后重新导入',
      },
      { row: 3, field: '用户名', message: expect.any(String) },
      { row: 6, field: '邮箱', message: expect.any(String) },
    ]);
    expect(await countAllAccounts(ctx)).toBe(before);
    const audit = await auditOf(prober.companyId);
    expect(audit).toEqual([
      {
        actor_account_id: prober.account.id,
        after: { taskId: task.taskId, fileName: 'people.xlsx', count: 3, told: true },
      },
    ]);
    // The company's own people are not counted against it.
    const own = await importRows(prober, [['own.person', '', '']]);
    expect(own.errors).toEqual([{ row: 2, field: 'Username', message: 'This username is already taken' }]);
    expect(await auditOf(prober.companyId)).toHaveLength(1);
  });

  it("refuses a username that is one of its people's email, and an email that is a username, in the file too", async () => {
    expect(await importRows(prober, [['pat@prober.example', 'pat.mail@prober.example', '']])).toMatchObject({
      status: 'success',
    });
    const before = await countAllAccounts(ctx);
    const task = await importRows(prober, [
      ['OWN@prober.example', '', ''],
      ['quinn', 'pat@PROBER.example', ''],
      ['rae@prober.example', '', ''],
      ['sam', 'rae@prober.example', ''],
    ]);
    expect(task.status).toBe('failed');
    expect(task.errors).toEqual([
      {
        row: 2,
        field: 'Username',
        message:
          "This username is another person's email address: people sign in with either, so it cannot be used",
      },
      {
        row: 3,
        field: 'Email',
        message:
          "This email address is another person's username: people sign in with either, so it cannot be used",
      },
      { row: 5, field: 'Email', message: expect.stringContaining('4') },
    ]);
    expect(await countAllAccounts(ctx)).toBe(before);
  });

  it('refuses once the checks are spent, a file of free names too, until the hour has passed', async () => {
    // 17 checks are left: a file that collides 25 times is refused without its count.
    const probe = await importRows(
      prober,
      Array.from({ length: 25 }, (_, i) => [`vip-${i + 5}`, '', '']),
    );
    const exhausted = [
      {
        row: 0,
        field: null,
        message:
          'Too many usernames, emails or phone numbers already in use elsewhere were tried; adding and changing people is paused for up to an hour',
      },
    ];
    expect(probe.errors).toEqual(exhausted);
    expect((await auditOf(prober.companyId)).at(-1)?.after).toMatchObject({ count: 25, told: false });
    // Nothing is even looked up now: a success would tell as much as "taken".
    const free = await importRows(prober, [['surely.free', '', '']]);
    expect(free.errors).toEqual(exhausted);
    expect(await auditOf(prober.companyId)).toHaveLength(2);
    // Another company is not affected.
    expect(await importRows(victim, [['victim.new', '', '']])).toMatchObject({ status: 'success' });
    await sql`update rate_windows set last_minute = last_minute - 61 where key = ${`identifier-checks:${prober.companyId}`}`.execute(
      ctx.database.db,
    );
    expect(await importRows(prober, [['surely.free', '', '']])).toMatchObject({
      status: 'success',
      created: 1,
    });
  });
});
