import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorization, submitSignIn } from '../../test/browser-flow.ts';
import {
  companyMember,
  createAccount,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { createAccountsRepo } from '../account/account.repo.ts';
import { createSignInService } from './signin.service.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
});
afterAll(() => ctx.close());

const service = (policy = {}) =>
  createSignInService({ db: ctx.database.db, accounts: createAccountsRepo(ctx.database.db), policy });

const attempt = (identifier: string, password: string, ip = '10.0.0.1') => ({
  identifier,
  password,
  ip,
  userAgent: 'vitest',
  clientId: 'tessera-console-dev',
  companyId: null,
});

const eventsOf = (identifier: string) =>
  ctx.database.db
    .selectFrom('login_events')
    .selectAll()
    .where('identifier', '=', identifier)
    .orderBy('created_at')
    .execute();

describe('password sign-in', () => {
  it('answers a wrong password and an unknown account the same way on the page', async () => {
    const bob = await createAccount(ctx, { username: 'bob' });
    const page = async (identifier: string, password: string) => {
      const start = await startAuthorization({
        baseUrl: ctx.baseUrl,
        clientId: 'tessera-console-dev',
        redirectUri: `${ctx.baseUrl}/dev/`,
      });
      const response = await submitSignIn(start.jar, start.location, identifier, password);
      return { status: response.status, html: await response.text() };
    };
    const wrong = await page(bob.username, 'not-the-password');
    const unknown = await page('nobody-here', 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const alert = (html: string) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
    expect(alert(wrong.html)).toBe('The account or password is incorrect');
    expect(alert(unknown.html)).toBe(alert(wrong.html));
  });

  it('names a disabled account only after the right password', async () => {
    const carol = await createAccount(ctx, { username: 'carol', status: 'disabled' });
    const wrong = await service().signInWithPassword(attempt(carol.username, 'wrong-password'));
    expect(wrong).toMatchObject({ ok: false, cause: 'wrong_password' });
    const right = await service().signInWithPassword(attempt(carol.username, carol.password));
    expect(right).toMatchObject({ ok: false, cause: 'account_disabled' });
  });

  it('locks an account after the threshold; during the lock-out every password gets the same answer', async () => {
    const dave = await createAccount(ctx, { username: 'dave' });
    const signIn = service({ lockoutThreshold: 3, lockoutMinutes: 15 });
    for (let i = 0; i < 3; i++) await signIn.signInWithPassword(attempt(dave.username, 'wrong'));
    const account = await ctx.database.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', dave.id)
      .executeTakeFirstOrThrow();
    expect(account.failed_count).toBe(3);
    expect(account.locked_until!.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
    // Issue 12: the right password no longer tells itself apart during the lock-out.
    const wrong = await signIn.signInWithPassword(attempt(dave.username, 'wrong'));
    const right = await signIn.signInWithPassword(attempt(dave.username, dave.password));
    expect(wrong).toMatchObject({ ok: false, cause: 'account_locked' });
    expect(right).toMatchObject({ ok: false, cause: 'account_locked' });
    expect(!right.ok && right.lockedUntil).toEqual(!wrong.ok && wrong.lockedUntil);
    // Once the lock has run out, the right password gets in and the counter starts again.
    await ctx.database.db
      .updateTable('accounts')
      .set({ locked_until: new Date(Date.now() - 1000) })
      .where('id', '=', dave.id)
      .execute();
    const after = await signIn.signInWithPassword(attempt(dave.username, dave.password));
    expect(after.ok).toBe(true);
    const reset = await ctx.database.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', dave.id)
      .executeTakeFirstOrThrow();
    expect(reset.failed_count).toBe(0);
    expect(reset.last_login_at).not.toBeNull();
    // Dave has no company: his console sign-in is in no company's log, so not counted (issue 35).
    expect(reset.login_count).toBe(0);
  });

  it('counts at most 100 attempts per account per hour even under 120 parallel attempts', async () => {
    const erin = await createAccount(ctx, { username: 'erin' });
    const signIn = service({ lockoutThreshold: 1000 });
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        signIn.signInWithPassword(attempt(erin.username, 'wrong', `10.1.0.${i}`)),
      ),
    );
    const causes = results.map((r) => (r.ok ? 'ok' : r.cause));
    expect(causes.filter((c) => c === 'wrong_password')).toHaveLength(100);
    expect(causes.filter((c) => c === 'throttled')).toHaveLength(20);
    const account = await ctx.database.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', erin.id)
      .executeTakeFirstOrThrow();
    expect(account.failed_count).toBe(100);
    // Even the right password waits for the next hour.
    expect(await signIn.signInWithPassword(attempt(erin.username, erin.password))).toMatchObject({
      cause: 'throttled',
    });
  });

  it('throttles an address that tries many accounts', async () => {
    const signIn = service({ maxAttemptsPerIpPerHour: 5 });
    const results = [];
    for (let i = 0; i < 7; i++)
      results.push(await signIn.signInWithPassword(attempt(`ghost${i}`, 'x', '10.9.9.9')));
    expect(results.map((r) => (r.ok ? 'ok' : r.cause))).toEqual([
      'unknown_account',
      'unknown_account',
      'unknown_account',
      'unknown_account',
      'unknown_account',
      'throttled',
      'throttled',
    ]);
  });

  it('does not count a successful sign-in against the hourly budget', async () => {
    const fay = await createAccount(ctx, { username: 'fay' });
    for (let i = 0; i < 3; i++)
      expect((await service().signInWithPassword(attempt(fay.username, fay.password))).ok).toBe(true);
    const row = await sql<{ spent: number }>`
      select coalesce((select sum(c) from unnest(counts) c), 0)::int as spent from rate_windows
      where key = ${`sign-in:account:${fay.id}`}`.execute(ctx.database.db);
    expect(row.rows[0]?.spent ?? 0).toBe(0);
  });

  it('writes a login event for every attempt with its cause, address and agent', async () => {
    const gus = await createAccount(ctx, { username: 'gus' });
    await service().signInWithPassword(attempt(gus.username, 'wrong', '10.2.2.2'));
    await service().signInWithPassword(attempt(gus.username, gus.password, '10.2.2.2'));
    const events = await eventsOf('gus');
    expect(events.map((e) => [e.result, e.failure_cause])).toEqual([
      ['failure', 'wrong_password'],
      ['success', null],
    ]);
    expect(events[0]).toMatchObject({
      account_id: gus.id,
      ip: '10.2.2.2',
      user_agent: 'vitest',
      client_id: 'tessera-console-dev',
    });
  });

  it("logs a sign-in outside any company (the user centre) in the person's home company", async () => {
    const owner = await ownerWithCompany(ctx, 'hera');
    const member = await companyMember(ctx, owner, 'hera.member');
    await service().signInWithPassword(attempt(member.username, 'wrong', '10.3.3.3'));
    await service().signInWithPassword(attempt(member.username, member.password, '10.3.3.3'));
    await service().signInWithPassword(attempt('hera.nobody', 'wrong', '10.3.3.3'));
    const events = await eventsOf(member.username);
    expect(events.map((e) => [e.result, e.company_id])).toEqual([
      ['failure', owner.companyId],
      ['success', owner.companyId],
    ]);
    // An unknown identifier belongs to no company.
    expect((await eventsOf('hera.nobody')).map((e) => e.company_id)).toEqual([null]);
  });

  it('refuses the platform console to an account that is not a platform administrator', async () => {
    const hal = await createAccount(ctx, { username: 'hal' });
    const start = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: 'tessera-console-admin',
      redirectUri: `${ctx.baseUrl}/admin/`,
    });
    const response = await submitSignIn(start.jar, start.location, hal.username, hal.password);
    expect(response.status).toBe(401);
    expect(await response.text()).toContain('may not sign in to Tessera admin console');
    expect((await eventsOf('hal')).at(-1)).toMatchObject({
      result: 'failure',
      failure_cause: 'not_platform_admin',
    });
  });

  it('refuses a sign-in form without the right CSRF token', async () => {
    const ida = await createAccount(ctx, { username: 'ida' });
    const start = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: 'tessera-console-dev',
      redirectUri: `${ctx.baseUrl}/dev/`,
    });
    const response = await fetch(`${start.location}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: start.jar.header() },
      body: new URLSearchParams({
        csrf: 'forged',
        identifier: ida.username,
        password: ida.password,
      }).toString(),
    });
    expect(response.status).toBe(403);
    expect(await eventsOf('ida')).toHaveLength(0);
  });

  it('shows the sign-in page in Chinese when the browser asks for it', async () => {
    const start = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: 'tessera-console-dev',
      redirectUri: `${ctx.baseUrl}/dev/`,
    });
    const response = await fetch(start.location, {
      headers: { cookie: start.jar.header(), 'accept-language': 'zh-CN,zh;q=0.9' },
    });
    const html = await response.text();
    expect(html).toContain('<html lang="zh-CN">');
    expect(html).toContain('用户名、邮箱或手机号');
  });
});
