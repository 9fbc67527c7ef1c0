import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browse,
  request,
  signInForCode,
  signInToPortal,
  startAuthorization,
  submitSignIn,
} from '../../test/browser-flow.ts';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';

/**
 * Issue 35: an application assigned to departments (their sub departments included) and
 * permission roles, each with an optional expiry, seen from an independent relying party
 * (openid-client) and from the portal's My apps: one rule at sign-in, refresh, userinfo and in
 * the list.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let rootId: string;
const redirectUri = 'http://localhost:7002/callback';

async function admin<T = Record<string, unknown>>(path: string, body: unknown = {}, who = owner) {
  const answer = await call<T>(ctx, path, body, { token: who.token, companyId: who.companyId });
  return answer;
}
async function manage<T = Record<string, unknown>>(path: string, body: unknown = {}) {
  const answer = await admin<T>(path, body);
  if (answer.code !== 200) throw new Error(`${path}: ${answer.code} ${answer.msg}`);
  return answer.data;
}

interface CreatedApp {
  appId: string;
  clientId: string;
  clientSecret: string;
}

/** An opened OIDC app under "prohibit all". */
async function strictApp(name: string): Promise<CreatedApp> {
  const created = await manage<{ app: { appId: string; clientId: string }; clientSecret: string }>(
    '/api/v1/manage/app/create',
    { name },
  );
  const { appId, clientId } = created.app;
  await manage('/api/v1/manage/app/update', {
    appId,
    redirectUris: [redirectUri],
    defaultAccess: 'prohibit_all',
  });
  await manage('/api/v1/manage/app/status', { appId, status: 'opened' });
  return { appId, clientId, clientSecret: created.clientSecret };
}

const department = async (name: string, parentId = rootId) =>
  (await manage<{ departmentId: string }>('/api/v1/manage/department/create', { name, parentId }))
    .departmentId;

async function role(name: string, userIds: string[]) {
  const created = await manage<{ roleId: string }>('/api/v1/manage/permission/role/create', {
    name,
    description: `${name} people`,
  });
  if (userIds.length)
    await manage('/api/v1/manage/permission/role/member/add', { roleId: created.roleId, userIds });
  return created.roleId;
}

type Person = Awaited<ReturnType<typeof companyMember>>;

async function tokensFor(app: CreatedApp, person: Person) {
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
    identifier: person.username,
    password: person.password,
    scope: 'openid profile offline_access',
  });
  const tokens = await client.authorizationCodeGrant(config, flow.callbackUrl, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
  });
  return { config, tokens };
}

/** The page a person lands on after signing in to the app: the app's callback, or the no-access page. */
async function signInPage(app: CreatedApp, person: Person) {
  const start = await startAuthorization({ baseUrl: ctx.baseUrl, clientId: app.clientId, redirectUri });
  let response = await submitSignIn(start.jar, start.location, person.username, person.password);
  for (let hop = 0; hop < 10; hop += 1) {
    const location = response.headers.get('location');
    if (!location) return { allowed: false, status: response.status, html: await response.text() };
    const next = new URL(location, ctx.baseUrl).toString();
    if (next.startsWith(redirectUri)) return { allowed: true, status: 302, html: '' };
    response = await request(start.jar, next);
  }
  throw new Error('too many redirects');
}

async function myApps(person: Person) {
  const { jar } = await signInToPortal(ctx.baseUrl, person.username, person.password);
  const page = await browse(jar, `${ctx.baseUrl}/portal/apps`);
  return [...page.html.matchAll(/data-app-id="([^"]+)"/g)].map((m) => m[1]);
}

const assignGroups = (app: CreatedApp, groups: Record<string, unknown>) =>
  admin<{ assigned: number }>('/api/v1/manage/app/assignment/group/add', { appId: app.appId, ...groups });

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  await grantLicense(ctx, { app: 1000 });
  owner = await ownerWithCompany(ctx, 'groups-owner', 'Groups Co');
  rootId = (await manage<{ tree: { departmentId: string } }>('/api/v1/manage/department/tree')).tree
    .departmentId;
});
afterAll(() => ctx.close());

describe('application access through departments and roles', () => {
  it('lets in the members of an assigned department and of the departments below it, and no one else', async () => {
    const app = await strictApp('Wiki by department');
    const sales = await department('Sales');
    const east = await department('East', sales);
    const support = await department('Support');
    const [dana, evan, fay] = [
      await companyMember(ctx, owner, 'dana'),
      await companyMember(ctx, owner, 'evan'),
      await companyMember(ctx, owner, 'fay'),
    ];
    await manage('/api/v1/manage/department/member/add', { departmentId: sales, userIds: [dana.id] });
    await manage('/api/v1/manage/department/member/add', { departmentId: east, userIds: [evan.id] });
    await manage('/api/v1/manage/department/member/add', { departmentId: support, userIds: [fay.id] });

    expect((await signInPage(app, dana)).allowed).toBe(false);
    expect((await assignGroups(app, { departmentIds: [sales] })).data).toEqual({ assigned: 1 });

    expect((await signInPage(app, dana)).allowed).toBe(true);
    // A member of a sub department only.
    expect((await signInPage(app, evan)).allowed).toBe(true);
    const refused = await signInPage(app, fay);
    expect(refused.allowed).toBe(false);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('You have not been given access to this application');

    // My apps lists the app to the sub department's member, not to the other department's.
    expect(await myApps(evan)).toContain(app.appId);
    expect(await myApps(fay)).not.toContain(app.appId);

    // The list shows the department's place and the people it reaches.
    const listed = await manage<{ list: Record<string, unknown>[] }>(
      '/api/v1/manage/app/assignment/group/list',
      {
        appId: app.appId,
      },
    );
    expect(listed.list).toEqual([
      expect.objectContaining({
        kind: 'department',
        targetId: sales,
        name: 'Sales',
        path: 'Groups Co / Sales',
        people: 2,
        expiresAt: null,
        expired: false,
      }),
    ]);
  });

  it('lets in the members of an assigned role; a person taken out of the role can no longer refresh', async () => {
    const app = await strictApp('Wiki by role');
    const gus = await companyMember(ctx, owner, 'gus');
    const hal = await companyMember(ctx, owner, 'hal');
    const editors = await role('Editors', [gus.id]);
    await assignGroups(app, { roleIds: [editors] });

    expect((await signInPage(app, hal)).allowed).toBe(false);
    const { config, tokens } = await tokensFor(app, gus);
    expect(await myApps(gus)).toContain(app.appId);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);

    await manage('/api/v1/manage/permission/role/member/remove', { roleId: editors, userIds: [gus.id] });
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(
      client.fetchUserInfo(config, refreshed.access_token, client.skipSubjectCheck),
    ).rejects.toBeTruthy();
    expect(await myApps(gus)).not.toContain(app.appId);
  });

  it('ends the tokens of the people a removed department assignment reached, at once', async () => {
    const app = await strictApp('Wiki removed');
    const ops = await department('Ops');
    const night = await department('Night shift', ops);
    const ida = await companyMember(ctx, owner, 'ida');
    const jon = await companyMember(ctx, owner, 'jon');
    await manage('/api/v1/manage/department/member/add', { departmentId: night, userIds: [ida.id, jon.id] });
    const readers = await role('Readers', [jon.id]);
    await assignGroups(app, { departmentIds: [ops], roleIds: [readers] });
    const ofIda = await tokensFor(app, ida);
    const ofJon = await tokensFor(app, jon);

    const removed = await admin('/api/v1/manage/app/assignment/group/del', {
      appId: app.appId,
      departmentIds: [ops],
    });
    expect(removed.data).toEqual({ removed: 1 });
    await expect(client.refreshTokenGrant(ofIda.config, ofIda.tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await signInPage(app, ida)).allowed).toBe(false);
    // Jon still reaches the app through his role: his tokens stay.
    await client.refreshTokenGrant(ofJon.config, ofJon.tokens.refresh_token!);

    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'before', 'after'])
      .where('target_id', '=', app.appId)
      .where('action', 'in', ['app.assign_groups', 'app.unassign_groups'])
      .orderBy('created_at')
      .execute();
    expect(audit.map((event) => event.action)).toEqual(['app.assign_groups', 'app.unassign_groups']);
  });

  it('keeps the tokens of a person taken off the app who still reaches it through a role', async () => {
    const app = await strictApp('Wiki direct and role');
    const lea = await companyMember(ctx, owner, 'lea');
    await manage('/api/v1/manage/app/assignment/add', { appId: app.appId, userIds: [lea.id] });
    await assignGroups(app, { roleIds: [await role('Writers', [lea.id])] });
    const { config, tokens } = await tokensFor(app, lea);
    await manage('/api/v1/manage/app/assignment/del', { appId: app.appId, userIds: [lea.id] });
    await client.refreshTokenGrant(config, tokens.refresh_token!);
  });

  it('honours the expiry of a department or role assignment at sign-in, refresh and in My apps', async () => {
    const app = await strictApp('Wiki expiring');
    const lab = await department('Lab');
    const kim = await companyMember(ctx, owner, 'kim');
    const lee = await companyMember(ctx, owner, 'lee');
    await manage('/api/v1/manage/department/member/add', { departmentId: lab, userIds: [kim.id] });
    const guests = await role('Guests', [lee.id]);
    const later = Math.floor(Date.now() / 1000) + 3600;
    expect(
      (await assignGroups(app, { departmentIds: [lab], roleIds: [guests], expiresAt: later })).code,
    ).toBe(200);
    const ofKim = await tokensFor(app, kim);
    expect(await myApps(lee)).toContain(app.appId);

    // Both assignments now lie in the past.
    const past = new Date(Date.now() - 1000);
    await ctx.database.db
      .updateTable('app_department_assignments')
      .set({ expires_at: past })
      .where('app_id', '=', app.appId)
      .execute();
    await ctx.database.db
      .updateTable('app_role_assignments')
      .set({ expires_at: past })
      .where('app_id', '=', app.appId)
      .execute();

    await expect(client.refreshTokenGrant(ofKim.config, ofKim.tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const page = await signInPage(app, lee);
    expect(page.allowed).toBe(false);
    expect(page.html).toContain('Your access to this application has expired');
    expect(await myApps(lee)).not.toContain(app.appId);
    const listed = await manage<{ list: { expired: boolean }[] }>(
      '/api/v1/manage/app/assignment/group/list',
      {
        appId: app.appId,
      },
    );
    expect(listed.list.map((row) => row.expired)).toEqual([true, true]);
  });

  it("refuses another company's department and role as not found, and stores nothing", async () => {
    const app = await strictApp('Wiki walled');
    const other = await ownerWithCompany(ctx, 'groups-other', 'Other Co');
    const otherRoot = (
      await call<{ tree: { departmentId: string } }>(ctx, '/api/v1/manage/department/tree', {}, other)
    ).data.tree.departmentId;
    const otherRole = await call<{ roleId: string }>(
      ctx,
      '/api/v1/manage/permission/role/create',
      { name: 'Theirs', description: 'Not yours' },
      other,
    );
    const mine = await department('Mine');

    const byDepartment = await assignGroups(app, { departmentIds: [mine, otherRoot] });
    expect([byDepartment.code, byDepartment.msg]).toEqual([404, 'Department not found']);
    const byRole = await assignGroups(app, { roleIds: [otherRole.data.roleId] });
    expect([byRole.code, byRole.msg]).toEqual([404, 'Role not found']);
    const removing = await admin('/api/v1/manage/app/assignment/group/del', {
      appId: app.appId,
      roleIds: [otherRole.data.roleId],
    });
    expect(removing.code).toBe(404);
    const nothing = await assignGroups(app, {});
    expect([nothing.code, nothing.msg]).toEqual([400, 'Please choose at least one department or role']);
    expect(
      (await manage<{ list: unknown[] }>('/api/v1/manage/app/assignment/group/list', { appId: app.appId }))
        .list,
    ).toEqual([]);
  });
});
