import { type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startAuthorization, submitSignIn, tokenRequest } from '../../test/browser-flow.ts';
import {
  call,
  createAccount,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { createAccountsRepo } from '../account/account.repo.ts';
import * as password from '../account/password.ts';
import { createSignInService } from './signin.service.ts';
import { rememberDevice } from './signin-throttle.ts';

/**
 * Issue 12, sign-in throttling: a lock-out checks no password and does not tell an existing
 * account from an unknown identifier, budgets are sliding windows, a browser that signed in
 * before is not locked out by failures from elsewhere, the client's address comes from trusted
 * proxies only, and wrong client secrets are throttled per client.
 */

vi.mock('../account/password.ts', { spy: true });

let ctx: TestContext;
beforeAll(async () => {
  // Requests come from 127.0.0.1, which these tests trust to name clients with X-Forwarded-For.
  ctx = await startTestApp({ listen: true, trustedProxies: ['127.0.0.1'] });
});
afterAll(() => ctx.close());

const service = (policy = {}) =>
  createSignInService({ db: ctx.database.db, accounts: createAccountsRepo(ctx.database.db), policy });

const attempt = (identifier: string, pass: string, extra: { ip?: string; deviceId?: string } = {}) => ({
  identifier,
  password: pass,
  ip: extra.ip ?? '10.0.0.1',
  userAgent: 'vitest',
  clientId: 'tessera-console-dev',
  companyId: null,
  deviceId: extra.deviceId,
});

/** Moves every budget window of the key back by `minutes`, as if its attempts were made that long ago. */
const age = (keyPattern: string, minutes: number) =>
  sql`update rate_windows set last_minute = last_minute - ${minutes} where key like ${keyPattern}`.execute(
    ctx.database.db,
  );

describe('lock-out', () => {
  it('checks no password while locked, and answers every password the same', async () => {
    const ida = await createAccount(ctx, { username: 'ida' });
    const signIn = service({ lockoutThreshold: 3 });
    for (let i = 0; i < 3; i++) await signIn.signInWithPassword(attempt('ida', 'wrong'));
    const verify = vi.mocked(password.verifyPassword);
    verify.mockClear();
    const wrong = await signIn.signInWithPassword(attempt('ida', 'still-wrong'));
    const right = await signIn.signInWithPassword(attempt('ida', ida.password));
    expect(verify).not.toHaveBeenCalled();
    expect(wrong).toMatchObject({ ok: false, cause: 'account_locked' });
    expect(right).toMatchObject({ ok: false, cause: 'account_locked' });
    // Attempts during the lock-out neither count as failures nor prolong it.
    const row = await ctx.database.db
      .selectFrom('accounts')
      .select(['failed_count'])
      .where('id', '=', ida.id)
      .executeTakeFirstOrThrow();
    expect(row.failed_count).toBe(3);
  });

  it('locks an identifier that names no account the same way, so the answers do not tell', async () => {
    await createAccount(ctx, { username: 'jack' });
    const signIn = service({ lockoutThreshold: 3, lockoutMinutes: 15 });
    const run = async (identifier: string) => {
      const causes: string[] = [];
      for (let i = 0; i < 5; i++) {
        const result = await signIn.signInWithPassword(attempt(identifier, `guess-${i}`));
        causes.push(result.ok ? 'ok' : result.cause === 'unknown_account' ? 'wrong_password' : result.cause);
      }
      return causes;
    };
    const known = await run('jack');
    const unknown = await run('jack-does-not-exist');
    expect(known).toEqual([
      'wrong_password',
      'wrong_password',
      'wrong_password',
      'account_locked',
      'account_locked',
    ]);
    expect(unknown).toEqual(known);
    // The page shows one message for both.
    const page = async (identifier: string) => {
      const start = await startAuthorization({
        baseUrl: ctx.baseUrl,
        clientId: 'tessera-console-dev',
        redirectUri: `${ctx.baseUrl}/dev/`,
      });
      const response = await submitSignIn(start.jar, start.location, identifier, 'another-guess');
      const html = await response.text();
      return [response.status, /<p class="alert" role="alert">([^<]*?)\d[^<]*<\/p>/.exec(html)?.[1]];
    };
    expect(await page('jack-does-not-exist')).toEqual(await page('jack'));
  });

  it('runs the same statements for an unknown identifier as for a wrong password', async () => {
    await createAccount(ctx, { username: 'kate' });
    // The statements sent to the database (a statement embedded in another is part of it).
    const kinds = new Map<unknown, string>();
    const statements: string[] = [];
    const recorder: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        kinds.set(queryId, node.kind);
        return node;
      },
      transformResult: async ({ result, queryId }) => {
        statements.push(kinds.get(queryId) ?? '?');
        return result;
      },
    };
    const db = ctx.database.db.withPlugin(recorder);
    const signIn = createSignInService({ db, accounts: createAccountsRepo(db) });
    await signIn.signInWithPassword(attempt('kate', 'wrong'));
    const known = statements.splice(0);
    await signIn.signInWithPassword(attempt('nobody-named-kate', 'wrong'));
    const unknown = statements.splice(0);
    expect(unknown).toEqual(known);
    expect(known.length).toBeLessThanOrEqual(3);
  });
});

describe('sliding budgets', () => {
  it('does not let a full budget be spent again at the top of the hour', async () => {
    const liam = await createAccount(ctx, { username: 'liam' });
    const signIn = service({ maxAttemptsPerAccountPerHour: 10, lockoutThreshold: 1000 });
    for (let i = 0; i < 10; i++)
      await signIn.signInWithPassword(attempt('liam', 'wrong', { ip: `10.3.0.${i}` }));
    expect(await signIn.signInWithPassword(attempt('liam', 'wrong'))).toMatchObject({ cause: 'throttled' });
    // Ten attempts at 10:59; it is now 11:00: a clock-hour counter would start again.
    await age(`sign-in:account:${liam.id}`, 1);
    expect(await signIn.signInWithPassword(attempt('liam', liam.password))).toMatchObject({
      cause: 'throttled',
    });
    // An hour after them the window has moved past them.
    await age(`sign-in:account:${liam.id}`, 60);
    expect(await signIn.signInWithPassword(attempt('liam', liam.password))).toMatchObject({ ok: true });
  });
});

describe('known browsers', () => {
  it("keep their owner signing in while someone else's failures lock the account", async () => {
    const mia = await createAccount(ctx, { username: 'mia' });
    const signIn = service({ lockoutThreshold: 5, maxAttemptsPerAccountPerHour: 20 });
    await rememberDevice(ctx.database.db, mia.id, 'mias-laptop');
    for (let i = 0; i < 8; i++)
      await signIn.signInWithPassword(attempt('mia', `guess-${i}`, { ip: `10.4.0.${i}` }));
    expect(await signIn.signInWithPassword(attempt('mia', mia.password))).toMatchObject({
      cause: 'account_locked',
    });
    expect(
      await signIn.signInWithPassword(attempt('mia', mia.password, { deviceId: 'mias-laptop' })),
    ).toMatchObject({
      ok: true,
    });
    // A device id the account never signed in with is anyone else.
    expect(
      await signIn.signInWithPassword(attempt('mia', mia.password, { deviceId: 'forged' })),
    ).toMatchObject({
      cause: 'account_locked',
    });
  });

  it('are known by the signed cookie the sign-in page sets', async () => {
    const noah = await createAccount(ctx, { username: 'noah' });
    const signInOnPage = async (
      jar: Awaited<ReturnType<typeof startAuthorization>>['jar'] | undefined,
      pass: string,
      ip: string,
    ) => {
      const start = await startAuthorization({
        baseUrl: ctx.baseUrl,
        clientId: 'tessera-console-dev',
        redirectUri: `${ctx.baseUrl}/dev/`,
        jar,
      });
      const page = await fetch(start.location, { headers: { cookie: start.jar.header() } });
      const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
      const response = await fetch(`${start.location}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: start.jar.header(),
          'x-forwarded-for': ip,
        },
        body: new URLSearchParams({ csrf, identifier: 'noah', password: pass }).toString(),
      });
      start.jar.store(response);
      return { status: response.status, jar: start.jar };
    };
    const owner = await signInOnPage(undefined, noah.password, '192.0.2.10');
    expect(owner.status).toBe(303);
    expect(owner.jar.cookies.get('tessera_device')).toMatch(/^[\w-]+\.[\w-]+$/);
    // An attacker elsewhere locks the account...
    for (let i = 0; i < 6; i++)
      expect((await signInOnPage(undefined, `guess-${i}`, '198.51.100.7')).status).toBe(401);
    expect((await signInOnPage(undefined, noah.password, '198.51.100.7')).status).toBe(401);
    // ...and the owner's browser still gets in.
    expect((await signInOnPage(owner.jar, noah.password, '192.0.2.10')).status).toBe(303);
  });
});

describe('client addresses', () => {
  it('read X-Forwarded-For only from a trusted proxy', async () => {
    await createAccount(ctx, { username: 'olga' });
    const untrusted = await startTestApp({ listen: true });
    try {
      for (const [app, base] of [
        [untrusted, untrusted.baseUrl],
        [ctx, ctx.baseUrl],
      ] as const) {
        const start = await startAuthorization({
          baseUrl: base,
          clientId: 'tessera-console-dev',
          redirectUri: `${base}/dev/`,
        });
        const page = await fetch(start.location, { headers: { cookie: start.jar.header() } });
        const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
        await fetch(`${start.location}/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            cookie: start.jar.header(),
            'x-forwarded-for': '203.0.113.99',
          },
          body: new URLSearchParams({ csrf, identifier: 'olga-or-nobody', password: 'x' }).toString(),
        });
        const event = await app.database.db
          .selectFrom('login_events')
          .select('ip')
          .where('identifier', '=', 'olga-or-nobody')
          .executeTakeFirstOrThrow();
        expect(event.ip).toBe(app === ctx ? '203.0.113.99' : '127.0.0.1');
      }
    } finally {
      await untrusted.close();
    }
  });
});

describe('client secrets at the token endpoint', () => {
  it('are throttled per client, without ever refusing the right secret', async () => {
    await grantLicense(ctx, { app: 100 });
    const owner = await ownerWithCompany(ctx, 'throttle-owner');
    const admin = <T>(path: string, body: unknown) =>
      call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });
    const app = await admin<{ app: { appId: string } }>('/api/v1/manage/app/create', { name: 'Batch' });
    const created = await admin<{ account: { clientId: string }; secret: string }>(
      '/api/v1/manage/app/api-account/create',
      { appId: app.data.app.appId, name: 'Nightly', expiresAt: null },
    );
    const clientId = created.data.account.clientId;
    const grant = (secret: string, ip: string) =>
      fetch(`${ctx.baseUrl}/oidc/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': ip,
          authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
        },
        body: 'grant_type=client_credentials',
      }).then(async (r) => ({ status: r.status, error: ((await r.json()) as { error?: string }).error }));

    // The application's server gets a token from its address: that address is known from now on.
    expect((await grant(created.data.secret, '192.0.2.50')).status).toBe(200);
    // Twenty wrong secrets from one address close that address to this client's wrong secrets...
    for (let i = 0; i < 20; i++) expect((await grant(`wrong-${i}`, '198.51.100.1')).status).toBe(401);
    expect(await grant('wrong-again', '198.51.100.1')).toEqual({ status: 429, error: 'invalid_client' });
    // ...and a hundred from many addresses close every unknown address to them.
    for (let i = 0; i < 100; i++) await grant(`wrong-${i}`, `198.51.100.${10 + (i % 50)}`);
    expect((await grant('wrong-elsewhere', '203.0.113.5')).status).toBe(429);
    // The right secret is answered everywhere (issue 28): at the closed addresses, at a new one
    // and at the application's own.
    for (const ip of ['198.51.100.1', '203.0.113.6', '192.0.2.50'])
      expect((await grant(created.data.secret, ip)).status).toBe(200);
    // Tessera's own clients are throttled the same way.
    for (let i = 0; i < 21; i++)
      await tokenRequest(
        ctx.baseUrl,
        { clientId: 'tessera-console-dev', secret: `wrong-${i}` },
        { grant_type: 'refresh_token', refresh_token: 'x' },
      );
    const own = await tokenRequest(
      ctx.baseUrl,
      { clientId: 'tessera-console-dev', secret: 'wrong' },
      { grant_type: 'refresh_token', refresh_token: 'x' },
    );
    expect(own.status).toBe(429);
  });
});
