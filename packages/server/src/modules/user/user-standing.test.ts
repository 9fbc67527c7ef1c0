import { describe, expect, it } from 'vitest';
import { browse, CookieJar, signInToPortal, submitSignIn } from '../../test/browser-flow.ts';
import { call, createAccount, sessionFor, type TestContext, TINY_PNG } from '../../test/harness.ts';
import { type Company, PASSWORD, userTestbed } from '../../test/user-kit.ts';
import { createAccountsRepo } from '../account/account.repo.ts';
import { createSignInService } from '../signin/signin.service.ts';
import { insertManagedAccount } from './user-write.repo.ts';

/**
 * A user's standing (user-standing.service.ts): their status, an administrator's reset of their
 * password, and their removal.
 */

let ctx: TestContext;
let acme: Company;
let other: Company;

const { asAcme, createUser, snapshot, auditOf, rootOf, uploadPhoto } = userTestbed((bed) => {
  ({ ctx, acme, other } = bed);
});

describe('user status', () => {
  it('disables an administrator: they can no longer use the company; enabling gives it back', async () => {
    const admin = await call<{ userId: string }>(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'acme-admin', role: 'admin', password: PASSWORD },
      { token: acme.token, companyId: acme.companyId },
    );
    expect(admin.code).toBe(200);
    const adminToken = await sessionFor(ctx, admin.data.userId);
    const asAdmin = () =>
      call(ctx, '/api/v1/manage/company/detail', {}, { token: adminToken, companyId: acme.companyId });
    expect((await asAdmin()).code).toBe(200);

    const disabled = await asAcme('status', { userId: admin.data.userId, status: 'disabled' });
    expect(disabled.data).toMatchObject({ status: 'disabled', role: 'admin', managed: true });
    // Issue 12: the company manages the account fully, so its session ends: nothing works any more,
    // not even calls outside the company (creating a company of their own).
    expect(await asAdmin()).toMatchObject({ code: 401 });
    const create = await call(
      ctx,
      '/api/v1/manage/company/create',
      { name: 'Elsewhere' },
      { token: adminToken },
    );
    expect(create.code).toBe(401);

    await asAcme('status', { userId: admin.data.userId, status: 'locked' });
    const enabled = await asAcme('status', { userId: admin.data.userId, status: 'enabled' });
    expect(enabled.data.status).toBe('enabled');
    // The old session stays ended; a new one works.
    expect((await asAdmin()).code).toBe(401);
    const again = await sessionFor(ctx, admin.data.userId);
    expect(
      (await call(ctx, '/api/v1/manage/company/detail', {}, { token: again, companyId: acme.companyId }))
        .code,
    ).toBe(200);
    const audit = await auditOf(admin.data.userId, 'user.status');
    expect(audit.map((a) => (a.after as { status: string }).status)).toEqual([
      'disabled',
      'locked',
      'enabled',
    ]);
  });

  it('shows an automatic lock-out as locked; enabling a managed user lifts it, not that of others', async () => {
    const created = await createUser({ username: 'locked-out' });
    const until = new Date(Date.now() + 600_000);
    await ctx.database.db
      .updateTable('accounts')
      .set({ locked_until: until, failed_count: 5, last_failed_at: new Date() })
      .where('id', 'in', [created.data.userId, acme.account.id])
      .execute();
    const detail = await asAcme('detail', { userId: created.data.userId });
    expect(detail.data).toMatchObject({ status: 'locked', failedCount: 5, lockedUntil: until.toISOString() });
    const enabled = await asAcme('status', { userId: created.data.userId, status: 'enabled' });
    expect(enabled.data).toMatchObject({ status: 'enabled', failedCount: 0, lockedUntil: null });
    // The owner's account is not the company's: its lock-out stays.
    const owner = await asAcme('status', { userId: acme.account.id, status: 'enabled' });
    expect(owner.data).toMatchObject({ status: 'locked', failedCount: 5 });
    await ctx.database.db
      .updateTable('accounts')
      .set({ locked_until: null, failed_count: 0 })
      .where('id', '=', acme.account.id)
      .execute();
  });

  it('protects the owner and the caller, and refuses bad input, storing nothing', async () => {
    const admin = await call<{ userId: string }>(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'acme-admin-two', role: 'admin', password: PASSWORD },
      { token: acme.token, companyId: acme.companyId },
    );
    const adminToken = await sessionFor(ctx, admin.data.userId);
    const asAdmin = (body: unknown) =>
      call(ctx, '/api/v1/manage/user/status', body, { token: adminToken, companyId: acme.companyId });
    const before = await snapshot();
    expect((await asAdmin({ userId: acme.account.id, status: 'disabled' })).data).toMatchObject({
      reason: 'user.owner_protected',
    });
    expect((await asAdmin({ userId: admin.data.userId, status: 'locked' })).data).toMatchObject({
      reason: 'user.self_change',
    });
    expect((await asAcme('status', { userId: acme.account.id, status: 'disabled' })).data).toMatchObject({
      reason: 'user.owner_protected',
    });
    expect((await asAcme('status', { userId: admin.data.userId, status: 'frozen' })).code).toBe(400);
    expect((await asAcme('status', { userId: other.account.id, status: 'disabled' })).data).toMatchObject({
      reason: 'user.not_found',
    });
    expect(await snapshot()).toEqual(before);
  });

  it('keeps a disabled or locked managed person from signing in; an account without a password never signs in', async () => {
    const signIn = createSignInService({
      db: ctx.database.db,
      accounts: createAccountsRepo(ctx.database.db),
    });
    const attempt = (identifier: string, password = PASSWORD) =>
      signIn.signInWithPassword({
        identifier,
        password,
        ip: '203.0.113.9',
        userAgent: null,
        clientId: null,
        companyId: null,
      });
    const created = await createUser({ username: 'signs-in' });
    expect((await attempt('signs-in')).ok).toBe(true);
    await asAcme('status', { userId: created.data.userId, status: 'disabled' });
    expect(await attempt('signs-in')).toMatchObject({ ok: false, cause: 'account_disabled' });
    await asAcme('status', { userId: created.data.userId, status: 'locked' });
    expect(await attempt('signs-in')).toMatchObject({ ok: false, cause: 'account_locked' });
    // The sign-in page says who can lift a lock an administrator set (it has no end time).
    const jar = new CookieJar();
    const { url } = await browse(jar, `${ctx.baseUrl}/portal/account`);
    const refused = await submitSignIn(jar, url, 'signs-in', PASSWORD);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('This account has been locked. Please contact your administrator');
    await asAcme('status', { userId: created.data.userId, status: 'enabled' });
    expect((await attempt('signs-in')).ok).toBe(true);

    await insertManagedAccount(ctx.database.db, acme.companyId, {
      username: 'imported-one',
      passwordHash: '!',
      mustChangePassword: true,
    });
    expect(await attempt('imported-one', '!')).toMatchObject({ ok: false, cause: 'wrong_password' });
    // As slow as a wrong password: the dummy argon2 hash is verified.
    const started = performance.now();
    await attempt('imported-one', 'anything-1');
    expect(performance.now() - started).toBeGreaterThan(5);
  });
});

describe('password reset', () => {
  it('also ends the single sign-on session of the browser the person signed in with', async () => {
    const created = await createUser({ username: 'sso-reset', mustChangePassword: false });
    const account = `${ctx.baseUrl}/portal/account`;
    const { jar, page } = await signInToPortal(ctx.baseUrl, 'sso-reset', PASSWORD);
    expect(page.url).toBe(account);
    // Without the user centre's own session, the provider's session signs the person in again.
    jar.cookies.delete('tessera_portal');
    expect((await browse(jar, account)).url).toBe(account);

    // The session keeps its sign-in time in whole seconds.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const reset = await asAcme('password/reset', {
      userId: created.data.userId,
      password: 'Fresh-Pass-2027',
      confirmPassword: 'Fresh-Pass-2027',
      mustChangePassword: false,
    });
    expect(reset.code).toBe(200);
    jar.cookies.delete('tessera_portal');
    expect((await browse(jar, account)).url).toMatch(/\/interaction\//);
  });

  it("sets a managed user's password, can force a change, and ends their sessions", async () => {
    const created = await createUser({ username: 'resettable', mustChangePassword: false });
    const userToken = await sessionFor(ctx, created.data.userId);
    const self = () => call(ctx, '/api/v1/manage/user/self-details', {}, { token: userToken });
    expect((await self()).code).toBe(200);
    const before = await ctx.database.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', created.data.userId)
      .executeTakeFirstOrThrow();
    const reset = await asAcme('password/reset', {
      userId: created.data.userId,
      password: 'Brand-New-77',
      confirmPassword: 'Brand-New-77',
    });
    expect(reset.data).toMatchObject({ mustChangePassword: true });
    const after = await ctx.database.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', created.data.userId)
      .executeTakeFirstOrThrow();
    expect(after.password_hash).not.toBe(before.password_hash);
    expect((await self()).code).toBe(401);
    const audit = await auditOf(created.data.userId, 'user.password_reset');
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0])).not.toContain('Brand-New-77');
    const keep = await asAcme('password/reset', {
      userId: created.data.userId,
      password: 'Brand-New-78',
      confirmPassword: 'Brand-New-78',
      mustChangePassword: false,
    });
    expect(keep.data.mustChangePassword).toBe(false);
  });

  it('refuses weak or mismatched passwords and people the company does not manage, storing nothing', async () => {
    const created = await createUser({ username: 'reset-refused' });
    const hash = async () =>
      (
        await ctx.database.db
          .selectFrom('accounts')
          .select('password_hash')
          .where('id', '=', created.data.userId)
          .executeTakeFirstOrThrow()
      ).password_hash;
    const before = { hash: await hash(), ...(await snapshot()) };
    const cases: [Record<string, unknown>, string][] = [
      [{ userId: created.data.userId, password: 'short1', confirmPassword: 'short1' }, 'password.too_short'],
      [
        { userId: created.data.userId, password: 'Reset-Refused-1', confirmPassword: 'Reset-Refused-1' },
        'password.contains_username',
      ],
      [
        { userId: created.data.userId, password: PASSWORD, confirmPassword: 'other' },
        'user.password_mismatch',
      ],
      [{ userId: created.data.userId, password: '', confirmPassword: '' }, 'user.password_required'],
      [{ userId: acme.account.id, password: PASSWORD, confirmPassword: PASSWORD }, 'user.not_managed'],
      [{ userId: other.account.id, password: PASSWORD, confirmPassword: PASSWORD }, 'user.not_found'],
    ];
    for (const [body, reason] of cases) {
      const response = await asAcme('password/reset', body);
      expect({ body, reason: (response.data as unknown as { reason: string }).reason }).toEqual({
        body,
        reason,
      });
    }
    expect({ hash: await hash(), ...(await snapshot()) }).toEqual(before);
  });
});

describe('user delete', () => {
  it('deletes a managed account that belongs nowhere else, with its records, sessions and photo', async () => {
    const created = await createUser({ username: 'leaver', departmentIds: [await rootOf(acme)] });
    await uploadPhoto(created.data.userId, TINY_PNG);
    await sessionFor(ctx, created.data.userId);
    const before = await snapshot();
    const removed = await asAcme('del', { userId: created.data.userId });
    expect(removed.data).toEqual({ userId: created.data.userId });
    const after = await snapshot();
    expect(after.accounts).toBe(before.accounts - 1);
    expect(after.members).toBe(before.members - 1);
    expect(after.files).toBe(before.files - 1);
    expect(after.departmentMembers).toBe(before.departmentMembers - 1);
    const audit = await auditOf(created.data.userId, 'user.delete');
    expect(audit[0]?.after).toEqual({ accountDeleted: true });
    expect((await asAcme('detail', { userId: created.data.userId })).data).toMatchObject({
      reason: 'user.not_found',
    });
  });

  it('keeps an account that belongs to another company, removing only the record', async () => {
    const created = await createUser({ username: 'two-homes' });
    await ctx.database.db
      .insertInto('company_members')
      .values({ company_id: other.companyId, account_id: created.data.userId, role: 'member' })
      .execute();
    await asAcme('del', { userId: created.data.userId });
    const account = await ctx.database.db
      .selectFrom('accounts')
      .select(['id', 'home_company_id'])
      .where('id', '=', created.data.userId)
      .executeTakeFirstOrThrow();
    expect(account.home_company_id).toBeNull();
    const records = await ctx.database.db
      .selectFrom('company_members')
      .select('company_id')
      .where('account_id', '=', created.data.userId)
      .execute();
    expect(records).toEqual([{ company_id: other.companyId }]);

    // Someone the company does not manage: only the record goes.
    const outsider = await createAccount(ctx, { username: 'outsider' });
    await ctx.database.db
      .insertInto('company_members')
      .values({ company_id: acme.companyId, account_id: outsider.id, role: 'member' })
      .execute();
    const managed = await call<{ departmentId: string }>(
      ctx,
      '/api/v1/manage/department/create',
      { name: 'Led by the outsider', parentId: await rootOf(acme), managerId: outsider.id },
      { token: acme.token, companyId: acme.companyId },
    );
    expect(managed.code).toBe(200);
    expect((await asAcme('del', { userId: outsider.id })).code).toBe(200);
    // Gone from the company, so no longer the manager of its department.
    const led = await ctx.database.db
      .selectFrom('departments')
      .select('manager_account_id')
      .where('id', '=', managed.data.departmentId)
      .executeTakeFirstOrThrow();
    expect(led.manager_account_id).toBeNull();
    expect(
      await ctx.database.db
        .selectFrom('accounts')
        .select('id')
        .where('id', '=', outsider.id)
        .executeTakeFirst(),
    ).toBeDefined();
  });

  it('protects the owner and the caller, and never reaches another company, storing nothing', async () => {
    const before = await snapshot();
    expect((await asAcme('del', { userId: acme.account.id })).data).toMatchObject({
      reason: 'user.owner_protected',
    });
    expect((await asAcme('del', { userId: other.account.id })).data).toMatchObject({
      reason: 'user.not_found',
    });
    const admin = await call<{ userId: string }>(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'self-remover', role: 'admin', password: PASSWORD },
      { token: acme.token, companyId: acme.companyId },
    );
    const adminToken = await sessionFor(ctx, admin.data.userId);
    const self = await call(
      ctx,
      '/api/v1/manage/user/del',
      { userId: admin.data.userId },
      { token: adminToken, companyId: acme.companyId },
    );
    expect(self.data).toMatchObject({ reason: 'user.self_change' });
    expect((await snapshot()).accounts).toBe(before.accounts + 1);
  });
});
