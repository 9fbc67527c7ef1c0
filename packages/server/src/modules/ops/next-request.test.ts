import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { type ExchangeStandIn, startExchangeStandIn } from '../../test/exchange-stand-in.ts';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { changeThenAsk, devicePasswordShownTo, syncStatus } from '../../test/next-request.ts';
import { androidGmail } from '../../test/phone.ts';
import { pairwiseSubject } from '../oidc/subject.ts';

/**
 * Issue 28: every cache that promises "the next request" (the Exchange agent's devices, the
 * decision API's people and policies) answers the request right after a change with the change
 * applied, on PostgreSQL too, where notices of a change reach even the instance that made it on
 * another connection after the commit. Each change is followed at once by the request, many
 * times, while other requests keep filling the same cache entry. Run on PostgreSQL by
 * `npm run test:pg`.
 */
const ROUNDS = 50;
const READERS = 3;
let ctx: TestContext;
let exchange: ExchangeStandIn;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let person: Awaited<ReturnType<typeof companyMember>>;
const email = 'nora@next.test';

async function admin<T = Record<string, unknown>>(path: string, body: unknown = {}) {
  const answer = await call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });
  if (answer.code !== 200) throw new Error(`${path}: ${answer.code} ${answer.msg}`);
  return answer.data;
}

const setStatus = (status: 'enabled' | 'disabled') => () =>
  admin('/api/v1/manage/user/status', { userId: person.id, status });

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'next-owner');
  person = await companyMember(ctx, owner, 'nora');
  await admin('/api/v1/manage/user/update', { userId: person.id, email });
});
afterAll(async () => {
  await exchange?.close();
  await ctx?.close();
});

// PostgreSQL only: there a notice reaches even the changing instance on another connection than
// the one that committed. The embedded database has one connection in this process, which hands
// its notices over with the statement's answer (and its readers would only compete with the
// change for the one thread).
describe.runIf(process.env.TESSERA_TEST_DATABASE_URL)('the request right after a change', () => {
  it('the Exchange agent: a person disabled is refused, and enabled let in, at the next Sync', async () => {
    const service = { username: 'svc-next', password: 'Service-Pass-9' };
    exchange = await startExchangeStandIn({ service, mailboxes: [email], pingHoldMs: 1500 });
    await admin('/api/v1/manage/safety/exchange/update', {
      enabled: true,
      exchangeUrl: exchange.url,
      credentialMode: 'service',
      serviceUsername: service.username,
      servicePassword: service.password,
      activation: 'approval',
      userDeviceLimit: 3,
      defaultDevicePermission: 'user',
    });
    const { token } = await admin<{ token: string }>('/api/v1/manage/safety/device/token');
    const phone = androidGmail();
    expect(await syncStatus(ctx, phone, { user: email, password: token })).toBe(401);
    const { list } = await admin<{ list: { deviceId: string }[] }>(
      '/api/v1/manage/user/exchange/admin/device/list',
      { userId: person.id },
    );
    const deviceId = list[0]?.deviceId ?? '';
    await admin('/api/v1/manage/user/exchange/admin/device/approve', { deviceIds: [deviceId] });
    const password = await devicePasswordShownTo(ctx.baseUrl, person, deviceId);
    const ask = () => syncStatus(ctx, phone, { user: email, password });
    expect(await ask()).toBe(200);
    const stale = await changeThenAsk({
      rounds: ROUNDS,
      readers: READERS,
      ask,
      steps: [
        { change: setStatus('disabled'), expected: 403 },
        { change: setStatus('enabled'), expected: 200 },
      ],
    });
    expect(stale).toEqual([]);
  });

  it('the decision API: a person disabled, taken out of a role or a department is denied at the next check, and let back', async () => {
    const app = await admin<{ app: { appId: string; clientId: string }; clientSecret: string }>(
      '/api/v1/manage/app/create',
      { name: 'Ledger' },
    );
    const { appId, clientId } = app.app;
    await admin('/api/v1/manage/app/update', { appId, redirectUris: ['http://localhost:7003/callback'] });
    await admin('/api/v1/manage/app/status', { appId, status: 'opened' });
    const { resourceId } = await admin<{ resourceId: string }>('/api/v1/manage/permission/resource/create', {
      appId,
      name: 'books',
      actions: ['read'],
    });
    const { roleId } = await admin<{ roleId: string }>('/api/v1/manage/permission/role/create', {
      name: 'Bookkeepers',
      description: 'Keep the books',
    });
    const tree = await admin<{ tree: { departmentId: string } }>('/api/v1/manage/department/tree');
    const { departmentId } = await admin<{ departmentId: string }>('/api/v1/manage/department/create', {
      name: 'Accounts',
      parentId: tree.tree.departmentId,
    });
    for (const subject of [
      { type: 'role', id: roleId },
      { type: 'department', id: departmentId },
    ])
      await admin('/api/v1/manage/permission/authorization/create', {
        appId,
        subject,
        resourceIds: [resourceId],
      });
    const authorization = `Basic ${Buffer.from(`${clientId}:${app.clientSecret}`).toString('base64')}`;
    // The `sub` the application knows the person by.
    const userId = pairwiseSubject(createSealer(ctx.masterKey))(owner.companyId, person.id);
    // In-process, as for the agent: the check reaches the cache without waiting for the network.
    const ask = async () => {
      const answer = await ctx.tessera.app.inject({
        method: 'POST',
        url: '/api/v1/app/permission/check',
        headers: { 'content-type': 'application/json', authorization },
        payload: { userId, resource: 'books', action: 'read' },
      });
      return (answer.json() as { data: { reason: string } }).data.reason;
    };
    const roleMembers = (change: 'add' | 'remove') => () =>
      admin(`/api/v1/manage/permission/role/member/${change}`, { roleId, userIds: [person.id] });
    const departmentMembers = (change: 'add' | 'remove') => () =>
      admin(`/api/v1/manage/department/member/${change}`, { departmentId, userIds: [person.id] });
    // The same membership changed by another code path than the console's (a directory sync, an import).
    const { db } = ctx.database;
    const roleRowAdded = () =>
      db
        .insertInto('permission_role_members')
        .values({ role_id: roleId, company_id: owner.companyId, account_id: person.id })
        .execute();
    const roleRowRemoved = () =>
      db
        .deleteFrom('permission_role_members')
        .where('role_id', '=', roleId)
        .where('account_id', '=', person.id)
        .execute();
    await roleMembers('add')();
    expect(await ask()).toBe('allowed');
    const stale = await changeThenAsk({
      rounds: ROUNDS,
      readers: READERS,
      ask,
      steps: [
        { change: setStatus('disabled'), expected: 'person_disabled' },
        { change: setStatus('enabled'), expected: 'allowed' },
        { change: roleMembers('remove'), expected: 'no_match' },
        { change: departmentMembers('add'), expected: 'allowed' },
        { change: departmentMembers('remove'), expected: 'no_match' },
        { change: roleMembers('add'), expected: 'allowed' },
        { change: roleRowRemoved, expected: 'no_match' },
        { change: roleRowAdded, expected: 'allowed' },
      ],
    });
    expect(stale).toEqual([]);
  });
});
