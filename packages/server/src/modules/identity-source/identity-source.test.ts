import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECTORY, LDAP_CA, LDAPS_URL, ldapSourceSettings, noDirectory } from '../../test/directory.ts';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * Identity sources in the console's calls (issue 14): every LDAP field of spec §3, validation in
 * both languages with nothing stored, secrets sealed and never sent back, and "Test connection"
 * / "Test user" with a precise reason for each way a directory can fail.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
/** A server that accepts connections and never answers (the time-out). */
let silent: Server;
let silentPort: number;
const sockets = new Set<Socket>();
const admin = <T = Record<string, unknown>>(path: string, body: unknown = {}, lang?: string) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId, lang });
const sourceCount = async () =>
  Number(
    (
      await ctx.database.db
        .selectFrom('identity_sources')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

beforeAll(async () => {
  ctx = await startTestApp({ directoryTimeoutMs: 400 });
  owner = await ownerWithCompany(ctx, 'source-owner', 'Source Corp');
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await ctx.close();
});

describe('identity source settings', () => {
  it('refuses bad settings with a message per field, in English and Chinese, and stores nothing', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ url: 'http://ldap.example.com' }, 'url', 'ldap.url_invalid'],
      [{ userFilter: '(uid=' }, 'userFilter', 'ldap.invalid_filter'],
      [{ groupFilter: '(&(objectClass=group)' }, 'groupFilter', 'ldap.invalid_filter'],
      [{ userRootDn: 'people' }, 'userRootDn', 'ldap.dn_invalid'],
      [{ usernameAttribute: 'u id' }, 'usernameAttribute', 'ldap.attribute_invalid'],
      [{ userDnTemplate: 'uid=alice,ou=people' }, 'userDnTemplate', 'ldap.user_dn_template_invalid'],
      [{ caCertificate: 'not a certificate' }, 'caCertificate', 'ldap.ca_invalid'],
      [{ bindPassword: '' }, 'bindPassword', 'ldap.bind_password_required'],
      [{ name: '' }, 'name', 'identity_source.name_required'],
      [{ syncIntervalMinutes: 5 }, 'syncIntervalMinutes', 'identity_source.interval_range'],
    ];
    for (const [change, field, reason] of cases) {
      const en = await admin('/api/v1/manage/identity-source/create', ldapSourceSettings(change));
      expect({ field, code: en.code, data: en.data }).toMatchObject({
        field,
        code: 400,
        data: { fields: [expect.objectContaining({ field })] },
      });
      const zh = await admin('/api/v1/manage/identity-source/create', ldapSourceSettings(change), 'zh');
      expect(zh.msg, reason).toMatch(/[\u4e00-\u9fff]/);
      expect(JSON.stringify(zh.data)).toContain(field);
    }
    const scan = await admin(
      '/api/v1/manage/identity-source/create',
      { type: 'dingtalk', name: 'DingTalk', appKey: 'k' },
      'zh',
    );
    expect(scan).toMatchObject({ code: 400, msg: '请输入服务商颁发的密钥' });
    expect(await sourceCount()).toBe(0);
  });

  it('seals the secret, never sends it back, and asks for it again when the server or bind DN change', async () => {
    const created = await admin<{ sourceId: string; settings: Record<string, unknown> }>(
      '/api/v1/manage/identity-source/create',
      ldapSourceSettings({ caCertificate: LDAP_CA ?? null }),
    );
    expect(created.code, created.msg).toBe(200);
    expect(created.data.settings).toMatchObject({
      bindPasswordSet: true,
      usernameAttribute: 'uid',
      uniqueIdAttribute: 'entryUUID',
    });
    expect(JSON.stringify(created.data)).not.toContain(DIRECTORY.readerPassword);
    const stored = await ctx.database.db
      .selectFrom('identity_sources')
      .select(['settings', 'secret_sealed'])
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(DIRECTORY.readerPassword);
    const { sourceId } = created.data;
    const { bindPasswordSet: _, ...settings } = created.data.settings;
    // Saved without the password: the stored one stays.
    const kept = await admin('/api/v1/manage/identity-source/update', {
      ...settings,
      type: 'ldap',
      sourceId,
      name: 'Renamed',
    });
    expect(kept.code, kept.msg).toBe(200);
    // Another server without the password again: refused (the stored one goes nowhere new).
    const moved = await admin('/api/v1/manage/identity-source/update', {
      ...settings,
      type: 'ldap',
      sourceId,
      url: 'ldap://elsewhere.example:389',
    });
    expect(moved.data).toMatchObject({
      reason: 'ldap.bind_password_required',
      fields: [{ field: 'bindPassword' }],
    });
    const retyped = await admin('/api/v1/manage/identity-source/update', {
      type: 'dingtalk',
      sourceId,
      name: 'x',
      appKey: 'k',
    });
    expect(retyped.data).toMatchObject({ reason: 'identity_source.type_fixed' });
    const list = await admin<{ list: { name: string; type: string; people: number }[] }>(
      '/api/v1/manage/identity-source/list',
    );
    expect(list.data.list).toEqual([
      expect.objectContaining({ name: 'Renamed', type: 'ldap', people: 0, lastRun: null }),
    ]);
    // Audited: the creation and the accepted change, never the bind password.
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'after'])
      .where('target_id', '=', sourceId)
      .orderBy('created_at')
      .execute();
    expect(audit.map((event) => event.action)).toEqual(['identity_source.create', 'identity_source.update']);
    expect(JSON.stringify(audit)).not.toContain(DIRECTORY.readerPassword);
  });

  it('shows the callback address of a scan source and has nothing to sync for WeChat', async () => {
    const created = await admin<{ sourceId: string; callbackUrl: string; settings: Record<string, unknown> }>(
      '/api/v1/manage/identity-source/create',
      { type: 'weixin', name: 'WeChat', appId: 'wx123', appSecret: 'shh-secret', firstScan: 'create' },
    );
    expect(created.data.callbackUrl).toBe(`${ctx.baseUrl}/portal/scan/${created.data.sourceId}/callback`);
    expect(created.data.settings).toMatchObject({ secretSet: true, firstScan: 'create' });
    expect(JSON.stringify(created.data)).not.toContain('shh-secret');
    const sync = await admin('/api/v1/manage/identity-source/sync/preview', {
      sourceId: created.data.sourceId,
    });
    expect(sync.data).toMatchObject({ reason: 'identity_source.not_syncable' });
  });

  it('deletes a source and keeps its people, unlinked', async () => {
    const created = await admin<{ sourceId: string }>(
      '/api/v1/manage/identity-source/create',
      ldapSourceSettings({ name: 'Doomed' }),
    );
    const member = await companyMember(ctx, owner, 'linked-person');
    await ctx.database.db
      .insertInto('identity_links')
      .values({
        source_id: created.data.sourceId,
        company_id: owner.companyId,
        account_id: member.id,
        external_id: 'x',
        external_dn: null,
        external_name: null,
      })
      .execute();
    const deleted = await admin('/api/v1/manage/identity-source/del', { sourceId: created.data.sourceId });
    expect(deleted.data).toEqual({ sourceId: created.data.sourceId, peopleUnlinked: 1 });
    expect((await admin('/api/v1/manage/user/detail', { userId: member.id })).code).toBe(200);
    expect(
      (await admin('/api/v1/manage/identity-source/detail', { sourceId: created.data.sourceId })).code,
    ).toBe(404);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', created.data.sourceId)
      .where('action', '=', 'identity_source.delete')
      .execute();
    expect(audit).toHaveLength(1);
  });
});

describe.skipIf(noDirectory)('Test connection and Test user', () => {
  const test = (settings: Record<string, unknown>, lang?: string) =>
    admin<{ ok: boolean; reason: string | null; message: string }>(
      '/api/v1/manage/identity-source/ldap/test-connection',
      { settings: ldapSourceSettings(settings) },
      lang,
    );

  it('connects, binds and finds the base DNs, over ldap://, StartTLS and ldaps://', async () => {
    expect((await test({})).data).toMatchObject({
      ok: true,
      reason: null,
      message: 'Connected (no encryption) and bound; the user and group root DNs exist',
    });
    expect((await test({ startTls: true, caCertificate: LDAP_CA })).data).toMatchObject({ ok: true });
    expect((await test({ url: LDAPS_URL, caCertificate: LDAP_CA })).data).toMatchObject({
      ok: true,
      message: expect.stringContaining('ldaps'),
    });
    expect((await test({ url: LDAPS_URL, verifyCertificate: false })).data).toMatchObject({ ok: true });
  });

  it('names each failure precisely: certificate, credentials, base DN, host, time-out, a refused address', async () => {
    const expectations: [Record<string, unknown>, string][] = [
      [{ url: LDAPS_URL }, 'ldap.tls_untrusted'],
      [{ startTls: true }, 'ldap.tls_untrusted'],
      [{ bindPassword: 'wrong-password' }, 'ldap.invalid_credentials'],
      [{ userRootDn: 'ou=nowhere,dc=tessera,dc=test' }, 'ldap.base_dn_not_found'],
      [{ groupRootDn: 'ou=nogroups,dc=tessera,dc=test' }, 'ldap.base_dn_not_found'],
      [{ url: 'ldap://127.0.0.1:9' }, 'ldap.host_unreachable'],
      [{ url: `ldap://127.0.0.1:${silentPort}` }, 'ldap.timeout'],
      // A company's administrator does not reach inside the platform's network (the tests allow
      // loopback only): nothing is sent to these.
      [{ url: 'ldap://10.255.255.1:389' }, 'outbound.address_refused'],
      [{ url: 'ldap://169.254.169.254' }, 'outbound.address_never'],
      [{ url: 'ldaps://[::ffff:192.168.0.1]' }, 'outbound.address_refused'],
    ];
    for (const [settings, reason] of expectations)
      expect({ settings, ...(await test(settings)).data }).toMatchObject({ settings, ok: false, reason });
    // Issue 35: the refusal names what to ask the platform administrator for, in both languages.
    expect((await test({ url: 'ldap://10.255.255.1:389' })).data.message).toBe(
      '10.255.255.1 is in a private or local network, which this server does not connect to for companies. Ask the platform administrator to add 10.0.0.0/8 to TESSERA_OUTBOUND_ALLOWED_NETWORKS',
    );
    expect((await test({ url: 'ldaps://[::ffff:192.168.0.1]' }, 'zh')).data.message).toBe(
      '192.168.0.1 位于私有或本地网络，本服务器不为企业连接此类地址。请联系平台管理员将 192.168.0.0/16 加入 TESSERA_OUTBOUND_ALLOWED_NETWORKS',
    );
    expect((await test({ userRootDn: 'ou=nowhere,dc=tessera,dc=test' }, 'zh')).data.message).toBe(
      '目录中不存在基准 DN ou=nowhere,dc=tessera,dc=test',
    );
    for (const userFilter of ['(uid=*', '(&(uid=*)', '(uid=*))(x=y)'])
      expect((await test({ userFilter })).data).toMatchObject({
        reason: 'ldap.invalid_filter',
        fields: [{ field: 'settings.userFilter' }],
      });
  });

  it('finds the test user, checks the password and shows the mapped attributes', async () => {
    const testUser = (testUsername: string, testPassword: string) =>
      admin<{ ok: boolean; reason: string | null; person: Record<string, unknown> | null }>(
        '/api/v1/manage/identity-source/ldap/test-user',
        {
          settings: ldapSourceSettings(),
          testUsername,
          testPassword,
        },
      );
    const { alice } = DIRECTORY;
    expect((await testUser(alice.uid, alice.password)).data).toMatchObject({
      ok: true,
      person: {
        username: 'alice',
        name: alice.name,
        email: alice.mail,
        departments: ['backend'],
        disabled: false,
      },
    });
    expect((await testUser(alice.uid, 'wrong')).data).toMatchObject({
      ok: false,
      reason: 'ldap.user_password_wrong',
    });
    expect((await testUser('nobody-here', 'x')).data).toMatchObject({
      ok: false,
      reason: 'ldap.user_not_found',
    });
    for (const injection of ['*', 'alice)(uid=*', '\\2a'])
      expect((await testUser(injection, DIRECTORY.peoplePassword)).data).toMatchObject({
        ok: false,
        reason: 'ldap.user_not_found',
      });
  });

  it('limits how many tests a company runs in an hour', async () => {
    let answer = await test({ url: 'ldap://127.0.0.1:9' });
    for (let i = 0; i < 70 && answer.code === 200; i++) answer = await test({ url: 'ldap://127.0.0.1:9' });
    expect(answer.data).toMatchObject({ reason: 'identity_source.tests_exhausted' });
  });
});
