import { describe, expect, it } from 'vitest';
import { call, createAccount, sessionFor, type TestContext } from '../../test/harness.ts';
import { type Company, PASSWORD, userTestbed } from '../../test/user-kit.ts';
import { insertManagedAccount } from './user-write.repo.ts';

/**
 * Creating users (user-profile.service.ts): a company's managed members (user/create) and the admin
 * console's developer accounts.
 */

let ctx: TestContext;
let acme: Company;
let other: Company;

const { asAcme, createUser, snapshot, auditOf, rootOf, department } = userTestbed((bed) => {
  ({ ctx, acme, other } = bed);
});

describe('user create', () => {
  it('creates a managed member with profile, departments and forced password change, audited', async () => {
    const sales = await department(acme, 'Sales', await rootOf(acme));
    const before = await snapshot();
    const created = await createUser({
      username: 'alice',
      name: ' Alice Liddell ',
      nickname: 'Al',
      email: 'Alice@Example.com',
      phone: '+86 138-0013-8000',
      departmentIds: [sales],
    });
    expect(created.code).toBe(200);
    expect(created.data).toMatchObject({
      username: 'alice',
      name: 'Alice Liddell',
      nickname: 'Al',
      email: 'alice@example.com',
      phone: '+8613800138000',
      status: 'enabled',
      role: 'member',
      isOwner: false,
      managed: true,
      mustChangePassword: true,
      loginCount: 0,
      departments: [{ departmentId: sales, name: 'Sales' }],
    });
    const account = await ctx.database.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', created.data.userId)
      .executeTakeFirstOrThrow();
    expect(account.home_company_id).toBe(acme.companyId);
    expect(account.password_hash).toMatch(/^\$argon2id\$/);
    const after = await snapshot();
    expect(after.accounts).toBe(before.accounts + 1);
    expect(after.members).toBe(before.members + 1);
    const audit = await auditOf(created.data.userId, 'user.create');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      company_id: acme.companyId,
      actor_account_id: acme.account.id,
      target_type: 'user',
    });
    expect(JSON.stringify(audit[0]?.after)).not.toContain(PASSWORD);

    const detail = await asAcme('detail', { userId: created.data.userId });
    expect(detail.data).toEqual(created.data);

    const optional = await createUser({ username: 'bob', mustChangePassword: false, email: '', phone: '' });
    expect(optional.data).toMatchObject({
      email: null,
      phone: null,
      mustChangePassword: false,
      departments: [],
    });
  });

  it('refuses bad input with a localised message naming the problem, storing nothing', async () => {
    await createUser({ username: 'taken-name', email: 'taken@example.com', phone: '13900000000' });
    const foreignDepartment = await rootOf(other);
    const before = await snapshot();
    const cases: [Record<string, unknown>, string, string, string?][] = [
      [{ username: 'bad name!' }, 'member.username_invalid', 'username'],
      [{ username: '' }, 'request.invalid', 'username'],
      [
        { username: 'mismatch', confirmPassword: 'Other-Day-42' },
        'user.password_mismatch',
        'confirmPassword',
      ],
      [
        { username: 'weak', password: 'abcdefgh', confirmPassword: 'abcdefgh' },
        'password.missing_classes',
        'password',
      ],
      [{ username: 'short', password: 'ab1', confirmPassword: 'ab1' }, 'password.too_short', 'password'],
      [
        { username: 'sunny', password: 'Sunny-42x', confirmPassword: 'Sunny-42x' },
        'password.contains_username',
        'password',
      ],
      [{ username: 'bad-mail', email: 'nope' }, 'user.email_invalid', 'email'],
      [{ username: 'bad-phone', phone: '12ab' }, 'user.phone_invalid', 'phone'],
      [{ username: 'TAKEN-NAME' }, 'user.username_taken', 'username'],
      [{ username: 'mail-twin', email: 'TAKEN@example.com' }, 'user.email_taken', 'email'],
      [{ username: 'phone-twin', phone: '139-0000-0000' }, 'user.phone_taken', 'phone'],
      [{ username: 'foreign-dept', departmentIds: [foreignDepartment] }, 'department.not_found', ''],
      [{ username: 'x'.repeat(65) }, 'request.invalid', 'username'],
    ];
    for (const [fields, reason, field] of cases) {
      const response = await createUser(fields);
      expect({ fields, reason: (response.data as unknown as { reason: string }).reason }).toEqual({
        fields,
        reason,
      });
      expect(response.code).toBeGreaterThanOrEqual(400);
      if (field) {
        const marked = (response.data as unknown as { fields?: { field: string }[] }).fields ?? [];
        expect(marked.map((f) => f.field)).toContain(field);
      }
    }
    const mismatch = await createUser({ username: 'mm', confirmPassword: 'x' });
    expect(mismatch.msg).toBe('Entered Passwords Differ');
    const zh = await createUser({ username: 'mm', confirmPassword: 'x' }, 'zh-CN');
    expect(zh.msg).toBe('两次输入的密码不一致');
    const weakZh = await createUser(
      { username: 'weak', password: 'abcdefgh', confirmPassword: 'abcdefgh' },
      'zh',
    );
    expect(weakZh.msg).toBe('密码必须包含数字');
    const takenZh = await createUser({ username: 'taken-name' }, 'zh');
    expect(takenZh).toMatchObject({ code: 409, msg: '该用户名已被使用' });
    expect(await snapshot()).toEqual(before);
  });

  it('takes a place in the licence user quantity and refuses beyond it, storing nothing', async () => {
    // Unlicensed installations allow 100 accounts: fill up to the last free place.
    const used = Number(
      (
        await ctx.database.db
          .selectFrom('accounts')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('is_platform_admin', '=', false)
          .executeTakeFirstOrThrow()
      ).n,
    );
    const fillers: string[] = [];
    for (let i = used; i < 99; i++) {
      fillers.push(
        await insertManagedAccount(ctx.database.db, other.companyId, {
          username: `filler-${i}`,
          passwordHash: '!',
          mustChangePassword: true,
        }),
      );
    }
    expect((await createUser({ username: 'last-place' })).code).toBe(200);
    const before = await snapshot();
    const refused = await createUser({ username: 'one-too-many' });
    expect(refused).toMatchObject({ code: 403, data: { reason: 'license.user_quantity_exceeded' } });
    expect(await snapshot()).toEqual(before);
    await ctx.database.db.deleteFrom('accounts').where('id', 'in', fillers).execute();
  });
});

describe('admin/create-dev-user', () => {
  const body = {
    username: 'dev-person',
    password: PASSWORD,
    confirmPassword: PASSWORD,
    email: 'dev@example.com',
  };

  it('lets a platform administrator (admin console) create a developer account, audited', async () => {
    const operator = await createAccount(ctx, { username: 'operator', platformAdmin: true });
    const token = await sessionFor(ctx, operator.id, 'admin');
    const created = await call<{ userId: string; username: string }>(
      ctx,
      '/api/v1/manage/user/admin/create-dev-user',
      body,
      { token },
    );
    expect(created.code).toBe(200);
    expect(created.data.username).toBe('dev-person');
    const account = await ctx.database.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', created.data.userId)
      .executeTakeFirstOrThrow();
    expect(account).toMatchObject({
      home_company_id: null,
      is_platform_admin: false,
      email: 'dev@example.com',
    });
    const memberships = await ctx.database.db
      .selectFrom('company_members')
      .select('company_id')
      .where('account_id', '=', created.data.userId)
      .execute();
    expect(memberships).toEqual([]);
    const audit = await auditOf(created.data.userId, 'user.create');
    expect(audit).toMatchObject([{ company_id: null, actor_account_id: operator.id }]);
    // The developer signs in to the developer console and creates a company.
    const devToken = await sessionFor(ctx, created.data.userId, 'dev');
    const company = await call(ctx, '/api/v1/manage/company/create', { name: 'Dev Co' }, { token: devToken });
    expect(company.code).toBe(200);

    const again = await call(ctx, '/api/v1/manage/user/admin/create-dev-user', body, { token });
    expect(again).toMatchObject({ code: 409, data: { reason: 'user.username_taken' } });
  });

  it('refuses everyone else, and bad input, storing nothing', async () => {
    const before = await snapshot();
    const refused = await call(
      ctx,
      '/api/v1/manage/user/admin/create-dev-user',
      { ...body, username: 'dev-two' },
      { token: acme.token },
    );
    expect(refused).toMatchObject({ code: 403, data: { reason: 'user.dev_user_admin_only' } });
    const operator = await createAccount(ctx, { username: 'operator-two', platformAdmin: true });
    const devSession = await sessionFor(ctx, operator.id, 'dev');
    expect(
      (
        await call(
          ctx,
          '/api/v1/manage/user/admin/create-dev-user',
          { ...body, username: 'dev-three' },
          { token: devSession },
        )
      ).data,
    ).toMatchObject({ reason: 'user.dev_user_admin_only' });
    const adminSession = await sessionFor(ctx, operator.id, 'admin');
    const weak = await call(
      ctx,
      '/api/v1/manage/user/admin/create-dev-user',
      { username: 'dev-four', password: 'short', confirmPassword: 'short' },
      { token: adminSession },
    );
    expect(weak.data).toMatchObject({ reason: 'password.too_short' });
    const mismatch = await call(
      ctx,
      '/api/v1/manage/user/admin/create-dev-user',
      { username: 'dev-four', password: PASSWORD, confirmPassword: 'nope' },
      { token: adminSession },
    );
    expect(mismatch.data).toMatchObject({ reason: 'user.password_mismatch' });
    expect(await snapshot()).toEqual({ ...before, accounts: before.accounts + 1 });
  });
});
