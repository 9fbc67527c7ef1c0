import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { browse, CookieJar, signInToPortal, submitSignIn } from '../../test/browser-flow.ts';
import {
  call,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
  TINY_PNG,
} from '../../test/harness.ts';
import { createAccountsRepo } from '../account/account.repo.ts';
import { createSignInService } from '../signin/signin.service.ts';
import { insertManagedAccount } from './user-write.repo.ts';

let ctx: TestContext;
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;
let other: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  acme = await ownerWithCompany(ctx, 'acme-owner', 'Acme');
  other = await ownerWithCompany(ctx, 'other-owner', 'Other Co');
});
afterAll(() => ctx.close());

type User = {
  userId: string;
  username: string;
  name: string | null;
  nickname: string | null;
  email: string | null;
  phone: string | null;
  photo: string | null;
  status: string;
  role: string;
  isOwner: boolean;
  managed: boolean;
  mustChangePassword: boolean;
  loginCount: number;
  lastLoginAt: string | null;
  failedCount: number;
  lockedUntil: string | null;
  departments: { departmentId: string; name: string }[];
};

const PASSWORD = 'Sunny-Day-42';

const asAcme = <T = User>(path: string, body: unknown = {}, lang?: string) =>
  call<T>(ctx, `/api/v1/manage/user/${path}`, body, { token: acme.token, companyId: acme.companyId, lang });

const createUser = (fields: Record<string, unknown>, lang?: string) =>
  asAcme('create', { password: PASSWORD, confirmPassword: PASSWORD, ...fields }, lang);

const count = async (
  table: 'accounts' | 'company_members' | 'audit_events' | 'files' | 'department_members',
) =>
  Number(
    (
      await ctx.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const snapshot = async () => ({
  accounts: await count('accounts'),
  members: await count('company_members'),
  audit: await count('audit_events'),
  files: await count('files'),
  departmentMembers: await count('department_members'),
});

const auditOf = (targetId: string, action: string) =>
  ctx.database.db
    .selectFrom('audit_events')
    .selectAll()
    .where('target_id', '=', targetId)
    .where('action', '=', action)
    .orderBy('created_at')
    .execute();

async function rootOf(company: { token: string; companyId: string }) {
  const tree = await call<{ tree: { departmentId: string } }>(
    ctx,
    '/api/v1/manage/department/tree',
    {},
    { token: company.token, companyId: company.companyId },
  );
  return tree.data.tree.departmentId;
}

async function department(company: { token: string; companyId: string }, name: string, parentId: string) {
  const created = await call<{ departmentId: string }>(
    ctx,
    '/api/v1/manage/department/create',
    { name, parentId },
    { token: company.token, companyId: company.companyId },
  );
  expect(created.code).toBe(200);
  return created.data.departmentId;
}

/** A multipart upload with text fields before the file, as the console sends the photo. */
async function uploadPhoto(userId: string, bytes: Buffer, type = 'image/png', company = acme) {
  const boundary = `----tessera${randomBytes(8).toString('hex')}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="userId"\r\n\r\n${userId}\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const response = await ctx.tessera.app.inject({
    method: 'POST',
    url: '/api/v1/manage/user/photo',
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      access_token: company.token,
      company_id: company.companyId,
    },
    payload,
  });
  return response.json() as { code: number; msg: string; data: User & { reason?: string } };
}

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

describe('user list', () => {
  let listed: Awaited<ReturnType<typeof ownerWithCompany>>;
  let engineering: string;
  let backend: string;
  const ids: Record<string, string> = {};

  const list = (body: Record<string, unknown>) =>
    call<{ list: User[]; total: number }>(ctx, '/api/v1/manage/user/list', body, {
      token: listed.token,
      companyId: listed.companyId,
    });

  beforeAll(async () => {
    listed = await ownerWithCompany(ctx, 'list-owner', 'Listed');
    const root = await rootOf(listed);
    engineering = await department(listed, 'Engineering', root);
    backend = await department(listed, 'Backend', engineering);
    const people = [
      { username: 'carol', name: 'Carol Zeta', email: 'carol@corp.example', phone: '13811110001', logins: 5 },
      { username: 'dave', name: 'Dave Young', email: 'dave@corp.example', phone: '13811110002', logins: 1 },
      { username: 'erin', name: null, email: 'erin@mail.example', phone: null, logins: 9 },
      { username: 'frank_100%', name: 'Frank Xu', email: null, phone: '+4915112345678', logins: 0 },
      { username: 'grace', name: 'Grace Wu', email: 'grace@corp.example', phone: null, logins: 3 },
    ];
    let minute = 0;
    for (const person of people) {
      const id = await insertManagedAccount(ctx.database.db, listed.companyId, {
        username: person.username,
        name: person.name,
        email: person.email,
        phone: person.phone,
        passwordHash: '!',
        mustChangePassword: true,
      });
      ids[person.username] = id;
      minute += 1;
      await ctx.database.db
        .updateTable('accounts')
        .set({
          login_count: person.logins,
          last_login_at: person.logins ? new Date(Date.UTC(2025, 0, 1, 0, person.logins)) : null,
        })
        .where('id', '=', id)
        .execute();
      await ctx.database.db
        .updateTable('company_members')
        .set({ created_at: new Date(Date.UTC(2025, 1, 1, 0, minute)) })
        .where('account_id', '=', id)
        .execute();
    }
    await ctx.database.db
      .insertInto('department_members')
      .values([
        { department_id: engineering, company_id: listed.companyId, account_id: ids.carol! },
        { department_id: backend, company_id: listed.companyId, account_id: ids.dave! },
      ])
      .execute();
    await ctx.database.db
      .updateTable('company_members')
      .set({ status: 'disabled' })
      .where('account_id', '=', ids.erin!)
      .execute();
    await ctx.database.db
      .updateTable('accounts')
      .set({ locked_until: new Date(Date.now() + 600_000), failed_count: 5 })
      .where('id', '=', ids.grace!)
      .execute();
  });

  const names = (response: { data: { list: User[] } }) => response.data.list.map((u) => u.username);

  it('pages and sorts on the server, newest first by default', async () => {
    const first = await list({ pageSize: 2 });
    expect(first.data.total).toBe(6);
    expect(names(first)).toEqual(['list-owner', 'grace']);
    const second = await list({ page: 2, pageSize: 2 });
    expect(names(second)).toEqual(['frank_100%', 'erin']);
    expect(names(await list({ page: 4, pageSize: 2 }))).toEqual([]);
    expect(names(await list({ sortBy: 'username', sortOrder: 'asc' }))).toEqual([
      'carol',
      'dave',
      'erin',
      'frank_100%',
      'grace',
      'list-owner',
    ]);
    expect(names(await list({ sortBy: 'loginCount', sortOrder: 'desc', pageSize: 3 }))).toEqual([
      'erin',
      'carol',
      'grace',
    ]);
    // Never signed in: last either way.
    const byLogin = names(await list({ sortBy: 'lastLoginAt', sortOrder: 'asc' }));
    expect(byLogin.slice(0, 4)).toEqual(['dave', 'grace', 'carol', 'erin']);
    expect(byLogin.slice(4).sort()).toEqual(['frank_100%', 'list-owner']);
    expect(names(await list({ sortBy: 'name', sortOrder: 'asc' })).slice(0, 4)).toEqual([
      'carol',
      'dave',
      'frank_100%',
      'grace',
    ]);
  });

  it('searches name, username, email and phone, case-insensitively and literally', async () => {
    expect(names(await list({ keyword: 'ZETA' }))).toEqual(['carol']);
    expect(names(await list({ keyword: 'corp.example', sortBy: 'username', sortOrder: 'asc' }))).toEqual([
      'carol',
      'dave',
      'grace',
    ]);
    expect(names(await list({ keyword: '1381111000' })).sort()).toEqual(['carol', 'dave']);
    expect(names(await list({ keyword: '138-1111-0002' }))).toEqual(['dave']);
    expect(names(await list({ keyword: 'ERIN@' }))).toEqual(['erin']);
    expect(names(await list({ keyword: '100%' }))).toEqual(['frank_100%']);
    expect((await list({ keyword: '%' })).data.total).toBe(1);
    expect((await list({ keyword: '_' })).data.total).toBe(1);
    // Another company's people are never found.
    expect((await list({ keyword: 'alice' })).data.total).toBe(0);
    expect((await list({ keyword: 'zeta', page: 1, pageSize: 1 })).data).toMatchObject({ total: 1 });
  });

  it('filters by status (an automatic lock-out counts as locked) and by department with sub departments', async () => {
    expect(names(await list({ status: 'disabled' }))).toEqual(['erin']);
    const locked = await list({ status: 'locked' });
    expect(names(locked)).toEqual(['grace']);
    expect(locked.data.list[0]).toMatchObject({ status: 'locked', failedCount: 5 });
    expect(locked.data.list[0]?.lockedUntil).not.toBeNull();
    expect((await list({ status: 'enabled' })).data.total).toBe(4);
    expect(names(await list({ departmentId: engineering })).sort()).toEqual(['carol', 'dave']);
    expect(names(await list({ departmentId: engineering, includeSubDepartments: false }))).toEqual(['carol']);
    expect(names(await list({ departmentId: backend }))).toEqual(['dave']);
    const withDepartments = await list({ departmentId: backend });
    expect(withDepartments.data.list[0]?.departments).toEqual([{ departmentId: backend, name: 'Backend' }]);
    expect(names(await list({ departmentId: engineering, keyword: 'dave', status: 'enabled' }))).toEqual([
      'dave',
    ]);
    const foreign = await list({ departmentId: await rootOf(acme) });
    expect(foreign).toMatchObject({ code: 404, data: { reason: 'department.not_found' } });
  });

  it('refuses bad list input with a message naming the field', async () => {
    expect((await list({ sortBy: 'password' })).msg).toBe('sortBy is not one of the allowed values');
    expect((await list({ pageSize: 1000 })).msg).toBe('pageSize must be at most 100');
    expect((await list({ status: 'gone' })).code).toBe(400);
    expect((await list({ keyword: 'x'.repeat(101) })).code).toBe(400);
  });
});

describe('user update', () => {
  it('changes the profile and departments of a managed user, audited with before and after', async () => {
    const created = await createUser({ username: 'upd-one', email: 'upd@example.com' });
    const support = await department(acme, 'Support', await rootOf(acme));
    const updated = await asAcme('update', {
      userId: created.data.userId,
      name: 'Updated Name',
      nickname: '',
      email: 'UPD2@example.com',
      phone: '13700000000',
      departmentIds: [support],
      mustChangePassword: false,
    });
    expect(updated.data).toMatchObject({
      name: 'Updated Name',
      nickname: null,
      email: 'upd2@example.com',
      phone: '13700000000',
      mustChangePassword: false,
      departments: [{ departmentId: support, name: 'Support' }],
    });
    const audit = await auditOf(created.data.userId, 'user.update');
    expect(audit[0]?.before).toMatchObject({ email: 'upd@example.com', departments: [] });
    expect(audit[0]?.after).toMatchObject({ email: 'upd2@example.com', departments: [support] });
    // Leaving a field out keeps it.
    const kept = await asAcme('update', { userId: created.data.userId, nickname: 'Nick' });
    expect(kept.data).toMatchObject({ name: 'Updated Name', email: 'upd2@example.com', nickname: 'Nick' });
    const cleared = await asAcme('update', { userId: created.data.userId, departmentIds: [] });
    expect(cleared.data.departments).toEqual([]);
  });

  it('refuses taken or bad values and profile changes of people the company does not manage, storing nothing', async () => {
    const created = await createUser({ username: 'upd-two' });
    await createUser({ username: 'upd-three', email: 'three@example.com', phone: '13600000000' });
    const before = await snapshot();
    const cases: [Record<string, unknown>, string][] = [
      [{ userId: created.data.userId, email: 'THREE@example.com' }, 'user.email_taken'],
      [{ userId: created.data.userId, phone: '136 0000 0000' }, 'user.phone_taken'],
      [{ userId: created.data.userId, email: 'bad' }, 'user.email_invalid'],
      [{ userId: created.data.userId, departmentIds: [await rootOf(other)] }, 'department.not_found'],
      [{ userId: acme.account.id, name: 'Owner Renamed' }, 'user.not_managed'],
      [{ userId: acme.account.id, mustChangePassword: true }, 'user.not_managed'],
      [{ userId: other.account.id, name: 'x' }, 'user.not_found'],
      [{ userId: 'no-such-user', name: 'x' }, 'user.not_found'],
      [{ name: 'x' }, 'request.invalid'],
    ];
    for (const [body, reason] of cases) {
      const response = await asAcme('update', body);
      expect({ body, reason: (response.data as unknown as { reason: string }).reason }).toEqual({
        body,
        reason,
      });
    }
    expect(await snapshot()).toEqual(before);
    const zh = await asAcme('update', { userId: acme.account.id, nickname: 'x' }, 'zh');
    expect(zh).toMatchObject({
      code: 409,
      msg: '该用户的账号不由本公司管理：此处只能修改其状态、部门和成员关系',
    });
    // The record of a person the company does not manage: departments may change.
    const root = await rootOf(acme);
    const owner = await asAcme('update', { userId: acme.account.id, departmentIds: [root] });
    expect(owner.data).toMatchObject({ managed: false, departments: [{ departmentId: root }] });
  });
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

describe('user photo', () => {
  const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

  it('stores a png or gif photo of a managed user and serves it with its content type', async () => {
    const created = await createUser({ username: 'photogenic' });
    const uploaded = await uploadPhoto(created.data.userId, TINY_PNG);
    expect(uploaded.code).toBe(200);
    expect(uploaded.data.photo).toMatch(/^\/api\/v1\/files\/[0-9a-f-]{36}$/);
    const served = await ctx.tessera.app.inject({ method: 'GET', url: uploaded.data.photo ?? '' });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(TINY_PNG)).toBe(true);

    // Declared as png, really a gif: the bytes decide. The previous photo is removed.
    const files = await count('files');
    const replaced = await uploadPhoto(created.data.userId, gif, 'image/png');
    expect(replaced.code).toBe(200);
    expect(await count('files')).toBe(files);
    const servedGif = await ctx.tessera.app.inject({ method: 'GET', url: replaced.data.photo ?? '' });
    expect(servedGif.headers['content-type']).toBe('image/gif');
    expect((await ctx.tessera.app.inject({ method: 'GET', url: uploaded.data.photo ?? '' })).statusCode).toBe(
      404,
    );
    expect(await auditOf(created.data.userId, 'user.photo')).toHaveLength(2);

    const userToken = await sessionFor(ctx, created.data.userId);
    const self = await call(ctx, '/api/v1/manage/user/self-details', {}, { token: userToken });
    expect(self.data).toEqual({
      userId: created.data.userId,
      username: 'photogenic',
      name: null,
      nickname: null,
      photo: replaced.data.photo,
    });
  });

  it('refuses other types, oversized files and people the company does not manage, storing nothing', async () => {
    const created = await createUser({ username: 'no-photo' });
    const before = await snapshot();
    const text = await uploadPhoto(
      created.data.userId,
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      'image/svg+xml',
    );
    expect(text).toMatchObject({ code: 415, data: { reason: 'upload.unsupported_type' } });
    expect(text.msg).toBe('This file type is not allowed; use one of: PNG, JPEG, GIF, WEBP');
    const big = Buffer.concat([TINY_PNG, Buffer.alloc(2 * 1024 * 1024)]);
    expect(await uploadPhoto(created.data.userId, big)).toMatchObject({
      code: 413,
      data: { reason: 'upload.too_large' },
    });
    expect((await uploadPhoto(acme.account.id, TINY_PNG)).data).toMatchObject({ reason: 'user.not_managed' });
    expect((await uploadPhoto(other.account.id, TINY_PNG)).data).toMatchObject({ reason: 'user.not_found' });
    expect(await snapshot()).toEqual(before);
    expect((await asAcme('detail', { userId: created.data.userId })).data.photo).toBeNull();
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

describe('user log and self details', () => {
  it("lists the user's sign-ins for this company and the shared page, newest first, causes localised", async () => {
    const created = await createUser({ username: 'logged' });
    const event = (companyId: string | null, minutesAgo: number, cause: string | null) => ({
      id: newId(),
      company_id: companyId,
      account_id: created.data.userId,
      identifier: 'logged',
      client_id: 'portal',
      ip: '198.51.100.7',
      user_agent: 'Test/1.0',
      result: cause ? ('failure' as const) : ('success' as const),
      failure_cause: cause,
      created_at: new Date(Date.now() - minutesAgo * 60_000),
    });
    await ctx.database.db
      .insertInto('login_events')
      .values([
        event(null, 3, 'wrong_password'),
        event(acme.companyId, 2, null),
        event(other.companyId, 1, null),
      ])
      .execute();
    const log = await asAcme<{ list: Record<string, unknown>[]; total: number }>('log', {
      userId: created.data.userId,
    });
    expect(log.data.total).toBe(2);
    expect(log.data.list).toMatchObject([
      { result: 'success', cause: null, causeText: null, ip: '198.51.100.7', clientId: 'portal' },
      { result: 'failure', cause: 'wrong_password', causeText: 'Wrong password', userAgent: 'Test/1.0' },
    ]);
    const zh = await asAcme<{ list: Record<string, unknown>[] }>(
      'log',
      { userId: created.data.userId, page: 1, pageSize: 1 },
      'zh',
    );
    expect(zh.data.list).toHaveLength(1);
    const second = await asAcme<{ list: Record<string, unknown>[] }>(
      'log',
      { userId: created.data.userId, page: 2, pageSize: 1 },
      'zh',
    );
    expect(second.data.list[0]).toMatchObject({ causeText: '密码错误' });
    expect((await asAcme('log', { userId: other.account.id })).data).toMatchObject({
      reason: 'user.not_found',
    });
  });

  it("names the company's application a sign-in was for, never another company's", async () => {
    const created = await createUser({ username: 'logged-app' });
    const acmeApp = await call<{ app: { clientId: string } }>(
      ctx,
      '/api/v1/manage/app/create',
      { name: 'Grafana' },
      { token: acme.token, companyId: acme.companyId },
    );
    const otherApp = await call<{ app: { clientId: string } }>(
      ctx,
      '/api/v1/manage/app/create',
      { name: 'Secret Other App' },
      { token: other.token, companyId: other.companyId },
    );
    const event = (clientId: string, minutesAgo: number) => ({
      id: newId(),
      company_id: acme.companyId,
      account_id: created.data.userId,
      identifier: 'logged-app',
      client_id: clientId,
      result: 'success' as const,
      created_at: new Date(Date.now() - minutesAgo * 60_000),
    });
    await ctx.database.db
      .insertInto('login_events')
      .values([event(acmeApp.data.app.clientId, 2), event(otherApp.data.app.clientId, 1)])
      .execute();
    const log = await asAcme<{ list: Record<string, unknown>[] }>('log', { userId: created.data.userId });
    expect(log.data.list).toMatchObject([
      { clientId: otherApp.data.app.clientId, appName: null },
      { clientId: acmeApp.data.app.clientId, appName: 'Grafana' },
    ]);
  });

  it('gives the signed-in person their nickname and photo, in any console', async () => {
    const response = await call(ctx, '/api/v1/manage/user/self-details', {}, { token: acme.token });
    expect(response.data).toEqual({
      userId: acme.account.id,
      username: 'acme-owner',
      name: null,
      nickname: null,
      photo: null,
    });
    expect((await call(ctx, '/api/v1/manage/user/self-details', {})).code).toBe(401);
  });
});
