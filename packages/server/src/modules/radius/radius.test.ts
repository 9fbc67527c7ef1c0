import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, sessionFor, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * Issue 17, RADIUS clients in the console: the shared secret is made here, sealed, and shown
 * once (at creation and on reset); sources are addresses or CIDR ranges; restricted clients name
 * departments of the company; refusals are localised and change nothing.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
beforeAll(async () => {
  ctx = await startTestApp();
  owner = await ownerWithCompany(ctx, 'radius-admin', 'Radius Console Ltd');
});
afterAll(() => ctx.close());

const admin = <T = Record<string, unknown>>(path: string, body: unknown, lang?: string) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId, lang });
type Listed = {
  list: { clientId: string; name: string; source: string; access: string; departments: unknown[] }[];
  server: unknown;
};
const list = () => admin<Listed>('/api/v1/manage/radius/client/list', {});
const auditOf = (action: string) =>
  ctx.database.db
    .selectFrom('audit_events')
    .select(['before', 'after'])
    .where('action', '=', action)
    .execute();

describe('RADIUS clients', () => {
  it('makes a shared secret, seals it, shows it once and never again', async () => {
    const created = await admin<{
      client: { clientId: string; source: string; otpMode: string };
      secret: string;
    }>('/api/v1/manage/radius/client/create', { name: 'Head office VPN', source: '10.20.0.9/16' });
    expect(created.code, created.msg).toBe(200);
    // The range is stored as its network.
    expect(created.data.client).toMatchObject({ source: '10.20.0.0/16', otpMode: 'challenge' });
    expect(created.data.secret).toMatch(/^[A-Za-z0-9]{32}$/);
    const row = await ctx.database.db
      .selectFrom('radius_clients')
      .select('secret_sealed')
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).toMatch(/^v1\./);
    expect(row.secret_sealed).not.toContain(created.data.secret);
    const listed = await list();
    expect(JSON.stringify(listed.data)).not.toContain(created.data.secret);
    expect(JSON.stringify(await auditOf('radius.client_create'))).not.toContain(created.data.secret);
    expect(listed.data.server).toEqual({ port: null, challengeSeconds: 60 });

    const reset = await admin<{ secret: string }>('/api/v1/manage/radius/client/secret/reset', {
      clientId: created.data.client.clientId,
    });
    expect(reset.data.secret).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(reset.data.secret).not.toBe(created.data.secret);
    const after = await ctx.database.db
      .selectFrom('radius_clients')
      .select('secret_sealed')
      .executeTakeFirstOrThrow();
    expect(after.secret_sealed).not.toBe(row.secret_sealed);
  });

  it('refuses a source that is no address or range, in both languages, and stores nothing', async () => {
    const before = (await list()).data.list.length;
    for (const source of ['vpn.example.com', '10.0.0.0/33', '300.1.1.1', '10.0.0.1; drop table']) {
      expect(await admin('/api/v1/manage/radius/client/create', { name: 'Bad', source })).toMatchObject({
        code: 400,
        msg: 'Enter an IPv4 or IPv6 address, or a CIDR range such as 10.0.0.0/24',
      });
    }
    expect(
      await admin('/api/v1/manage/radius/client/create', { name: 'Bad', source: 'nowhere' }, 'zh'),
    ).toMatchObject({
      msg: '请输入 IPv4 或 IPv6 地址，或 CIDR 网段（如 10.0.0.0/24）',
    });
    expect(
      await admin('/api/v1/manage/radius/client/create', { name: ' ', source: '10.0.0.1' }, 'zh'),
    ).toMatchObject({
      msg: '请输入 RADIUS 客户端名称',
    });
    const v6 = await admin<{ client: { source: string } }>('/api/v1/manage/radius/client/create', {
      name: 'IPv6 range',
      source: '2001:db8::1/64',
    });
    expect(v6.data.client.source).toBe('2001:db8::/64');
    expect((await list()).data.list.length).toBe(before + 1);
  });

  it('restricts a client to departments of the company, and says so when none is chosen', async () => {
    const tree = await admin<{ tree: { departmentId: string } }>('/api/v1/manage/department/tree', {});
    const dept = await admin<{ departmentId: string }>('/api/v1/manage/department/create', {
      name: 'Engineering',
      parentId: tree.data.tree.departmentId,
    });
    const created = await admin<{ client: { clientId: string } }>('/api/v1/manage/radius/client/create', {
      name: 'Lab Wi-Fi',
      source: '192.0.2.0/24',
    });
    const clientId = created.data.client.clientId;
    expect(
      await admin('/api/v1/manage/radius/client/update', {
        clientId,
        access: 'restricted',
        departmentIds: [],
      }),
    ).toMatchObject({
      data: { reason: 'radius.departments_required' },
    });
    const other = await ownerWithCompany(ctx, 'radius-other', 'Other Radius');
    const theirs = await call<{ tree: { departmentId: string } }>(
      ctx,
      '/api/v1/manage/department/tree',
      {},
      { token: other.token, companyId: other.companyId },
    );
    expect(
      await admin('/api/v1/manage/radius/client/update', {
        clientId,
        access: 'restricted',
        departmentIds: [theirs.data.tree.departmentId],
      }),
    ).toMatchObject({ data: { reason: 'radius.department_not_found' } });
    const updated = await admin<{ access: string; departments: { name: string }[] }>(
      '/api/v1/manage/radius/client/update',
      {
        clientId,
        access: 'restricted',
        departmentIds: [dept.data.departmentId],
        otpMode: 'appended',
      },
    );
    expect(updated.data).toMatchObject({
      access: 'restricted',
      departments: [{ name: 'Engineering' }],
      otpMode: 'appended',
    });
    expect((await auditOf('radius.client_update')).at(-1)).toMatchObject({
      before: { access: 'all', departmentIds: [] },
      after: { access: 'restricted', departmentIds: [dept.data.departmentId] },
    });
    // Removing the department takes it off the client.
    await admin('/api/v1/manage/department/del', { departmentId: dept.data.departmentId });
    expect((await list()).data.list.find((c) => c.clientId === clientId)?.departments).toEqual([]);
    expect((await admin('/api/v1/manage/radius/client/del', { clientId })).code).toBe(200);
    expect((await admin('/api/v1/manage/radius/client/del', { clientId })).data).toMatchObject({
      reason: 'radius.client_not_found',
    });
  });

  it('lets external administrators read the clients but not change them', async () => {
    const external = await admin<{ userId: string }>('/api/v1/manage/company/user/create', {
      username: 'radius-external',
      role: 'external_admin',
      password: 'Sturdy-Gate-42',
    });
    const token = await sessionFor(ctx, external.data.userId);
    const as = (path: string, body: unknown) => call(ctx, path, body, { token, companyId: owner.companyId });
    expect((await as('/api/v1/manage/radius/client/list', {})).code).toBe(200);
    expect(
      await as('/api/v1/manage/radius/client/create', { name: 'Mine', source: '10.9.9.9' }),
    ).toMatchObject({
      code: 403,
      data: { reason: 'auth.forbidden' },
    });
  });
});
