import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import {
  browse,
  type CookieJar,
  followToRedirectUri,
  request,
  signInForCode,
  startAuthorization,
  submitSignIn,
  tokenRequest,
} from '../../test/browser-flow.ts';
import {
  anotherInstance,
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { pairwiseSubject } from '../oidc/subject.ts';

/**
 * Applications as OIDC clients, seen from an independent relying party (openid-client): the
 * code flow with PKCE, refresh with rotation, claims, lifetimes as configured, logout, and
 * access refused at every hop.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let alice: { id: string; username: string; password: string };
const redirectUri = 'http://localhost:7001/callback';

/** A person's `sub` at the apps of the owner's company (pairwise per company, subject.ts). */
const subOf = (accountId: string) => pairwiseSubject(createSealer(ctx.masterKey))(owner.companyId, accountId);

const admin = <T = Record<string, unknown>>(path: string, body: unknown = {}) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

interface CreatedApp {
  appId: string;
  clientId: string;
  clientSecret: string;
}

async function createOpenedApp(settings: Record<string, unknown> = {}): Promise<CreatedApp> {
  const created = await admin<{ app: { appId: string; clientId: string }; clientSecret: string }>(
    '/api/v1/manage/app/create',
    { name: 'Wiki' },
  );
  expect(created.code).toBe(200);
  const { appId, clientId } = created.data.app;
  const updated = await admin('/api/v1/manage/app/update', {
    appId,
    redirectUris: [redirectUri],
    postLogoutRedirectUris: ['http://localhost:7001/bye'],
    ...settings,
  });
  expect(updated.code, updated.msg).toBe(200);
  expect((await admin('/api/v1/manage/app/status', { appId, status: 'opened' })).code).toBe(200);
  return { appId, clientId, clientSecret: created.data.clientSecret };
}

const relyingParty = (app: CreatedApp) =>
  client.discovery(
    new URL(`${ctx.baseUrl}/oidc`),
    app.clientId,
    undefined,
    client.ClientSecretBasic(app.clientSecret),
    { execute: [client.allowInsecureRequests] },
  );

const signIn = (app: CreatedApp, user = alice, jar?: CookieJar) =>
  signInForCode({
    baseUrl: ctx.baseUrl,
    clientId: app.clientId,
    redirectUri,
    identifier: user.username,
    password: user.password,
    scope: 'openid profile email offline_access',
    jar,
  });

async function tokensFor(app: CreatedApp, user = alice) {
  const config = await relyingParty(app);
  const flow = await signIn(app, user);
  const tokens = await client.authorizationCodeGrant(config, flow.callbackUrl, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
  });
  return { config, tokens, flow };
}

const loginEvents = (accountId: string) =>
  ctx.database.db
    .selectFrom('login_events')
    .select(['result', 'failure_cause', 'client_id'])
    .where('account_id', '=', accountId)
    .where('result', '=', 'failure')
    .execute();

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  await grantLicense(ctx, { app: 1000 });
  owner = await ownerWithCompany(ctx, 'appowner');
  alice = await companyMember(ctx, owner, 'alice');
});
afterAll(() => ctx.close());

describe('an application as an OIDC client', () => {
  it('signs in with code + PKCE, releases the profile, and answers userinfo', async () => {
    const app = await createOpenedApp();
    const { config, tokens } = await tokensFor(app);
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(subOf(alice.id));
    expect(claims.aud).toBe(app.clientId);
    expect(claims.preferred_username).toBe('alice');
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString());
    expect(header.alg).toBe('ES256');
    const info = await client.fetchUserInfo(config, tokens.access_token, subOf(alice.id));
    expect(info.preferred_username).toBe('alice');
  });

  it("carries the person's departments in the app's company as groups, for an app allowed that scope", async () => {
    const tree = await admin<{ tree: { departmentId: string } }>('/api/v1/manage/department/tree');
    const sales = await admin<{ departmentId: string }>('/api/v1/manage/department/create', {
      name: 'Sales',
      parentId: tree.data.tree.departmentId,
    });
    const east = await admin<{ departmentId: string }>('/api/v1/manage/department/create', {
      name: 'East',
      parentId: sales.data.departmentId,
    });
    const frank = await companyMember(ctx, owner, 'frank');
    for (const departmentId of [east.data.departmentId, tree.data.tree.departmentId])
      await admin('/api/v1/manage/department/member/add', { departmentId, userIds: [frank.id] });

    const scope = 'openid profile groups';
    const withGroups = await createOpenedApp({ scopes: ['profile', 'groups'] });
    const config = await relyingParty(withGroups);
    const flow = await signInForCode({
      baseUrl: ctx.baseUrl,
      clientId: withGroups.clientId,
      redirectUri,
      identifier: frank.username,
      password: frank.password,
      scope,
    });
    const tokens = await client.authorizationCodeGrant(config, flow.callbackUrl, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
    });
    expect(tokens.claims()?.groups).toEqual(['Sales/East']);
    expect((await client.fetchUserInfo(config, tokens.access_token, subOf(frank.id))).groups).toEqual([
      'Sales/East',
    ]);

    // An app not allowed the scope cannot ask for it.
    const without = await createOpenedApp({ scopes: ['profile'] });
    const refused = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: without.clientId,
      redirectUri,
      scope,
      jar: flow.jar,
    });
    expect(new URL(refused.location).searchParams.get('error')).toBe('invalid_scope');
  });

  it('issues tokens with exactly the configured lifetimes and signing algorithm', async () => {
    const lifetimes = { authorizationCode: 30, idToken: 700, accessToken: 900, refreshToken: 5000 };
    const app = await createOpenedApp({ lifetimes, signingAlg: 'RS256' });
    const { tokens } = await tokensFor(app);
    const claims = tokens.claims()!;
    expect(claims.exp - claims.iat).toBe(700);
    expect(tokens.expires_in).toBe(900);
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString());
    expect(header.alg).toBe('RS256');
    const refresh = await ctx.database.db
      .selectFrom('oidc_payloads')
      .select(['payload'])
      .where('model', '=', 'RefreshToken')
      .where(({ ref }) => ref('payload', '->>').key('clientId' as never), '=', app.clientId as never)
      .executeTakeFirstOrThrow();
    const payload = refresh.payload as { exp: number; iat: number };
    expect(payload.exp - payload.iat).toBe(5000);
  });

  it('applies a changed lifetime on the next request', async () => {
    const app = await createOpenedApp();
    const lifetimes = { authorizationCode: 60, idToken: 120, accessToken: 240, refreshToken: 3600 };
    expect((await admin('/api/v1/manage/app/update', { appId: app.appId, lifetimes })).code).toBe(200);
    const { tokens } = await tokensFor(app);
    expect(tokens.expires_in).toBe(240);
    expect(tokens.claims()!.exp - tokens.claims()!.iat).toBe(120);
  });

  it('rotates refresh tokens; a replayed one is refused and ends the grant', async () => {
    const app = await createOpenedApp();
    const { config, tokens } = await tokensFor(app);
    const first = tokens.refresh_token!;
    const second = await client.refreshTokenGrant(config, first);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(first);
    await expect(client.refreshTokenGrant(config, first)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(config, second.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('requires PKCE unless the administrator turned it off for an app that cannot send it', async () => {
    const withoutPkce = (app: CreatedApp) => {
      const url = new URL(`${ctx.baseUrl}/oidc/auth`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: redirectUri,
        scope: 'openid',
        state: 'plain',
      }).toString();
      return fetch(url, { redirect: 'manual' });
    };
    const strict = await createOpenedApp();
    const refused = await withoutPkce(strict);
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');

    const legacy = await createOpenedApp({ requirePkce: false });
    const accepted = await withoutPkce(legacy);
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toContain('/interaction/');
  });

  it("introspects a client's own tokens only, and inactive once the person lost access", async () => {
    const app = await createOpenedApp({ defaultAccess: 'prohibit_all' });
    const other = await createOpenedApp();
    const erin = await companyMember(ctx, owner, 'erin');
    await admin('/api/v1/manage/app/assignment/add', { appId: app.appId, userIds: [erin.id] });
    const { tokens } = await tokensFor(app, erin);
    const introspect = async (by: CreatedApp) => {
      const response = await fetch(`${ctx.baseUrl}/oidc/token/introspection`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${by.clientId}:${by.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token: tokens.access_token }).toString(),
      });
      return (await response.json()) as { active: boolean; sub?: string };
    };
    expect(await introspect(app)).toMatchObject({ active: true, sub: subOf(erin.id) });
    expect(await introspect(other)).toEqual({ active: false });
    // The assignment runs out (nothing is revoked): the token is still stored, but inactive.
    await ctx.database.db
      .updateTable('app_assignments')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('app_id', '=', app.appId)
      .execute();
    expect(await introspect(app)).toEqual({ active: false });
  });

  it('serves a public app (no secret, PKCE) and refuses one without PKCE', async () => {
    const app = await createOpenedApp({ tokenAuthMethod: 'none' });
    const config = await client.discovery(
      new URL(`${ctx.baseUrl}/oidc`),
      app.clientId,
      undefined,
      client.None(),
      {
        execute: [client.allowInsecureRequests],
      },
    );
    const flow = await signIn(app);
    const tokens = await client.authorizationCodeGrant(config, flow.callbackUrl, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
    });
    expect(tokens.claims()?.sub).toBe(subOf(alice.id));
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();

    // A browser may call the token endpoint from the public app's own origin, not for a confidential one.
    const corsFor = async (clientId: string, origin: string) =>
      (
        await fetch(`${ctx.baseUrl}/oidc/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId }),
        })
      ).headers.get('access-control-allow-origin');
    expect(await corsFor(app.clientId, 'http://localhost:7001')).toBe('http://localhost:7001');
    expect(await corsFor(app.clientId, 'https://evil.example')).toBeNull();
    const confidential = await createOpenedApp();
    expect(await corsFor(confidential.clientId, 'http://localhost:7001')).toBeNull();

    const before = await ctx.database.db
      .selectFrom('apps')
      .select('require_pkce')
      .where('id', '=', app.appId)
      .executeTakeFirstOrThrow();
    const refused = await admin('/api/v1/manage/app/update', { appId: app.appId, requirePkce: false });
    expect(refused.code).toBe(400);
    expect(refused.msg).toBe('An application without a client secret must use PKCE');
    const after = await ctx.database.db
      .selectFrom('apps')
      .select('require_pkce')
      .where('id', '=', app.appId)
      .executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });

  it('gives exactly one token for 50 parallel redemptions of one code', async () => {
    const app = await createOpenedApp();
    const flow = await signIn(app);
    const params = {
      grant_type: 'authorization_code',
      code: flow.code,
      redirect_uri: redirectUri,
      code_verifier: flow.verifier,
    };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        tokenRequest(ctx.baseUrl, { clientId: app.clientId, secret: app.clientSecret }, params),
      ),
    );
    const issued = answers.filter((a) => a.status === 200);
    expect(issued).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400).every((a) => a.body.error === 'invalid_grant')).toBe(true);
  });

  it('logs out at the end-session endpoint and returns to the registered logout URL', async () => {
    const app = await createOpenedApp();
    const { config, tokens, flow } = await tokensFor(app);
    const url = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: 'http://localhost:7001/bye',
      state: 'done',
    });
    const page = await browse(flow.jar, url.toString());
    // The ID token names the session: the page posts itself, nothing to confirm.
    const form =
      /<form method="post" action="([^"]+)"[^>]*data-auto-submit>[\s\S]*?name="xsrf" value="([^"]+)"/.exec(
        page.html,
      );
    expect(form).toBeTruthy();
    const confirm = await request(flow.jar, new URL(form![1]!, ctx.baseUrl).toString(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: form![2]!, logout: 'yes' }).toString(),
    });
    const location = confirm.headers.get('location') ?? '';
    expect(location.startsWith('http://localhost:7001/bye')).toBe(true);
    expect(new URL(location).searchParams.get('state')).toBe('done');
    // The single sign-on session is over: the next authorization asks for the password again.
    const again = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: app.clientId,
      redirectUri,
      jar: flow.jar,
    });
    expect(again.location).toContain('/interaction/');
  });
});

describe('the sign-in log', () => {
  it('records each sign-in to an app once, through the sign-in page or single sign-on', async () => {
    const first = await createOpenedApp();
    const second = await createOpenedApp();
    const dave = await companyMember(ctx, owner, 'dave');
    const flow = await signIn(first, dave);
    await signIn(second, dave, flow.jar);
    const successes = await ctx.database.db
      .selectFrom('login_events')
      .select(['client_id', 'company_id'])
      .where('account_id', '=', dave.id)
      .where('result', '=', 'success')
      .execute();
    expect(successes).toHaveLength(2);
    expect(successes).toEqual(
      expect.arrayContaining([
        { client_id: first.clientId, company_id: owner.companyId },
        { client_id: second.clientId, company_id: owner.companyId },
      ]),
    );
  });
});

describe('who may use an application', () => {
  it('refuses an unassigned user under prohibit-all with a no-access page and a login event', async () => {
    const app = await createOpenedApp({ defaultAccess: 'prohibit_all' });
    const bob = await companyMember(ctx, owner, 'bob');
    const start = await startAuthorization({ baseUrl: ctx.baseUrl, clientId: app.clientId, redirectUri });
    const posted = await submitSignIn(start.jar, start.location, bob.username, bob.password);
    const page = await browse(start.jar, new URL(posted.headers.get('location')!, ctx.baseUrl).toString());
    expect(page.response.status).toBe(403);
    expect(page.html).toContain('You have not been given access to this application');
    expect(page.html).toContain('Wiki');
    expect(await loginEvents(bob.id)).toContainEqual({
      result: 'failure',
      failure_cause: 'app_not_assigned',
      client_id: app.clientId,
    });

    // Assigned, the same person signs in (the single sign-on session is reused).
    expect(
      (await admin('/api/v1/manage/app/assignment/add', { appId: app.appId, userIds: [bob.id] })).code,
    ).toBe(200);
    const flow = await signIn(app, bob, start.jar);
    expect(flow.code).toBeTruthy();
  });

  it('refuses an expired assignment, and refreshes stop when access ends', async () => {
    const app = await createOpenedApp({ defaultAccess: 'prohibit_all' });
    const carol = await companyMember(ctx, owner, 'carol');
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    await admin('/api/v1/manage/app/assignment/add', { appId: app.appId, userIds: [carol.id], expiresAt });
    const { config, tokens } = await tokensFor(app, carol);

    // The assignment now lies in the past: refresh and userinfo are refused.
    await ctx.database.db
      .updateTable('app_assignments')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('app_id', '=', app.appId)
      .execute();
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(client.fetchUserInfo(config, tokens.access_token, subOf(carol.id))).rejects.toBeTruthy();
    const causes = (await loginEvents(carol.id)).map((e) => e.failure_cause);
    expect(causes).toContain('app_assignment_expired');

    // At sign-in the expired assignment shows its own reason.
    const start = await startAuthorization({ baseUrl: ctx.baseUrl, clientId: app.clientId, redirectUri });
    const posted = await submitSignIn(start.jar, start.location, carol.username, carol.password);
    const page = await browse(start.jar, new URL(posted.headers.get('location')!, ctx.baseUrl).toString());
    expect(page.html).toContain('Your access to this application has expired');
  });

  it('refuses refresh once the app is disabled, and once a user is unassigned', async () => {
    const app = await createOpenedApp();
    const { config, tokens } = await tokensFor(app);
    expect((await admin('/api/v1/manage/app/status', { appId: app.appId, status: 'disabled' })).code).toBe(
      200,
    );
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await loginEvents(alice.id)).map((e) => e.failure_cause)).toContain('app_disabled');

    const strict = await createOpenedApp({ defaultAccess: 'prohibit_all' });
    await admin('/api/v1/manage/app/assignment/add', { appId: strict.appId, userIds: [alice.id] });
    const second = await tokensFor(strict);
    await admin('/api/v1/manage/app/assignment/del', { appId: strict.appId, userIds: [alice.id] });
    await expect(client.refreshTokenGrant(second.config, second.tokens.refresh_token!)).rejects.toMatchObject(
      {
        error: 'invalid_grant',
      },
    );
  });

  it('refuses a person of another company even under allow-all', async () => {
    const app = await createOpenedApp();
    const other = await ownerWithCompany(ctx, 'otherowner');
    const outsider = await companyMember(ctx, other, 'outsider');
    const start = await startAuthorization({ baseUrl: ctx.baseUrl, clientId: app.clientId, redirectUri });
    const posted = await submitSignIn(start.jar, start.location, outsider.username, outsider.password);
    const page = await browse(start.jar, new URL(posted.headers.get('location')!, ctx.baseUrl).toString());
    expect(page.response.status).toBe(403);
  });

  it('answers an app waiting to be configured as no client, and a disabled one with the no-access page', async () => {
    const created = await admin<{ app: { appId: string; clientId: string } }>('/api/v1/manage/app/create', {
      name: 'Draft',
    });
    const start = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: created.data.app.clientId,
      redirectUri,
    });
    expect(start.status).toBe(400);

    const app = await createOpenedApp();
    await admin('/api/v1/manage/app/status', { appId: app.appId, status: 'disabled' });
    const flow = await startAuthorization({ baseUrl: ctx.baseUrl, clientId: app.clientId, redirectUri });
    const posted = await submitSignIn(flow.jar, flow.location, alice.username, alice.password);
    const page = await browse(flow.jar, new URL(posted.headers.get('location')!, ctx.baseUrl).toString());
    expect(page.html).toContain('This application is not open or has been disabled');
    // And it never reached the redirect URI.
    await expect(followToRedirectUri(flow.jar, ctx.baseUrl, posted, redirectUri)).rejects.toThrow();
  });
});

describe('several server instances', () => {
  it('applies an application change on the next request at another instance', async () => {
    // A second instance on the same database, as behind a load balancer.
    const other = await anotherInstance(ctx);
    try {
      const app = await createOpenedApp();
      const tokenAtOther = (params: Record<string, string>) =>
        other.app
          .inject({
            method: 'POST',
            url: '/oidc/token',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
            },
            payload: new URLSearchParams(params).toString(),
          })
          .then((r) => r.json() as { expires_in?: number; refresh_token?: string; error?: string });
      const lifetimes = { authorizationCode: 60, idToken: 300, accessToken: 777, refreshToken: 9000 };
      expect((await admin('/api/v1/manage/app/update', { appId: app.appId, lifetimes })).code).toBe(200);
      const flow = await signIn(app);
      const tokens = await tokenAtOther({
        grant_type: 'authorization_code',
        code: flow.code,
        redirect_uri: redirectUri,
        code_verifier: flow.verifier,
      });
      expect(tokens.expires_in).toBe(777);
      expect((await admin('/api/v1/manage/app/status', { appId: app.appId, status: 'disabled' })).code).toBe(
        200,
      );
      const refused = await tokenAtOther({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
      });
      expect(refused.error).toBe('invalid_grant');
    } finally {
      await other.close();
    }
  });
});
