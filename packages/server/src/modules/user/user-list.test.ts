import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { call, ownerWithCompany, type TestContext } from '../../test/harness.ts';
import { type Company, type UserView, userTestbed } from '../../test/user-kit.ts';
import { insertManagedAccount } from './user-write.repo.ts';

/**
 * Reading users (user-query.service.ts): the list (paging, sorting, search, filters), a user's
 * sign-ins and one's own details.
 */

let ctx: TestContext;
let acme: Company;
let other: Company;

const { asAcme, createUser, rootOf, department } = userTestbed((bed) => {
  ({ ctx, acme, other } = bed);
});

describe('user list', () => {
  let listed: Awaited<ReturnType<typeof ownerWithCompany>>;
  let engineering: string;
  let backend: string;
  const ids: Record<string, string> = {};

  const list = (body: Record<string, unknown>) =>
    call<{ list: UserView[]; total: number }>(ctx, '/api/v1/manage/user/list', body, {
      token: listed.token,
      companyId: listed.companyId,
    });

  beforeAll(async () => {
    listed = await ownerWithCompany(ctx, 'list-owner', 'Listed');
    // Acme's Alice, whom the list of another company never finds.
    expect((await createUser({ username: 'alice' })).code).toBe(200);
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

  const names = (response: { data: { list: UserView[] } }) => response.data.list.map((u) => u.username);

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
