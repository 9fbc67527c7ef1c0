import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, grantLicense, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * Issue 12, tenancy: "taken" answers about other companies' people are throttled per company and
 * audited, and once the budget is spent the company adds nobody, so that no answer tells.
 */

let ctx: TestContext;
let victim: Awaited<ReturnType<typeof ownerWithCompany>>;
let prober: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  ctx = await startTestApp();
  await grantLicense(ctx, { user: 1000 });
  victim = await ownerWithCompany(ctx, 'victim-owner', 'Victim');
  prober = await ownerWithCompany(ctx, 'prober-owner', 'Prober');
  for (let i = 0; i < 25; i++)
    await call(
      ctx,
      '/api/v1/manage/user/create',
      {
        username: `vip-${i}`,
        password: 'Sunny-Day-42',
        confirmPassword: 'Sunny-Day-42',
        mustChangePassword: false,
      },
      { token: victim.token, companyId: victim.companyId },
    );
});
afterAll(() => ctx.close());

const create = (company: { token: string; companyId: string }, username: string) =>
  call(
    ctx,
    '/api/v1/manage/user/create',
    { username, password: 'Sunny-Day-42', confirmPassword: 'Sunny-Day-42', mustChangePassword: false },
    { token: company.token, companyId: company.companyId },
  );

describe('identifier checks', () => {
  it("tell its own people freely, and others' 20 times an hour, each audited; then nothing is added", async () => {
    await create(prober, 'own-person');
    for (let i = 0; i < 5; i++)
      expect((await create(prober, 'own-person')).data).toMatchObject({ reason: 'user.username_taken' });
    for (let i = 0; i < 20; i++)
      expect((await create(prober, `vip-${i}`)).data, `probe ${i}`).toMatchObject({
        reason: 'user.username_taken',
      });
    const exhausted = await create(prober, 'vip-20');
    expect(exhausted).toMatchObject({ code: 429, data: { reason: 'user.identifier_checks_exhausted' } });
    // A free username gets the same answer now: success would tell as much as "taken".
    expect((await create(prober, 'surely-free-name')).data).toMatchObject({
      reason: 'user.identifier_checks_exhausted',
    });
    const admin = await call(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'vip-21', role: 'member', password: 'Sunny-Day-42' },
      { token: prober.token, companyId: prober.companyId },
    );
    expect(admin.data).toMatchObject({ reason: 'user.identifier_checks_exhausted' });
    const stored = await ctx.database.db
      .selectFrom('accounts')
      .select('id')
      .where('username', '=', 'surely-free-name')
      .executeTakeFirst();
    expect(stored).toBeUndefined();
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['after'])
      .where('company_id', '=', prober.companyId)
      .where('action', '=', 'user.identifier_taken')
      .execute();
    // The twenty answers given; once spent, nothing more is even looked up.
    expect(audit).toHaveLength(20);
    expect(audit.map((a) => (a.after as { username: string }).username)).toContain('vip-7');
    // Another company is not affected, and an hour later the prober may add people again.
    expect((await create(victim, 'victim-new-hire')).code).toBe(200);
    await sql`update rate_windows set last_minute = last_minute - 61 where key = ${`identifier-checks:${prober.companyId}`}`.execute(
      ctx.database.db,
    );
    expect((await create(prober, 'surely-free-name')).code).toBe(200);
  });
});
