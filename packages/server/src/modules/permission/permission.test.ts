import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * Issue 15: resources, roles and authorizations (spec §3) through the console's calls: each is
 * listed, searched, created, changed and deleted; the required fields of spec §5 are refused
 * with their messages in English and Chinese, and a refused call stores nothing.
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let appId: string;
let otherAppId: string;
let rootDepartment: string;

const as = <T = Record<string, unknown>>(path: string, body: unknown, lang?: string) =>
  call<T>(ctx, `/api/v1/manage/permission/${path}`, body, {
    token: owner.token,
    companyId: owner.companyId,
    lang,
  });

const count = async (table: 'permission_resources' | 'permission_roles' | 'permission_authorizations') =>
  Number(
    (
      await ctx.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('company_id', '=', owner.companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

beforeAll(async () => {
  ctx = await startTestApp();
  owner = await ownerWithCompany(ctx, 'perm-owner');
  const company = { token: owner.token, companyId: owner.companyId };
  const app = await call<{ app: { appId: string } }>(
    ctx,
    '/api/v1/manage/app/create',
    { name: 'Orders' },
    company,
  );
  appId = app.data.app.appId;
  const other = await call<{ app: { appId: string } }>(
    ctx,
    '/api/v1/manage/app/create',
    { name: 'Wiki' },
    company,
  );
  otherAppId = other.data.app.appId;
  const tree = await call<{ tree: { departmentId: string } }>(
    ctx,
    '/api/v1/manage/department/tree',
    {},
    company,
  );
  rootDepartment = tree.data.tree.departmentId;
});
afterAll(() => ctx.close());

describe('spec §5 required fields, in English and Chinese, storing nothing', () => {
  const cases: [
    string,
    Record<string, unknown>,
    string,
    string,
    'permission_resources' | 'permission_roles' | 'permission_authorizations',
  ][] = [
    [
      'resource/create',
      { appId: 'x', name: '  ' },
      'Please enter the resource name',
      '请输入资源名称',
      'permission_resources',
    ],
    [
      'role/create',
      { description: 'Reads orders' },
      'Please enter the role name',
      '请输入角色名称',
      'permission_roles',
    ],
    [
      'role/create',
      { name: 'Auditors', description: '' },
      'Please enter the role description',
      '请输入角色描述',
      'permission_roles',
    ],
    [
      'authorization/create',
      { appId: 'x', resourceScope: 'all' },
      'Please choose the authorization subject',
      '请选择授权主体',
      'permission_authorizations',
    ],
    [
      'authorization/create',
      { appId: 'x', subject: { type: 'user', id: 'someone' } },
      'Please choose the resource',
      '请选择资源',
      'permission_authorizations',
    ],
  ];
  for (const [path, body, en, zh, table] of cases) {
    it(`${path}: ${en}`, async () => {
      const before = await count(table);
      const english = await as(path, body, 'en');
      expect(english).toMatchObject({ code: 400, msg: en });
      const chinese = await as(path, body, 'zh-CN');
      expect(chinese).toMatchObject({ code: 400, msg: zh });
      expect(await count(table)).toBe(before);
    });
  }

  it('refuses bad restrictions with a clear message each, and stores nothing', async () => {
    const base = { appId, subject: { type: 'department', id: rootDepartment }, resourceScope: 'all' };
    const before = await count('permission_authorizations');
    const bad: [Record<string, unknown>, string][] = [
      [
        { ipRanges: ['10.0.0.0/33'] },
        'Enter an IP address or a CIDR range such as 10.0.0.0/8 or 2001:db8::/32',
      ],
      [
        { timeWindows: [{ days: [1], from: '18:00', to: '09:00' }] },
        'A time window needs at least one weekday',
      ],
      [
        { timeWindows: [{ days: [], from: '09:00', to: '18:00' }] },
        'A time window needs at least one weekday',
      ],
      [{ timeZone: 'Mars/Olympus' }, 'Unknown time zone'],
      [
        { validFrom: '2026-05-01T00:00:00Z', validUntil: '2026-04-01T00:00:00Z' },
        'The end of the validity period must be after its start',
      ],
    ];
    for (const [restrictions, message] of bad) {
      const answer = await as('authorization/create', { ...base, restrictions });
      expect(answer.code, message).toBe(400);
      expect(answer.msg).toContain(message);
    }
    const zh = await as('authorization/create', { ...base, restrictions: { ipRanges: ['nonsense'] } }, 'zh');
    expect(zh.msg).toBe('请输入 IP 地址或 CIDR 网段，例如 10.0.0.0/8 或 2001:db8::/32');
    expect(await count('permission_authorizations')).toBe(before);
  });
});

describe('resources', () => {
  it('are created, searched, changed and deleted; names are unique within an application', async () => {
    const created = await as<{ resourceId: string; actions: string[] }>('resource/create', {
      appId,
      name: 'orders',
      type: 'api',
      description: 'The order API',
      data: '/api/orders',
      actions: ['read', 'write', 'read'],
    });
    expect(created.code).toBe(200);
    expect(created.data.actions).toEqual(['read', 'write']);
    const twin = await as('resource/create', { appId, name: 'ORDERS', actions: [] });
    expect(twin).toMatchObject({ code: 409, data: { reason: 'resource.name_taken' } });
    // The same name in another application is another resource.
    expect((await as('resource/create', { appId: otherAppId, name: 'orders', actions: ['read'] })).code).toBe(
      200,
    );
    const badAction = await as('resource/create', { appId, name: 'menu', actions: ['has space'] });
    expect(badAction).toMatchObject({ code: 400, data: { reason: 'resource.action_invalid' } });

    const found = await as<{ list: { name: string; appName: string }[]; total: number }>('resource/list', {
      appId,
      keyword: 'ORDER API',
    });
    expect(found.data).toMatchObject({ total: 1, list: [{ name: 'orders', appName: 'Orders' }] });
    const updated = await as<{ name: string; actions: string[] }>('resource/update', {
      resourceId: created.data.resourceId,
      name: 'order-api',
      actions: ['read', 'write', 'export'],
    });
    expect(updated.data).toMatchObject({ name: 'order-api', actions: ['read', 'write', 'export'] });
    const removed = await as('resource/del', { resourceId: created.data.resourceId });
    expect(removed).toMatchObject({ code: 200, data: { authorizationsRemoved: 0 } });
    expect((await as('resource/del', { resourceId: created.data.resourceId })).data).toMatchObject({
      reason: 'resource.not_found',
    });
  });

  it('takes the authorizations that named only it with it, and keeps the others', async () => {
    const a = await as<{ resourceId: string }>('resource/create', {
      appId,
      name: 'invoices',
      actions: ['read'],
    });
    const b = await as<{ resourceId: string }>('resource/create', {
      appId,
      name: 'refunds',
      actions: ['read'],
    });
    const subject = { type: 'department', id: rootDepartment };
    const only = await as<{ authorizationId: string }>('authorization/create', {
      appId,
      subject,
      resourceIds: [a.data.resourceId],
    });
    const both = await as<{ authorizationId: string }>('authorization/create', {
      appId,
      subject,
      resourceIds: [a.data.resourceId, b.data.resourceId],
    });
    const removed = await as('resource/del', { resourceId: a.data.resourceId });
    expect(removed.data).toMatchObject({ authorizationsRemoved: 1 });
    const left = await as<{ list: { authorizationId: string; resources: { name: string }[] }[] }>(
      'authorization/list',
      { appId, keyword: 'refunds' },
    );
    expect(left.data.list.map((x) => x.authorizationId)).toEqual([both.data.authorizationId]);
    expect(left.data.list[0]?.resources).toEqual([{ resourceId: b.data.resourceId, name: 'refunds' }]);
    expect(left.data.list.some((x) => x.authorizationId === only.data.authorizationId)).toBe(false);
  });
});

describe('roles', () => {
  it('are created, searched, renamed, given people and deleted with their authorizations', async () => {
    const role = await as<{ roleId: string }>('role/create', {
      name: 'Auditors',
      description: 'Read everything',
    });
    expect(role.code).toBe(200);
    expect((await as('role/create', { name: 'auditors', description: 'Twin' })).data).toMatchObject({
      reason: 'role.name_taken',
    });
    const company = { token: owner.token, companyId: owner.companyId };
    const ann = await companyMember(ctx, company, 'ann.auditor');
    const bob = await companyMember(ctx, company, 'bob.auditor');
    const added = await as('role/member/add', {
      roleId: role.data.roleId,
      userIds: [ann.id, bob.id, ann.id],
    });
    expect(added.data).toEqual({ added: 2 });
    // Someone of another company is refused, and nobody is added.
    const stranger = await ownerWithCompany(ctx, 'perm-stranger');
    const refused = await as('role/member/add', { roleId: role.data.roleId, userIds: [stranger.account.id] });
    expect(refused).toMatchObject({ code: 400, data: { reason: 'role.member_not_in_company' } });
    const members = await as<{ list: { username: string }[]; total: number }>('role/member/list', {
      roleId: role.data.roleId,
      keyword: 'bob',
    });
    expect(members.data).toMatchObject({ total: 1, list: [{ username: 'bob.auditor' }] });
    expect((await as('role/member/remove', { roleId: role.data.roleId, userIds: [bob.id] })).data).toEqual({
      removed: 1,
    });
    const renamed = await as('role/update', { roleId: role.data.roleId, name: 'Internal auditors' });
    expect(renamed.data).toMatchObject({ name: 'Internal auditors', memberCount: 1 });
    const listed = await as<{ list: { name: string }[] }>('role/list', { keyword: 'internal' });
    expect(listed.data.list.map((r) => r.name)).toEqual(['Internal auditors']);

    await as('resource/create', { appId, name: 'ledger', actions: ['read'] });
    await as('authorization/create', {
      appId,
      subject: { type: 'role', id: role.data.roleId },
      resourceScope: 'all',
    });
    const detail = await as('role/detail', { roleId: role.data.roleId });
    expect(detail.data).toMatchObject({ memberCount: 1, authorizationCount: 1 });
    const removed = await as('role/del', { roleId: role.data.roleId });
    expect(removed.data).toMatchObject({ authorizationsRemoved: 1 });
    const byRole = await as<{ total: number }>('authorization/list', {
      subjectType: 'role',
      subjectId: role.data.roleId,
    });
    expect(byRole.data.total).toBe(0);
  });
});

describe('authorizations', () => {
  it('check the subject, resources and actions against the company, and keep the restrictions', async () => {
    const orders = await as<{ resourceId: string }>('resource/create', {
      appId,
      name: 'shipments',
      actions: ['read', 'ship'],
    });
    const wiki = await as<{ resourceId: string }>('resource/create', {
      appId: otherAppId,
      name: 'pages',
      actions: ['read'],
    });
    const subject = { type: 'department', id: rootDepartment };
    const wrongApp = await as('authorization/create', {
      appId,
      subject,
      resourceIds: [wiki.data.resourceId],
    });
    expect(wrongApp.data).toMatchObject({ reason: 'authorization.resource_not_in_app' });
    const unknownAction = await as('authorization/create', {
      appId,
      subject,
      resourceIds: [orders.data.resourceId],
      actionScope: 'specific',
      actions: ['fly'],
    });
    expect(unknownAction).toMatchObject({
      code: 400,
      msg: 'None of the chosen resources has the action "fly"',
    });
    const noSubject = await as('authorization/create', {
      appId,
      subject: { type: 'role', id: 'no-such-role' },
      resourceScope: 'all',
    });
    expect(noSubject.data).toMatchObject({ reason: 'authorization.subject_not_found' });

    const created = await as<{ authorizationId: string }>('authorization/create', {
      appId,
      subject,
      effect: 'reject',
      resourceIds: [orders.data.resourceId],
      actionScope: 'specific',
      actions: ['ship'],
      restrictions: {
        validFrom: '2026-01-01T00:00:00+08:00',
        validUntil: '2027-01-01T00:00:00Z',
        timeWindows: [{ days: [6, 7, 6], from: '00:00', to: '24:00' }],
        timeZone: 'Asia/Shanghai',
        ipRanges: ['10.1.2.3/8', '2001:DB8::/32'],
      },
      description: 'No shipping at weekends',
    });
    expect(created.code).toBe(200);
    expect(created.data).toMatchObject({
      appName: 'Orders',
      subject: { type: 'department', id: rootDepartment, name: 'perm-owner Ltd' },
      effect: 'reject',
      resources: [{ name: 'shipments' }],
      actions: ['ship'],
      restrictions: {
        validFrom: '2025-12-31T16:00:00.000Z',
        timeWindows: [{ days: [6, 7], from: '00:00', to: '24:00' }],
        timeZone: 'Asia/Shanghai',
        ipRanges: ['10.0.0.0/8', '2001:db8::/32'],
      },
    });
    const updated = await as('authorization/update', {
      authorizationId: created.data.authorizationId,
      authorization: { appId, subject, effect: 'allow', resourceScope: 'all' },
    });
    expect(updated.data).toMatchObject({
      effect: 'allow',
      resourceScope: 'all',
      resources: [],
      restrictions: { ipRanges: [] },
    });
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'before', 'after'])
      .where('target_id', '=', created.data.authorizationId)
      .orderBy('created_at')
      .execute();
    expect(audit.map((e) => e.action)).toEqual([
      'permission.authorization.create',
      'permission.authorization.update',
    ]);
    expect(await as('authorization/del', { authorizationId: created.data.authorizationId })).toMatchObject({
      code: 200,
    });
    expect(
      (await as('authorization/del', { authorizationId: created.data.authorizationId })).data,
    ).toMatchObject({
      reason: 'authorization.not_found',
    });
  });
});
