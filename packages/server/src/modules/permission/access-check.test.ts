import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * Issue 15: "check access" explains a verdict (the deciding rules, through which role or
 * department, the rules whose restrictions did not hold, or that none matched), and a preview
 * tells who would gain and who would lose which access before an authorization or a role
 * membership is saved, storing nothing.
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let appId: string;
let ledger: string;
let payroll: string;
let finance: string;
let team: string;
let approvers: string;
type Person = { id: string; username: string };
let fay: Person;
let gus: Person;
let hal: Person;

const admin = <T = Record<string, unknown>>(path: string, body: unknown = {}) =>
  call<T>(ctx, `/api/v1/manage/${path}`, body, { token: owner.token, companyId: owner.companyId });

type Check = {
  allowed: boolean;
  reason: string;
  deciding: { effect: string; via: { type: string; name: string; through: { name: string } | null } }[];
  matched: { applied: boolean; miss: string | null; effect: string }[];
};
const check = (userId: string, resourceId: string, action: string, extra: Record<string, unknown> = {}) =>
  admin<Check>('permission/check', { userId, resourceId, action, ...extra });

type Impact = {
  examined: number;
  gaining: number;
  losing: number;
  people: {
    username: string;
    gained: { resource: string; action: string }[];
    lost: { resource: string; action: string }[];
  }[];
};

beforeAll(async () => {
  ctx = await startTestApp();
  owner = await ownerWithCompany(ctx, 'check-owner');
  [fay, gus, hal] = await Promise.all([
    companyMember(ctx, owner, 'fay'),
    companyMember(ctx, owner, 'gus'),
    companyMember(ctx, owner, 'hal'),
  ]);
  const created = await admin<{ app: { appId: string } }>('app/create', { name: 'Books' });
  appId = created.data.app.appId;
  ledger = (
    await admin<{ resourceId: string }>('permission/resource/create', {
      appId,
      name: 'ledger',
      actions: ['read', 'post'],
    })
  ).data.resourceId;
  payroll = (
    await admin<{ resourceId: string }>('permission/resource/create', {
      appId,
      name: 'payroll',
      actions: ['read'],
    })
  ).data.resourceId;
  const tree = await admin<{ tree: { departmentId: string } }>('department/tree');
  finance = (
    await admin<{ departmentId: string }>('department/create', {
      name: 'Finance',
      parentId: tree.data.tree.departmentId,
    })
  ).data.departmentId;
  team = (await admin<{ departmentId: string }>('department/create', { name: 'Accounts', parentId: finance }))
    .data.departmentId;
  await admin('department/member/add', { departmentId: team, userIds: [fay.id, gus.id] });
  approvers = (
    await admin<{ roleId: string }>('permission/role/create', {
      name: 'Approvers',
      description: 'Post entries',
    })
  ).data.roleId;
  await admin('permission/authorization/create', {
    appId,
    subject: { type: 'department', id: finance },
    resourceIds: [ledger],
    actionScope: 'specific',
    actions: ['read'],
  });
  await admin('permission/authorization/create', {
    appId,
    subject: { type: 'role', id: approvers },
    resourceIds: [ledger],
    restrictions: {
      timeWindows: [{ days: [1, 2, 3, 4, 5], from: '09:00', to: '18:00' }],
      timeZone: 'Asia/Shanghai',
    },
  });
  await admin('permission/authorization/create', {
    appId,
    subject: { type: 'user', id: gus.id },
    effect: 'reject',
    resourceScope: 'all',
    restrictions: { ipRanges: ['203.0.113.0/24'] },
  });
});
afterAll(() => ctx.close());

describe('check access', () => {
  it('names the deciding rule and the department it came through', async () => {
    const answer = await check(fay.id, ledger, 'read');
    expect(answer.data).toMatchObject({
      allowed: true,
      reason: 'allowed',
      deciding: [
        { effect: 'allow', via: { type: 'department', name: 'Finance', through: { name: 'Accounts' } } },
      ],
    });
  });

  it('says that nothing matched, and which rule did not hold and why', async () => {
    expect((await check(fay.id, payroll, 'read')).data).toMatchObject({
      allowed: false,
      reason: 'no_match',
      matched: [],
    });
    await admin('permission/role/member/add', { roleId: approvers, userIds: [hal.id] });
    const saturday = '2026-03-21T12:00:00+08:00';
    const weekday = '2026-03-23T10:00:00+08:00';
    expect((await check(hal.id, ledger, 'post', { at: saturday })).data).toMatchObject({
      allowed: false,
      reason: 'no_match',
      matched: [{ applied: false, miss: 'outside_hours' }],
    });
    expect((await check(hal.id, ledger, 'post', { at: weekday })).data).toMatchObject({
      allowed: true,
      deciding: [{ via: { type: 'role', name: 'Approvers' } }],
    });
  });

  it('applies a reject by address when the address is unknown, and only inside its range when known', async () => {
    expect((await check(gus.id, ledger, 'read')).data).toMatchObject({ allowed: false, reason: 'rejected' });
    expect((await check(gus.id, ledger, 'read', { ip: '203.0.113.9' })).data.reason).toBe('rejected');
    expect((await check(gus.id, ledger, 'read', { ip: '198.51.100.1' })).data).toMatchObject({
      allowed: true,
      matched: expect.arrayContaining([
        expect.objectContaining({ effect: 'reject', applied: false, miss: 'address_outside' }),
      ]),
    });
    expect((await check(gus.id, ledger, 'read', { ip: 'not-an-ip' })).code).toBe(400);
  });

  it('asks for the person, resource and action in both languages', async () => {
    const en = await call(
      ctx,
      '/api/v1/manage/permission/check',
      { resourceId: ledger, action: 'read' },
      {
        token: owner.token,
        companyId: owner.companyId,
      },
    );
    expect(en).toMatchObject({ code: 400, msg: 'Please choose the person' });
    const zh = await call(
      ctx,
      '/api/v1/manage/permission/check',
      { userId: fay.id, action: 'read' },
      {
        token: owner.token,
        companyId: owner.companyId,
        lang: 'zh',
      },
    );
    expect(zh).toMatchObject({ code: 400, msg: '请选择资源' });
  });
});

describe('previews', () => {
  const authorizationCount = async () =>
    Number(
      (
        await ctx.database.db
          .selectFrom('permission_authorizations')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('of a new authorization: the people of the department and its sub departments who gain, storing nothing', async () => {
    const before = await authorizationCount();
    const preview = await admin<Impact>('permission/authorization/preview', {
      authorization: { appId, subject: { type: 'department', id: finance }, resourceIds: [payroll] },
    });
    expect(preview.data).toMatchObject({ examined: 2, gaining: 2, losing: 0 });
    expect(preview.data.people.map((p) => [p.username, p.gained])).toEqual([
      ['fay', [expect.objectContaining({ resource: 'payroll', action: 'read', appName: 'Books' })]],
      ['gus', [expect.objectContaining({ resource: 'payroll', action: 'read' })]],
    ]);
    expect(await authorizationCount()).toBe(before);
  });

  it('of a reject, a change and a deletion: who loses and who gains', async () => {
    const reject = await admin<Impact>('permission/authorization/preview', {
      authorization: {
        appId,
        subject: { type: 'user', id: fay.id },
        effect: 'reject',
        resourceIds: [ledger],
      },
    });
    expect(reject.data).toMatchObject({
      gaining: 0,
      losing: 1,
      people: [{ username: 'fay', lost: [{ resource: 'ledger', action: 'read' }] }],
    });
    const list = await admin<{ list: { authorizationId: string; subject: { type: string } }[] }>(
      'permission/authorization/list',
      {
        subjectType: 'department',
      },
    );
    const financeRule = list.data.list[0]!.authorizationId;
    const widened = await admin<Impact>('permission/authorization/preview', {
      authorizationId: financeRule,
      authorization: { appId, subject: { type: 'department', id: finance }, resourceIds: [ledger] },
    });
    // gus is rejected from one address range only: he can post from elsewhere, so he gains too.
    expect(widened.data.people.map((p) => [p.username, p.gained.map((g) => g.action)])).toEqual([
      ['fay', ['post']],
      ['gus', ['post']],
    ]);
    const deleted = await admin<Impact>('permission/authorization/preview', { authorizationId: financeRule });
    expect(deleted.data).toMatchObject({ gaining: 0, losing: 2 });
  });

  it('of role memberships: joining gains the role’s access, leaving loses it', async () => {
    const preview = await admin<Impact>('permission/role/member/preview', {
      roleId: approvers,
      add: [fay.id],
      remove: [hal.id],
    });
    expect(preview.data).toMatchObject({ examined: 2, gaining: 1, losing: 1 });
    expect(preview.data.people.map((p) => [p.username, p.gained.length, p.lost.length])).toEqual([
      ['fay', 1, 0],
      ['hal', 0, 2],
    ]);
  });
});
