import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { signInForCode, startAuthorization } from '../../test/browser-flow.ts';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { pairwiseSubject } from '../oidc/subject.ts';
import { PERMISSIONS_CHANNEL } from './policy-cache.ts';

/**
 * Issue 15: the decision API of applications (HTTP Basic with the application's own client id
 * and secret), its answers for people reached directly, through roles and through departments
 * with their sub departments, a change applying on the next request, and the `permissions`
 * scope seen by an independent relying party (openid-client).
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
const redirectUri = 'http://localhost:7002/callback';
type Person = { id: string; username: string; password: string };
let alice: Person; // in East, under Sales
let bob: Person; // in Sales
let carol: Person; // in no department
let dave: Person; // an auditor
let app: { appId: string; clientId: string; clientSecret: string };
let other: { appId: string; clientId: string; clientSecret: string };
let sales: string;
let east: string;
let auditors: string;

/** The `sub` the company's applications see for a person (decision-subject.test.ts takes it from an ID token). */
const subOf = (accountId: string, companyId = owner.companyId) =>
  pairwiseSubject(createSealer(ctx.masterKey))(companyId, accountId);

const admin = <T = Record<string, unknown>>(path: string, body: unknown = {}) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

/** Calls the decision API over HTTP, as an application's server does. */
async function decide<T = Record<string, unknown>>(
  path: string,
  body: unknown,
  credentials: { clientId: string; clientSecret: string } | string = app,
) {
  const authorization =
    typeof credentials === 'string'
      ? credentials
      : `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`;
  const response = await fetch(`${ctx.baseUrl}/api/v1/app/permission/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify(body),
  });
  return { status: response.status, ...((await response.json()) as { code: number; msg: string; data: T }) };
}

const verdict = async (userId: string, resource: string, action: string, ip?: string) => {
  const answer = await decide<{ allowed: boolean; reason: string }>('check', {
    userId,
    resource,
    action,
    ip,
  });
  expect(answer.code, answer.msg).toBe(200);
  return `${answer.data.allowed ? 'allowed' : 'denied'}:${answer.data.reason}`;
};

/**
 * Waits until every notice of changes committed so far has reached the server's cache: notices
 * arrive in commit order, and the test's listener is called after the server's for each one.
 */
async function settled() {
  const nonce = `sync:${randomBytes(6).toString('hex')}`;
  let done: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    done = resolve;
  });
  const stop = await ctx.database.listen(PERMISSIONS_CHANNEL, (payload) => {
    if (payload === nonce) done();
  });
  await ctx.database.notify(PERMISSIONS_CHANNEL, nonce);
  await arrived;
  await stop();
}

async function openedApp(name: string, scopes: string[]) {
  const created = await admin<{ app: { appId: string; clientId: string }; clientSecret: string }>(
    '/api/v1/manage/app/create',
    { name },
  );
  const { appId, clientId } = created.data.app;
  await admin('/api/v1/manage/app/update', { appId, redirectUris: [redirectUri], scopes });
  await admin('/api/v1/manage/app/status', { appId, status: 'opened' });
  return { appId, clientId, clientSecret: created.data.clientSecret };
}

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'decision-owner');
  [alice, bob, carol, dave] = (await Promise.all(
    ['alice.d', 'bob.d', 'carol.d', 'dave.d'].map((name) => companyMember(ctx, owner, name)),
  )) as [Person, Person, Person, Person];
  const tree = await admin<{ tree: { departmentId: string } }>('/api/v1/manage/department/tree');
  sales = (
    await admin<{ departmentId: string }>('/api/v1/manage/department/create', {
      name: 'Sales',
      parentId: tree.data.tree.departmentId,
    })
  ).data.departmentId;
  east = (
    await admin<{ departmentId: string }>('/api/v1/manage/department/create', {
      name: 'East',
      parentId: sales,
    })
  ).data.departmentId;
  await admin('/api/v1/manage/department/member/add', { departmentId: east, userIds: [alice.id] });
  await admin('/api/v1/manage/department/member/add', { departmentId: sales, userIds: [bob.id] });
  auditors = (
    await admin<{ roleId: string }>('/api/v1/manage/permission/role/create', {
      name: 'Auditors',
      description: 'Read the books',
    })
  ).data.roleId;
  await admin('/api/v1/manage/permission/role/member/add', { roleId: auditors, userIds: [dave.id] });

  app = await openedApp('Orders', ['profile', 'permissions']);
  other = await openedApp('Wiki', ['profile']);
  const resource = async (name: string, actions: string[], appId = app.appId) =>
    (
      await admin<{ resourceId: string }>('/api/v1/manage/permission/resource/create', {
        appId,
        name,
        actions,
      })
    ).data.resourceId;
  const orders = await resource('orders', ['read', 'write', 'delete']);
  const reports = await resource('reports', ['read', 'export']);
  await resource('pages', ['read'], other.appId);
  const authorize = async (body: Record<string, unknown>) => {
    const answer = await admin('/api/v1/manage/permission/authorization/create', {
      appId: app.appId,
      ...body,
    });
    expect(answer.code, answer.msg).toBe(200);
  };
  await authorize({ subject: { type: 'department', id: sales }, resourceIds: [orders] });
  await authorize({
    subject: { type: 'department', id: east },
    effect: 'reject',
    resourceIds: [orders],
    actionScope: 'specific',
    actions: ['delete'],
  });
  await authorize({
    subject: { type: 'role', id: auditors },
    resourceScope: 'all',
    actionScope: 'specific',
    actions: ['read'],
  });
  await authorize({
    subject: { type: 'user', id: carol.id },
    resourceIds: [reports],
    actionScope: 'specific',
    actions: ['export'],
    restrictions: { ipRanges: ['10.0.0.0/8'] },
  });
});
afterAll(() => ctx.close());

describe('the decision API', () => {
  it('answers through departments with their sub departments, roles and the person, a reject overriding an allow', async () => {
    expect(await verdict(subOf(alice.id), 'orders', 'read')).toBe('allowed:allowed');
    expect(await verdict(subOf(alice.id), 'orders', 'delete')).toBe('denied:rejected');
    expect(await verdict(subOf(bob.id), 'orders', 'delete')).toBe('allowed:allowed');
    expect(await verdict(subOf(dave.id), 'reports', 'read')).toBe('allowed:allowed');
    expect(await verdict(subOf(dave.id), 'reports', 'export')).toBe('denied:no_match');
    expect(await verdict(subOf(carol.id), 'reports', 'export', '10.20.30.40')).toBe('allowed:allowed');
    expect(await verdict(subOf(carol.id), 'reports', 'export', '192.168.0.1')).toBe('denied:no_match');
    expect(await verdict(subOf(carol.id), 'reports', 'export')).toBe('denied:no_match');
    expect(await verdict(subOf(carol.id), 'nothing', 'read')).toBe('denied:unknown_resource');
    expect(await verdict(subOf(carol.id), 'orders', 'fly')).toBe('denied:unknown_action');
    const explained = await decide<{ rules: unknown[] }>('check', {
      userId: subOf(alice.id),
      resource: 'orders',
      action: 'delete',
    });
    expect(explained.data.rules).toEqual([
      {
        authorizationId: expect.any(String),
        effect: 'reject',
        via: { type: 'department', id: east, name: 'East' },
      },
    ]);
  });

  it('answers many questions at once in order, and lists what a person may do', async () => {
    const many = await decide<{ results: { allowed: boolean; reason: string }[] }>('check-many', {
      checks: [
        { userId: subOf(alice.id), resource: 'orders', action: 'write' },
        { userId: subOf(alice.id), resource: 'orders', action: 'delete' },
        { userId: subOf(carol.id), resource: 'reports', action: 'export', ip: '10.0.0.1' },
      ],
    });
    expect(many.data.results.map((r) => r.reason)).toEqual(['allowed', 'rejected', 'allowed']);
    const listed = await decide<{ permissions: unknown[] }>('list', { userId: subOf(alice.id) });
    expect(listed.data.permissions).toEqual([
      { resource: 'orders', type: 'api', data: null, actions: ['read', 'write'] },
    ]);
  });

  it("gives an application nothing of another company's or another application's", async () => {
    const stranger = await ownerWithCompany(ctx, 'decision-stranger');
    expect(await verdict(subOf(stranger.account.id, stranger.companyId), 'orders', 'read')).toBe(
      'denied:unknown_person',
    );
    // The Wiki application asks about the Orders application's resources: it has none such.
    const asWiki = await decide<{ reason: string }>(
      'check',
      { userId: subOf(bob.id), resource: 'orders', action: 'read' },
      other,
    );
    expect(asWiki.data.reason).toBe('unknown_resource');
    const wikiList = await decide<{ permissions: unknown[] }>('list', { userId: subOf(bob.id) }, other);
    expect(wikiList.data.permissions).toEqual([]);
  });

  it('refuses wrong or missing client credentials, a disabled application, and a guesser after 20 tries', async () => {
    const wrong = await decide(
      'check',
      { userId: subOf(bob.id), resource: 'orders', action: 'read' },
      { ...app, clientSecret: 'nope' },
    );
    expect(wrong).toMatchObject({ status: 401, data: { reason: 'app_client.invalid' } });
    expect((await decide('check', {}, 'Bearer whatever')).data).toMatchObject({
      reason: 'app_client.invalid',
    });
    const guarded = await openedApp('Guarded', ['profile']);
    for (let i = 0; i < 20; i++)
      await decide('list', { userId: subOf(bob.id) }, { ...guarded, clientSecret: `guess-${i}` });
    expect(
      (await decide('list', { userId: subOf(bob.id) }, { ...guarded, clientSecret: 'guess-21' })).status,
    ).toBe(401);
    // From this address the client's wrong secrets are refused now; its right secret is answered.
    expect(
      await decide('list', { userId: subOf(bob.id) }, { ...guarded, clientSecret: 'guess-22' }),
    ).toMatchObject({ status: 429 });
    expect(await decide('list', { userId: subOf(bob.id) }, guarded)).toMatchObject({ status: 200 });
    await admin('/api/v1/manage/app/status', { appId: other.appId, status: 'disabled' });
    expect(await decide('list', { userId: subOf(bob.id) }, other)).toMatchObject({
      status: 403,
      data: { reason: 'app_client.disabled' },
    });
    await admin('/api/v1/manage/app/status', { appId: other.appId, status: 'opened' });
    expect((await decide('list', { userId: subOf(bob.id) }, other)).status).toBe(200);
  });

  it('follows every change on the next request: departments, roles, status, authorizations, the secret', async () => {
    await admin('/api/v1/manage/user/update', { userId: alice.id, departmentIds: [sales] });
    await settled();
    expect(await verdict(subOf(alice.id), 'orders', 'delete')).toBe('allowed:allowed');
    await admin('/api/v1/manage/department/move', { departmentId: east, parentId: sales });
    await admin('/api/v1/manage/permission/role/member/add', { roleId: auditors, userIds: [carol.id] });
    await settled();
    expect(await verdict(subOf(carol.id), 'orders', 'read')).toBe('allowed:allowed');
    await admin('/api/v1/manage/user/status', { userId: dave.id, status: 'disabled' });
    await settled();
    expect(await verdict(subOf(dave.id), 'reports', 'read')).toBe('denied:person_disabled');
    const list = await admin<{ list: { authorizationId: string }[] }>(
      '/api/v1/manage/permission/authorization/list',
      {
        subjectType: 'role',
        subjectId: auditors,
      },
    );
    await admin('/api/v1/manage/permission/authorization/del', {
      authorizationId: list.data.list[0]!.authorizationId,
    });
    expect(await verdict(subOf(carol.id), 'orders', 'read')).toBe('denied:no_match');
    const reset = await admin<{ clientSecret: string }>('/api/v1/manage/app/secret/reset', {
      appId: app.appId,
    });
    await settled();
    expect((await decide('list', { userId: subOf(bob.id) })).status).toBe(401);
    app = { ...app, clientSecret: reset.data.clientSecret };
    expect((await decide('list', { userId: subOf(bob.id) })).status).toBe(200);
  });

  it('answers the curl example of the README', async (context) => {
    const curl = await promisify(execFile)('curl', ['--version']).catch(() => undefined);
    if (!curl) return context.skip();
    const { stdout } = await promisify(execFile)('curl', [
      '-s',
      '-u',
      `${app.clientId}:${app.clientSecret}`,
      '-H',
      'content-type: application/json',
      '-d',
      JSON.stringify({ userId: subOf(bob.id), resource: 'orders', action: 'write' }),
      `${ctx.baseUrl}/api/v1/app/permission/check`,
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ code: 200, data: { allowed: true, reason: 'allowed' } });
  });

  it("takes the application's own token from the client credentials grant (openid-client), until its secret changes", async () => {
    const configOf = (of: typeof app) =>
      client.discovery(
        new URL(`${ctx.baseUrl}/oidc`),
        of.clientId,
        undefined,
        client.ClientSecretBasic(of.clientSecret),
        { execute: [client.allowInsecureRequests] },
      );
    const tokens = await client.clientCredentialsGrant(await configOf(app));
    expect(tokens.token_type).toBe('bearer');
    const bearer = `Bearer ${tokens.access_token}`;
    const asked = { userId: subOf(bob.id), resource: 'orders', action: 'write' };
    expect(await decide('check', asked, bearer)).toMatchObject({ status: 200, data: { allowed: true } });
    // The Wiki application's token answers about the Wiki application only.
    const wiki = await client.clientCredentialsGrant(await configOf(other));
    expect(
      (await decide<{ reason: string }>('check', asked, `Bearer ${wiki.access_token}`)).data.reason,
    ).toBe('unknown_resource');
    // The token is for the decision API only: the management API does not take it.
    const manage = await fetch(`${ctx.baseUrl}/api/v1/manage/app/list`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: bearer, company_id: owner.companyId },
      body: '{}',
    });
    expect(manage.status).toBe(401);
    // A token for another audience is refused, and so is a token once the secret is reset.
    await expect(
      client.clientCredentialsGrant(await configOf(app), { resource: `${ctx.baseUrl}/api/v1/manage` }),
    ).rejects.toMatchObject({ error: 'invalid_target' });
    const reset = await admin<{ clientSecret: string }>('/api/v1/manage/app/secret/reset', {
      appId: app.appId,
    });
    await settled();
    expect(await decide('check', asked, bearer)).toMatchObject({
      status: 401,
      data: { reason: 'app_client.invalid' },
    });
    app = { ...app, clientSecret: reset.data.clientSecret };
    const renewed = await client.clientCredentialsGrant(await configOf(app));
    expect((await decide('check', asked, `Bearer ${renewed.access_token}`)).status).toBe(200);
  });
});

describe('the permissions scope', () => {
  it('carries what the person may do in the application in its ID token and userinfo', async () => {
    const config = await client.discovery(
      new URL(`${ctx.baseUrl}/oidc`),
      app.clientId,
      undefined,
      client.ClientSecretBasic(app.clientSecret),
      { execute: [client.allowInsecureRequests] },
    );
    const flow = await signInForCode({
      baseUrl: ctx.baseUrl,
      clientId: app.clientId,
      redirectUri,
      identifier: bob.username,
      password: bob.password,
      scope: 'openid profile permissions',
    });
    const tokens = await client.authorizationCodeGrant(config, flow.callbackUrl, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
    });
    expect(tokens.claims()?.permissions).toEqual({ orders: ['read', 'write', 'delete'] });
    // The subject is the person's pairwise identifier in the application's company, not the account id.
    const subject = tokens.claims()?.sub ?? '';
    expect(subject).not.toBe(bob.id);
    expect((await client.fetchUserInfo(config, tokens.access_token, subject)).permissions).toEqual({
      orders: ['read', 'write', 'delete'],
    });
    // An application not allowed the scope cannot ask for it.
    const refused = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: other.clientId,
      redirectUri,
      scope: 'openid permissions',
      jar: flow.jar,
    });
    expect(new URL(refused.location).searchParams.get('error')).toBe('invalid_scope');
  });
});
