import { exchangeDefaults } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, sessionFor, startTestApp, type TestContext } from '../../test/harness.ts';
import { parseActiveSyncQuery } from './activesync-request.ts';
import { policyAllows } from './device-policy.ts';

/**
 * Issue 18: the settings and device calls as the console makes them: spec defaults and limits,
 * messages in en and zh that change nothing, roles, audit events; and the agent's parsers.
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
const as = (who: { token: string }, lang?: string) => ({
  token: who.token,
  companyId: owner.companyId,
  lang,
});

async function member(username: string, role: 'admin' | 'external_admin' | 'member') {
  const created = await call<{ userId: string }>(
    ctx,
    '/api/v1/manage/company/user/create',
    { username, role, password: 'Sunny-Day-42' },
    as(owner),
  );
  return { id: created.data.userId, token: await sessionFor(ctx, created.data.userId) };
}

async function deviceOf(accountId: string, name: string) {
  const id = `device-${name}`;
  await ctx.database.db
    .insertInto('exchange_devices')
    .values({
      id,
      company_id: owner.companyId,
      account_id: accountId,
      device_id: name.toUpperCase(),
      device_type: 'iPhone',
      name,
      activation: 'to_be_activated',
    })
    .execute();
  return id;
}

const auditActions = async () =>
  (
    await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'target_id', 'after'])
      .where('company_id', '=', owner.companyId)
      .where('action', 'like', 'exchange.%')
      .orderBy('created_at')
      .execute()
  ).map((event) => ({ ...event, after: JSON.stringify(event.after) }));

beforeAll(async () => {
  ctx = await startTestApp();
  owner = await ownerWithCompany(ctx, 'devices-owner', 'Devices Co');
});
afterAll(() => ctx?.close());

describe('device settings', () => {
  it("starts with the spec's defaults: 16 characters, rotation every 7 days, 3 devices a person, new people ordinary users", async () => {
    const device = await call(ctx, '/api/v1/manage/safety/device', {}, as(owner));
    expect(device.data).toMatchObject({ devicePasswordDigits: 16, rotationDays: 7 });
    const exchange = await call(ctx, '/api/v1/manage/safety/exchange', {}, as(owner));
    expect(exchange.data).toMatchObject({
      enabled: false,
      userDeviceLimit: exchangeDefaults.userDeviceLimit,
      defaultDevicePermission: 'user',
      activation: 'approval',
      servicePasswordSet: false,
      agentUrl: 'http://localhost/Microsoft-Server-ActiveSync',
    });
  });

  it('refuses rotation over 90 days with a message in en and zh, and stores nothing', async () => {
    for (const [lang, text] of [
      ['en', /90/],
      ['zh', /90/],
    ] as const) {
      const answer = await call(
        ctx,
        '/api/v1/manage/safety/device/update',
        { devicePasswordDigits: 16, rotationDays: 91 },
        as(owner, lang),
      );
      expect(answer.code).toBe(400);
      expect(answer.msg).toMatch(text);
      if (lang === 'zh') expect(answer.msg).toMatch(/[\u4e00-\u9fff]/);
    }
    const changed = await call(
      ctx,
      '/api/v1/manage/safety/device/update',
      { devicePasswordDigits: 20, rotationDays: 90 },
      as(owner),
    );
    expect(changed.data).toMatchObject({ devicePasswordDigits: 20, rotationDays: 90 });
  });

  it('refuses to turn the agent on without an Exchange address or its service sign-in', async () => {
    const base = {
      enabled: true,
      credentialMode: 'service',
      activation: 'approval',
      userDeviceLimit: 3,
      defaultDevicePermission: 'user',
    };
    expect((await call(ctx, '/api/v1/manage/safety/exchange/update', base, as(owner))).data).toMatchObject({
      reason: 'exchange.url_required',
    });
    const noPassword = { ...base, exchangeUrl: 'https://mail.devices.example', serviceUsername: 'svc' };
    expect(
      (await call(ctx, '/api/v1/manage/safety/exchange/update', noPassword, as(owner, 'zh'))).data,
    ).toMatchObject({ reason: 'exchange.service_password_required' });
    const plainHttp = {
      ...base,
      exchangeUrl: 'http://mail.devices.example',
      serviceUsername: 'svc',
      servicePassword: 'x',
    };
    expect(
      (await call(ctx, '/api/v1/manage/safety/exchange/update', plainHttp, as(owner))).data,
    ).toMatchObject({ reason: 'exchange.url_http' });
    expect((await call(ctx, '/api/v1/manage/safety/exchange', {}, as(owner))).data).toMatchObject({
      enabled: false,
      exchangeUrl: null,
    });
  });

  it('rotates the registration token: the audit event says when, never the token', async () => {
    const before = await call<{ token: string }>(ctx, '/api/v1/manage/safety/device/token', {}, as(owner));
    const after = await call<{ token: string }>(
      ctx,
      '/api/v1/manage/safety/device/token/rotate',
      {},
      as(owner),
    );
    expect(after.data.token).toMatch(/^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
    expect(after.data.token).not.toBe(before.data.token);
    const events = await auditActions();
    expect(events.map((event) => event.action)).toContain('exchange.token_rotate');
    expect(JSON.stringify(events)).not.toContain(after.data.token);
  });

  it('gives new people the default device-management permission the company chose (spec §6)', async () => {
    const update = {
      enabled: false,
      credentialMode: 'service',
      activation: 'approval',
      userDeviceLimit: 3,
      defaultDevicePermission: 'admin',
    };
    await call(ctx, '/api/v1/manage/safety/exchange/update', update, as(owner));
    const newcomer = await member('devices-newcomer', 'member');
    const permission = await call(
      ctx,
      '/api/v1/manage/user/exchange/admin/permission',
      { userId: newcomer.id },
      as(owner),
    );
    expect(permission.data).toEqual({ permission: 'admin', devices: 0, limit: 3 });
    await call(
      ctx,
      '/api/v1/manage/safety/exchange/update',
      { ...update, defaultDevicePermission: 'user' },
      as(owner),
    );
  });
});

describe('devices', () => {
  it('lets administrators approve, disable, change and remove devices, each audited', async () => {
    const person = await member('devices-person', 'member');
    const phone = await deviceOf(person.id, 'person-phone');
    expect(
      (
        await call(
          ctx,
          '/api/v1/manage/user/exchange/admin/device/approve',
          { deviceIds: [phone] },
          as(owner),
        )
      ).data,
    ).toEqual({ approved: 1 });
    const listed = await call<{ list: { activation: string; passwordPending: boolean }[] }>(
      ctx,
      '/api/v1/manage/user/exchange/admin/device/list',
      { activation: 'active' },
      as(owner),
    );
    expect(listed.data.list).toEqual([
      expect.objectContaining({ activation: 'active', passwordPending: true }),
    ]);
    await call(
      ctx,
      '/api/v1/manage/user/exchange/admin/device/status',
      { deviceIds: [phone], status: 'disabled' },
      as(owner),
    );
    const policy = {
      mode: 'allow',
      timeZone: 'Asia/Shanghai',
      windows: [{ days: [1, 2, 3, 4, 5], start: '08:00', end: '20:00' }],
    };
    const updated = await call(
      ctx,
      '/api/v1/manage/user/exchange/admin/device/update',
      { deviceId: phone, name: 'Work phone', accessPermission: 'receive_only', policy },
      as(owner),
    );
    expect(updated.data).toMatchObject({
      name: 'Work phone',
      accessPermission: 'receive_only',
      status: 'disabled',
      policy,
    });
    expect(
      (await call(ctx, '/api/v1/manage/user/exchange/admin/device/del', { deviceIds: [phone] }, as(owner)))
        .data,
    ).toEqual({ removed: 1 });
    const actions = (await auditActions())
      .filter((event) => event.target_id === phone)
      .map((event) => event.action);
    expect(actions).toEqual([
      'exchange.device_approve',
      'exchange.device_disabled',
      'exchange.device_update',
      'exchange.device_delete',
    ]);
  });

  it('refuses a bad policy with a localised message and leaves the device as it was', async () => {
    const person = await member('devices-policy', 'member');
    const phone = await deviceOf(person.id, 'policy-phone');
    const bad = {
      deviceId: phone,
      name: 'x',
      accessPermission: 'full',
      policy: { mode: 'allow', timeZone: 'Mars/Olympus', windows: [] },
    };
    const zh = await call(ctx, '/api/v1/manage/user/exchange/admin/device/update', bad, as(owner, 'zh'));
    expect(zh.code).toBe(400);
    expect(zh.msg).toMatch(/[\u4e00-\u9fff]/);
    const detail = await call<{ device: { name: string; policy: unknown } }>(
      ctx,
      '/api/v1/manage/user/exchange/admin/device/detail',
      { deviceId: phone },
      as(owner),
    );
    expect(detail.data.device).toMatchObject({ name: 'policy-phone', policy: null });
  });

  it("refuses an external administrator acting on an administrator's device, and a member any call", async () => {
    const boss = await member('devices-admin', 'admin');
    const external = await member('devices-external', 'external_admin');
    const plain = await member('devices-plain', 'member');
    const phone = await deviceOf(boss.id, 'boss-phone');
    const refused = await call(
      ctx,
      '/api/v1/manage/user/exchange/admin/device/status',
      { deviceIds: [phone], status: 'disabled' },
      as(external),
    );
    expect(refused.code).toBe(403);
    expect(
      (await call(ctx, '/api/v1/manage/user/exchange/admin/device/list', {}, as(plain))).data,
    ).toMatchObject({ reason: 'company.not_found' });
    expect((await call(ctx, '/api/v1/manage/safety/device/token', {}, as(external))).code).toBe(403);
    const detail = await call<{ device: { status: string } }>(
      ctx,
      '/api/v1/manage/user/exchange/admin/device/detail',
      { deviceId: phone },
      as(owner),
    );
    expect(detail.data.device.status).toBe('enabled');
  });
});

describe("the agent's rules", () => {
  it('reads the plain and the base64 query forms and refuses bad ones', () => {
    const plain = parseActiveSyncQuery('Cmd=Sync&User=alice%40acme.test&DeviceId=ABC123&DeviceType=iPhone');
    expect(plain).toMatchObject({
      ok: true,
      query: { command: 'Sync', deviceId: 'ABC123', deviceType: 'iPhone', user: 'alice@acme.test' },
    });
    // MS-ASHTTP 2.2.1.1.1.1 example form: version 141, Ping, en-US, device id, no policy key, type, User.
    const bytes = Buffer.concat([
      Buffer.from([141, 18, 9, 4, 4]),
      Buffer.from('DEV1'),
      Buffer.from([0, 3]),
      Buffer.from('SP6'),
      Buffer.from([8, 5]),
      Buffer.from('alice'),
    ]);
    const base64 = parseActiveSyncQuery(bytes.toString('base64'));
    expect(base64).toMatchObject({
      ok: true,
      query: { command: 'Ping', deviceId: 'DEV1', deviceType: 'SP6', user: 'alice', protocolVersion: '14.1' },
    });
    if (base64.ok) {
      const forwarded = Buffer.from(base64.query.forwardQuery('alice@acme.test'), 'base64');
      expect(forwarded.subarray(-15).toString()).toBe('alice@acme.test');
    }
    expect(parseActiveSyncQuery('Cmd=Format&DeviceId=x&DeviceType=y').ok).toBe(false);
    expect(parseActiveSyncQuery(Buffer.from([141, 0, 9, 4, 40]).toString('base64')).ok).toBe(false);
  });

  it('applies a time-window policy in its own time zone, over midnight too', () => {
    const nights = {
      mode: 'block' as const,
      timeZone: 'Asia/Shanghai',
      windows: [{ days: [5], start: '22:00', end: '06:00' }],
    };
    // Saturday 03:00 in Shanghai is Friday 19:00 UTC.
    expect(policyAllows(nights, new Date('2026-11-20T19:00:00Z'))).toBe(false);
    expect(policyAllows(nights, new Date('2026-11-21T03:00:00Z'))).toBe(true);
    expect(policyAllows({ ...nights, mode: 'allow' }, new Date('2026-11-20T19:00:00Z'))).toBe(true);
  });
});
