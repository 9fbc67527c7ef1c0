import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CookieJar, signInForCode, startAuthorization } from '../../test/browser-flow.ts';
import {
  call,
  grantLicense,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';

/**
 * Issue 12, sessions and credentials: an administrator's password reset, disable, lock and
 * removal end the person's grants, refresh and access tokens at every application and their
 * single sign-on session at once (also in the second they signed in); a removed or disabled
 * person can do nothing; and a company changes the account itself only while it fully manages
 * it (it created it and it belongs nowhere else).
 */

let ctx: TestContext;
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;
const redirectUri = 'http://localhost:7002/callback';
const PASSWORD = 'Sunny-Day-42';

const as = (company: { token: string; companyId: string }) => (path: string, body: unknown) =>
  call<Record<string, unknown>>(ctx, path, body, { token: company.token, companyId: company.companyId });

interface App {
  clientId: string;
  clientSecret: string;
}

async function openedApp(company: { token: string; companyId: string }, name: string): Promise<App> {
  const admin = as(company);
  const created = await admin('/api/v1/manage/app/create', { name });
  const { appId, clientId } = created.data.app as { appId: string; clientId: string };
  await admin('/api/v1/manage/app/update', { appId, redirectUris: [redirectUri] });
  await admin('/api/v1/manage/app/status', { appId, status: 'opened' });
  return { clientId, clientSecret: created.data.clientSecret as string };
}

/** A person the company creates (and so fully manages). */
async function managedPerson(company: { token: string; companyId: string }, username: string) {
  const created = await as(company)('/api/v1/manage/company/user/create', {
    username,
    role: 'member',
    password: PASSWORD,
  });
  expect(created.code, created.msg).toBe(200);
  return { id: created.data.userId as string, username };
}

/** Signs the person in to the app in a browser of their own; returns their tokens and that browser. */
async function signedIn(app: App, username: string) {
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
    identifier: username,
    password: PASSWORD,
    scope: 'openid profile offline_access',
  });
  const tokens = await client.authorizationCodeGrant(config, flow.callbackUrl, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
  });
  return { config, tokens, jar: flow.jar };
}

type Session = Awaited<ReturnType<typeof signedIn>>;

/** What still works of a person's sign-in at an app: refresh, userinfo, and single sign-on without the form. */
async function stillWorks(app: App, session: Session) {
  const refresh = await client.refreshTokenGrant(session.config, session.tokens.refresh_token!).then(
    () => true,
    () => false,
  );
  const userinfo = await client
    .fetchUserInfo(session.config, session.tokens.access_token, client.skipSubjectCheck)
    .then(
      () => true,
      () => false,
    );
  return { refresh, userinfo, singleSignOn: await singleSignOn(app, session.jar) };
}

/** Whether an authorization in this browser gets a code without the sign-in form. */
async function singleSignOn(app: App, jar: CookieJar) {
  const start = await startAuthorization({ baseUrl: ctx.baseUrl, clientId: app.clientId, redirectUri, jar });
  for (let hop = 0, location = start.location; hop < 5; hop++) {
    if (location.startsWith(redirectUri)) return new URL(location).searchParams.has('code');
    const response = await fetch(location, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(response);
    if (response.status < 300 || response.status >= 400) return false;
    location = new URL(response.headers.get('location') ?? '', location).toString();
  }
  return false;
}

const nothingWorks = { refresh: false, userinfo: false, singleSignOn: false };

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  await grantLicense(ctx, { user: 1000, app: 1000 });
  acme = await ownerWithCompany(ctx, 'acme-owner', 'Acme');
});
afterAll(() => ctx.close());

describe("an administrator's change ends the person's sign-ins everywhere", () => {
  const cases: [string, (userId: string) => Promise<unknown>][] = [
    [
      'password reset',
      (userId) =>
        as(acme)('/api/v1/manage/user/password/reset', {
          userId,
          password: 'Reset-by-admin-9',
          confirmPassword: 'Reset-by-admin-9',
          mustChangePassword: true,
        }),
    ],
    ['disable', (userId) => as(acme)('/api/v1/manage/user/status', { userId, status: 'disabled' })],
    ['lock', (userId) => as(acme)('/api/v1/manage/user/status', { userId, status: 'locked' })],
    ['removal', (userId) => as(acme)('/api/v1/manage/company/user/del', { userId })],
  ];
  for (const [name, change] of cases) {
    it(`${name}, in the second of the sign-in`, async () => {
      const app = await openedApp(acme, `Wiki for ${name}`);
      const person = await managedPerson(acme, `ended-by-${name.replace(/\W/g, '-')}`);
      const session = await signedIn(app, person.username);
      const console = await sessionFor(ctx, person.id);
      await change(person.id);
      expect(await stillWorks(app, session)).toEqual(nothingWorks);
      expect(
        await ctx.database.db
          .selectFrom('oidc_payloads')
          .select('id')
          .where('account_id', '=', person.id)
          .execute(),
      ).toEqual([]);
      // Nothing else works either: not the console, not a company of their own.
      expect((await call(ctx, '/api/v1/manage/company/my/list', {}, { token: console })).code).toBe(401);
      expect(
        (await call(ctx, '/api/v1/manage/company/create', { name: 'Escape' }, { token: console })).code,
      ).toBe(401);
    });
  }

  it('removal ends an account the company fully manages: it cannot sign in again', async () => {
    const app = await openedApp(acme, 'Intranet');
    const person = await managedPerson(acme, 'gone-for-good');
    await as(acme)('/api/v1/manage/company/user/del', { userId: person.id });
    const account = await ctx.database.db
      .selectFrom('accounts')
      .select('id')
      .where('id', '=', person.id)
      .executeTakeFirst();
    expect(account).toBeUndefined();
    await expect(signedIn(app, person.username)).rejects.toThrow(/sign-in refused \(401\)/);
  });
});

describe('a company fully manages only the accounts that belong nowhere else', () => {
  it("cannot take over another company through an account it created; ending its record ends only its apps' tokens", async () => {
    // Acme creates an account; its person then creates a company of their own and becomes its owner.
    const person = await managedPerson(acme, 'founder');
    const token = await sessionFor(ctx, person.id);
    const own = await call<{ companyId: string }>(
      ctx,
      '/api/v1/manage/company/create',
      { name: 'Founder Co' },
      { token },
    );
    expect(own.code).toBe(200);
    const founderCo = { token, companyId: own.data.companyId };
    const acmeApp = await openedApp(acme, 'Acme wiki');
    const founderApp = await openedApp(founderCo, 'Founder wiki');
    const atAcme = await signedIn(acmeApp, person.username);
    const atFounder = await signedIn(founderApp, person.username);

    const admin = as(acme);
    for (const [path, body] of [
      [
        '/api/v1/manage/user/password/reset',
        { password: 'Taken-over-9', confirmPassword: 'Taken-over-9', mustChangePassword: false },
      ],
      ['/api/v1/manage/user/update', { email: 'attacker@example.com' }],
      ['/api/v1/manage/user/send-login-url', {}],
      ['/api/v1/manage/mfa/admin/user/del', {}],
    ] as const) {
      const answer = await admin(path, { userId: person.id, ...body });
      expect(answer.data, path).toMatchObject({ reason: 'user.not_managed' });
    }
    // Acme disables its record: Acme's apps stop, the account and Founder Co go on.
    await admin('/api/v1/manage/user/status', { userId: person.id, status: 'disabled' });
    expect((await stillWorks(acmeApp, atAcme)).refresh).toBe(false);
    expect((await stillWorks(founderApp, atFounder)).refresh).toBe(true);
    expect(
      (await call(ctx, '/api/v1/manage/company/detail', {}, { token, companyId: founderCo.companyId })).code,
    ).toBe(200);
    // Acme removes its record: the account stays with the company it owns.
    await admin('/api/v1/manage/company/user/del', { userId: person.id });
    const account = await ctx.database.db
      .selectFrom('accounts')
      .select(['status', 'home_company_id'])
      .where('id', '=', person.id)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ status: 'enabled', home_company_id: null });
    expect(
      (await call(ctx, '/api/v1/manage/company/detail', {}, { token, companyId: founderCo.companyId })).code,
    ).toBe(200);
  });
});
