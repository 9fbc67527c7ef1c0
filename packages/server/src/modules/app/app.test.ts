import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { startAuthorization, tokenRequest } from '../../test/browser-flow.ts';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
  TINY_PNG,
  upload,
} from '../../test/harness.ts';
import { deleteRecord } from '../user/user-write.repo.ts';

/** The application calls of the console: settings, validation, secrets, access accounts. */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;

const admin = <T = Record<string, unknown>>(path: string, body: unknown = {}, lang?: string) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId, lang });

interface Created {
  app: { appId: string; clientId: string; status: string; oidc: Record<string, unknown> };
  clientSecret: string;
}
const createApp = async (body: Record<string, unknown> = { name: 'Portal' }) => {
  const created = await admin<Created>('/api/v1/manage/app/create', body);
  expect(created.code, created.msg).toBe(200);
  return created.data;
};

const appRow = (appId: string) =>
  ctx.database.db.selectFrom('apps').selectAll().where('id', '=', appId).executeTakeFirstOrThrow();

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  await grantLicense(ctx, { app: 1000 });
  owner = await ownerWithCompany(ctx, 'apps-admin');
});
afterAll(() => ctx.close());

describe('application settings', () => {
  it('creates an app waiting to be configured, with the recommended lifetimes and ES256', async () => {
    const { app, clientSecret } = await createApp();
    expect(app.status).toBe('to_be_configured');
    expect(app.oidc).toMatchObject({
      signingAlg: 'ES256',
      lifetimes: {
        authorizationCode: 60,
        idToken: 1_209_600,
        accessToken: 1_209_600,
        refreshToken: 2_592_000,
      },
    });
    expect(clientSecret.length).toBeGreaterThanOrEqual(40);
    // The secret is stored sealed, and never answered again.
    const row = await appRow(app.appId);
    expect(row.client_secret_sealed).not.toContain(clientSecret);
    expect(createSealer(ctx.masterKey).open(row.client_secret_sealed, 'client-secret')).toBe(clientSecret);
    const detail = await admin('/api/v1/manage/app/detail', { appId: app.appId });
    expect(JSON.stringify(detail)).not.toContain(clientSecret);
    expect(detail.data.metadata).toMatchObject({
      discoveryUrl: `${ctx.baseUrl}/oidc/.well-known/openid-configuration`,
      jwksUri: `${ctx.baseUrl}/oidc/jwks`,
    });
  });

  it('pre-fills a catalogue app from its template under the app address', async () => {
    const { app } = await createApp({
      name: 'GitLab',
      type: 'third_party',
      template: 'gitlab',
      baseUrl: 'https://gitlab.example.com/',
    });
    expect(app.oidc).toMatchObject({
      redirectUris: ['https://gitlab.example.com/users/auth/openid_connect/callback'],
      initiateLoginUri: 'https://gitlab.example.com/users/auth/openid_connect',
      homeUrl: 'https://gitlab.example.com',
      signingAlg: 'RS256',
      // As GitLab's documented example configures it: pkce: true, client_auth_method "query".
      requirePkce: true,
      tokenAuthMethod: 'client_secret_post',
      backchannelLogoutUri: null,
    });
    // Nextcloud (user_oidc) receives back-channel logout tokens for its provider "Tessera".
    const nextcloud = await createApp({
      name: 'Nextcloud',
      type: 'third_party',
      template: 'nextcloud',
      baseUrl: 'https://cloud.example.com',
    });
    expect(nextcloud.app.oidc.backchannelLogoutUri).toBe(
      'https://cloud.example.com/apps/user_oidc/backchannel-logout/Tessera',
    );
    // Its callbacks filled in, it is ready to enable (issue 35 item 15); an app without one is not.
    expect(app).toMatchObject({ status: 'to_be_configured', readyToEnable: true });
    const bare = await createApp({ name: 'Bare' });
    expect(bare.app).toMatchObject({ readyToEnable: false });
    const detail = await admin('/api/v1/manage/app/detail', { appId: app.appId });
    expect(detail.data).toMatchObject({ readyToEnable: true });
    const missing = await admin('/api/v1/manage/app/create', { name: 'X', type: 'third_party' });
    expect(missing.code).toBe(400);
  });

  it('keeps logout URIs under the rules of callback URLs, and clears one with an empty value', async () => {
    const { app } = await createApp();
    const saved = await admin<{ oidc: { backchannelLogoutUri: string; frontchannelLogoutUri: string } }>(
      '/api/v1/manage/app/update',
      {
        appId: app.appId,
        backchannelLogoutUri: 'https://wiki.example.com/oidc/backchannel',
        frontchannelLogoutUri: 'https://wiki.example.com/oidc/frontchannel?x=1',
      },
    );
    expect(saved.code, saved.msg).toBe(200);
    expect(saved.data.oidc).toMatchObject({
      backchannelLogoutUri: 'https://wiki.example.com/oidc/backchannel',
      frontchannelLogoutUri: 'https://wiki.example.com/oidc/frontchannel?x=1',
    });
    const before = await appRow(app.appId);
    for (const [uri, message] of [
      ['http://wiki.example.com/bc', 'http is allowed for localhost only'],
      ['com.example.wiki:/logout', 'not allowed as a callback'],
      ['https://wiki.example.com/bc#x', 'cannot contain a # fragment'],
    ]) {
      const refused = await admin('/api/v1/manage/app/update', {
        appId: app.appId,
        backchannelLogoutUri: uri,
      });
      expect(refused.code).toBe(400);
      expect(refused.msg).toContain(message);
    }
    // An address the server never connects to (TESSERA_OUTBOUND_ALLOWED_NETWORKS) is refused when saved.
    for (const [uri, reason] of [
      ['https://10.1.2.3/bc', 'outbound.address_refused'],
      ['https://169.254.169.254/bc', 'outbound.address_never'],
    ]) {
      const refused = await admin<{ reason: string }>('/api/v1/manage/app/update', {
        appId: app.appId,
        backchannelLogoutUri: uri,
      });
      expect(refused.data.reason).toBe(reason);
    }
    expect(await appRow(app.appId)).toEqual(before);
    const cleared = await admin<{ oidc: { backchannelLogoutUri: string | null } }>(
      '/api/v1/manage/app/update',
      {
        appId: app.appId,
        backchannelLogoutUri: '',
      },
    );
    expect(cleared.data.oidc.backchannelLogoutUri).toBeNull();
  });

  it('refuses a missing name in the caller language and stores nothing', async () => {
    const before = await ctx.database.db.selectFrom('apps').select('id').execute();
    const en = await admin('/api/v1/manage/app/create', { name: '  ' });
    expect(en.code).toBe(400);
    expect(en.msg).toBe('Please enter the application name');
    const zh = await admin('/api/v1/manage/app/create', {}, 'zh-CN');
    expect(zh.msg).toBe('请输入应用名称');
    expect(await ctx.database.db.selectFrom('apps').select('id').execute()).toHaveLength(before.length);
  });

  it.each([
    ['https://*.example.com/cb', 'Wildcards are not allowed'],
    ['javascript:alert(1)', 'not allowed as a callback'],
    ['data:text/html,hi', 'not allowed as a callback'],
    ['http://app.example.com/cb', 'http is allowed for localhost only'],
    ['https://app.example.com/cb#x', 'cannot contain a # fragment'],
    ['https://user:pw@app.example.com/cb', 'cannot contain a user name or password'],
    ['/relative/cb', 'Enter a complete address'],
  ])('refuses the callback URL %s with a clear message, changing nothing', async (uri, message) => {
    const { app } = await createApp();
    const before = await appRow(app.appId);
    const answer = await admin<{ fields: { field: string; message: string }[] }>(
      '/api/v1/manage/app/update',
      {
        appId: app.appId,
        name: 'Changed',
        redirectUris: ['https://ok.example.com/cb', uri],
      },
    );
    expect(answer.code).toBe(400);
    expect(answer.msg).toContain(message);
    expect(answer.data.fields?.[0]?.field).toBe('redirectUris.1');
    expect(await appRow(app.appId)).toEqual(before);
  });

  it('requires the access token lifetime and keeps lifetimes in range', async () => {
    const { app } = await createApp();
    const missing = await admin('/api/v1/manage/app/update', {
      appId: app.appId,
      lifetimes: { authorizationCode: 60, idToken: 60, refreshToken: 60 },
    });
    expect(missing.code).toBe(400);
    expect(missing.msg).toBe('Please enter the expiry in seconds');
    const zero = await admin('/api/v1/manage/app/update', {
      appId: app.appId,
      lifetimes: { accessToken: 0 },
    });
    expect(zero.msg).toBe('The expiry is out of the allowed range of seconds');
    const ok = await admin<{ oidc: { lifetimes: Record<string, number> } }>('/api/v1/manage/app/update', {
      appId: app.appId,
      lifetimes: { accessToken: 3600 },
    });
    expect(ok.data.oidc.lifetimes).toEqual({
      authorizationCode: 60,
      idToken: 1_209_600,
      accessToken: 3600,
      refreshToken: 2_592_000,
    });
  });

  it("refuses an app beyond the licence's application quantity, storing nothing", async () => {
    const total = Number(
      (
        await ctx.database.db
          .selectFrom('apps')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    await grantLicense(ctx, { app: total + 1 });
    try {
      await createApp({ name: 'Last one' });
      const refused = await admin('/api/v1/manage/app/create', { name: 'One too many' });
      expect(refused.code).toBe(403);
      expect(refused.msg).toContain(`The installation licence's application quantity (${total + 1})`);
      const stored = await ctx.database.db
        .selectFrom('apps')
        .select('name')
        .where('name', '=', 'One too many')
        .execute();
      expect(stored).toEqual([]);
    } finally {
      await grantLicense(ctx, { app: 1000 });
    }
  });

  it('opens only a configured app, and disables and re-opens it', async () => {
    const { app } = await createApp();
    const refused = await admin('/api/v1/manage/app/status', { appId: app.appId, status: 'opened' });
    expect(refused.code).toBe(409);
    expect(refused.msg).toContain('add a login callback URL');
    await admin('/api/v1/manage/app/update', {
      appId: app.appId,
      redirectUris: ['https://ok.example.com/cb'],
    });
    for (const status of ['opened', 'disabled', 'opened'] as const) {
      const answer = await admin<{ status: string }>('/api/v1/manage/app/status', {
        appId: app.appId,
        status,
      });
      expect(answer.data.status).toBe(status);
    }
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', app.appId)
      .orderBy('created_at')
      .execute();
    expect(audit.map((e) => e.action)).toEqual([
      'app.create',
      'app.update',
      'app.open',
      'app.disable',
      'app.open',
    ]);
  });

  it('rotates the client secret: the old one stops working at the token endpoint', async () => {
    const { app, clientSecret } = await createApp();
    await admin('/api/v1/manage/app/update', {
      appId: app.appId,
      redirectUris: ['https://ok.example.com/cb'],
    });
    const rotated = await admin<{ clientSecret: string }>('/api/v1/manage/app/secret/reset', {
      appId: app.appId,
    });
    expect(rotated.data.clientSecret).not.toBe(clientSecret);
    const tokenWith = async (secret: string) =>
      (
        await tokenRequest(
          ctx.baseUrl,
          { clientId: app.clientId, secret },
          { grant_type: 'authorization_code', code: 'nothing', redirect_uri: 'https://ok.example.com/cb' },
        )
      ).body.error;
    expect(await tokenWith(clientSecret)).toBe('invalid_client');
    expect(await tokenWith(rotated.data.clientSecret)).toBe('invalid_grant');
  });

  it('stores a logo and deletes the app with everything it had', async () => {
    const { app } = await createApp();
    const logo = await upload(
      ctx,
      '/api/v1/manage/app/logo',
      { bytes: TINY_PNG, filename: 'logo.png', type: 'image/png' },
      { token: owner.token, companyId: owner.companyId, fields: { appId: app.appId } },
    );
    expect(logo.code).toBe(200);
    const deleted = await admin('/api/v1/manage/app/del', { appId: app.appId });
    expect(deleted.code).toBe(200);
    expect((await admin('/api/v1/manage/app/detail', { appId: app.appId })).code).toBe(404);
  });

  it('assigns only users of the company', async () => {
    const { app } = await createApp();
    const other = await ownerWithCompany(ctx, 'apps-other');
    const outsider = await companyMember(ctx, other, 'apps-outsider');
    const refused = await admin('/api/v1/manage/app/assignment/add', {
      appId: app.appId,
      userIds: [outsider.id],
    });
    expect(refused.code).toBe(400);
    expect(refused.msg).toBe('Only users of this company can be assigned');
    const member = await companyMember(ctx, owner, 'apps-member');
    const expiresAt = Math.floor(Date.now() / 1000) + 86_400;
    await admin('/api/v1/manage/app/assignment/add', { appId: app.appId, userIds: [member.id], expiresAt });
    const list = await admin<{ list: { userId: string; expiresAt: number; expired: boolean }[] }>(
      '/api/v1/manage/app/assignment/list',
      { appId: app.appId },
    );
    expect(list.data.list).toEqual([
      expect.objectContaining({ userId: member.id, expiresAt, expired: false }),
    ]);
  });

  it("drops a person's assignments and form credentials with their record in the company", async () => {
    const { app } = await createApp({ name: 'Leaving' });
    const leaver = await companyMember(ctx, owner, 'apps-leaver');
    await admin('/api/v1/manage/app/assignment/add', { appId: app.appId, userIds: [leaver.id] });
    await ctx.database.db
      .insertInto('app_form_credentials')
      .values({ app_id: app.appId, account_id: leaver.id, username: 'x', password_sealed: 'y' })
      .execute();
    const other = await ownerWithCompany(ctx, 'apps-elsewhere');
    const otherApp = await call<{ app: { appId: string } }>(
      ctx,
      '/api/v1/manage/app/create',
      { name: 'Elsewhere' },
      { token: other.token, companyId: other.companyId },
    );
    await ctx.database.db
      .insertInto('app_assignments')
      .values({ app_id: otherApp.data.app.appId, account_id: leaver.id, expires_at: null })
      .execute();

    await ctx.database.db.transaction().execute((trx) => deleteRecord(trx, owner.companyId, leaver.id));
    const left = await ctx.database.db
      .selectFrom('app_assignments')
      .select('app_id')
      .where('account_id', '=', leaver.id)
      .execute();
    // Only the other company's assignment stays.
    expect(left).toEqual([{ app_id: otherApp.data.app.appId }]);
    const credentials = await ctx.database.db
      .selectFrom('app_form_credentials')
      .select('app_id')
      .where('account_id', '=', leaver.id)
      .execute();
    expect(credentials).toEqual([]);
  });

  it('keeps the form settings of a form-fill app, with the shared password sealed', async () => {
    const { app } = await createApp({ name: 'Legacy', protocol: 'form' });
    const saved = await admin<{ sharedPasswordSet: boolean }>('/api/v1/manage/app/form/update', {
      appId: app.appId,
      loginUrl: 'https://legacy.example.com/login',
      usernameField: 'user',
      passwordField: 'pass',
      credentialMode: 'shared',
      sharedUsername: 'team',
      sharedPassword: 'Team-Secret-9',
    });
    expect(saved.data.sharedPasswordSet).toBe(true);
    expect(JSON.stringify(saved)).not.toContain('Team-Secret-9');
    const row = await ctx.database.db
      .selectFrom('app_form_configs')
      .selectAll()
      .where('app_id', '=', app.appId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('Team-Secret-9');
    const bad = await admin('/api/v1/manage/app/form/update', {
      appId: app.appId,
      loginUrl: 'https://legacy.example.com/login',
      usernameField: 'us er',
      passwordField: 'pass',
      credentialMode: 'user',
    });
    expect(bad.msg).toBe('A field name cannot contain spaces, quotes or angle brackets');
    expect((await admin('/api/v1/manage/app/status', { appId: app.appId, status: 'opened' })).code).toBe(200);
  });
});

describe('redirect URIs match exactly', () => {
  it('refuses every mutation of a registered callback at the authorization endpoint', async () => {
    const registered = 'https://app.example.com/auth/callback';
    const { app } = await createApp();
    await admin('/api/v1/manage/app/update', { appId: app.appId, redirectUris: [registered] });
    await admin('/api/v1/manage/app/status', { appId: app.appId, status: 'opened' });
    const mutations = fc.oneof(
      fc.constant('https://APP.example.com/auth/callback'),
      fc.constant('https://app.example.com/Auth/Callback'),
      fc.constant('https://app.example.com/auth/callback/'),
      fc.constant('https://app.example.com/auth/callback/extra'),
      fc.constant('https://app.example.com/auth/callback/..;/'),
      fc.constant('https://app.example.com/auth/callback/../callback'),
      fc.constant('http://app.example.com/auth/callback'),
      fc.constant('https://evil@app.example.com/auth/callback'),
      fc.constant('https://app.example.com@evil.example/auth/callback'),
      fc.constant('https://app.example.com.evil.example/auth/callback'),
      fc.constant('https://app.example.com:444/auth/callback'),
      fc.constant('https://app.example.com/auth/callback?x=1'),
      fc.constant('https://app.example.com/auth/callback#frag'),
      fc.constant('https://app.example.com/auth/callback%2F'),
      // Any other string built around the registered one.
      fc
        .tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }))
        .filter(([before, after]) => before + after !== '')
        .map(([before, after]) => `${before}${registered}${after}`),
    );
    await fc.assert(
      fc.asyncProperty(mutations, async (uri) => {
        if (uri === registered) return;
        const start = await startAuthorization({
          baseUrl: ctx.baseUrl,
          clientId: app.clientId,
          redirectUri: uri,
        });
        // Refused on Tessera's own error page: never a redirect, least of all to the mutation.
        expect(start.status).toBe(400);
      }),
      { numRuns: 60 },
    );
    const exact = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: app.clientId,
      redirectUri: registered,
    });
    expect(exact.status).toBe(303);
  });
});

describe('programmatic access accounts', () => {
  const tokenFor = (clientId: string, secret: string) =>
    tokenRequest(ctx.baseUrl, { clientId, secret }, { grant_type: 'client_credentials' });
  const asRobot = (token: string, path: string, body: unknown = {}, companyId?: string) =>
    ctx.tessera.app
      .inject({
        method: 'POST',
        url: path,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          ...(companyId ? { company_id: companyId } : {}),
        },
        payload: JSON.stringify(body),
      })
      .then((r) => r.json() as { code: number; msg: string; data: Record<string, unknown> });

  async function robot(expiresAt: number | null = null) {
    const { app } = await createApp({ name: 'Robots' });
    const created = await admin<{ account: { accountId: string; clientId: string }; secret: string }>(
      '/api/v1/manage/app/api-account/create',
      { appId: app.appId, name: 'Sync job', expiresAt },
    );
    expect(created.code, created.msg).toBe(200);
    return { appId: app.appId, ...created.data.account, secret: created.data.secret };
  }

  it('gets a token by client credentials and manages users of its own company only', async () => {
    const account = await robot();
    const token = await tokenFor(account.clientId, account.secret);
    expect(token.status).toBe(200);
    const bearer = token.body.access_token!;

    const createdUser = await asRobot(bearer, '/api/v1/manage/user/create', {
      username: 'made-by-robot',
      password: 'Sunny-Day-42',
      confirmPassword: 'Sunny-Day-42',
    });
    expect(createdUser.code, createdUser.msg).toBe(200);
    const list = await asRobot(bearer, '/api/v1/manage/user/list', { keyword: 'made-by-robot' });
    expect(list.code).toBe(200);
    expect(JSON.stringify(list.data)).toContain('made-by-robot');
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('actor_account_id')
      .where('action', '=', 'user.create')
      .where('company_id', '=', owner.companyId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit.actor_account_id).toBe(`api:${account.accountId}`);

    // Outside the documented subset, and in another company: refused.
    const outside = await asRobot(bearer, '/api/v1/manage/app/api-account/list', { appId: account.appId });
    expect(outside.code).toBe(403);
    expect(outside.msg).toBe('Programmatic access accounts cannot make this call');
    const other = await ownerWithCompany(ctx, 'robot-target');
    const elsewhere = await asRobot(bearer, '/api/v1/manage/user/list', {}, other.companyId);
    expect(elsewhere.code).toBe(404);
  });

  it('refuses a wrong secret, an expired account and a deleted one at once', async () => {
    const account = await robot();
    expect((await tokenFor(account.clientId, 'wrong')).body.error).toBe('invalid_client');
    const bearer = (await tokenFor(account.clientId, account.secret)).body.access_token!;
    expect((await asRobot(bearer, '/api/v1/manage/user/list')).code).toBe(200);

    // Expired (by the administrator): its token no longer works, nor does a new grant.
    await admin('/api/v1/manage/app/api-account/update', {
      appId: account.appId,
      accountId: account.accountId,
      expiresAt: Math.floor(Date.now() / 1000) - 1,
    });
    expect((await asRobot(bearer, '/api/v1/manage/user/list')).code).toBe(401);
    expect((await tokenFor(account.clientId, account.secret)).body.error).toBe('invalid_client');

    const second = await robot();
    const secondBearer = (await tokenFor(second.clientId, second.secret)).body.access_token!;
    await admin('/api/v1/manage/app/api-account/del', { appId: second.appId, accountId: second.accountId });
    expect((await asRobot(secondBearer, '/api/v1/manage/user/list')).code).toBe(401);
    expect((await tokenFor(second.clientId, second.secret)).body.error).toBe('invalid_client');
  });

  it('answers the secret once, and a reset ends the tokens of the old one', async () => {
    const account = await robot();
    const listed = await admin('/api/v1/manage/app/api-account/list', { appId: account.appId });
    expect(JSON.stringify(listed)).not.toContain(account.secret);
    const bearer = (await tokenFor(account.clientId, account.secret)).body.access_token!;
    const reset = await admin<{ secret: string }>('/api/v1/manage/app/api-account/secret/reset', {
      appId: account.appId,
      accountId: account.accountId,
    });
    expect((await asRobot(bearer, '/api/v1/manage/user/list')).code).toBe(401);
    expect((await tokenFor(account.clientId, reset.data.secret)).status).toBe(200);
  });

  it('refuses an access account without a name, in both languages', async () => {
    const { app } = await createApp();
    const en = await admin('/api/v1/manage/app/api-account/create', { appId: app.appId, name: '' });
    expect(en.msg).toBe('Please enter the account name');
    const zh = await admin('/api/v1/manage/app/api-account/create', { appId: app.appId, name: '' }, 'zh-CN');
    expect(zh.msg).toBe('请输入账号名称');
  });
});
