import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInForCode } from '../../test/browser-flow.ts';
import { call, createAccount, startTestApp, type TestContext } from '../../test/harness.ts';
import { createAccountsRepo } from '../account/account.repo.ts';
import { hashPassword } from '../account/password.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
});
afterAll(() => ctx.close());

type Variant = 'admin' | 'dev';
type TokenAnswer = { token: string; username: string; expiresIn: number; sessionExpiresIn: number };

async function consoleToken(account: { username: string; password: string }, variant: Variant = 'dev') {
  const flow = await signInForCode({
    baseUrl: ctx.baseUrl,
    clientId: `tessera-console-${variant}`,
    redirectUri: `${ctx.baseUrl}/${variant}/`,
    identifier: account.username,
    password: account.password,
    scope: 'openid profile email offline_access',
  });
  return call<TokenAnswer>(ctx, `/api/v1/${variant}/oidc/token`, {
    code: flow.code,
    codeVerifier: flow.verifier,
  });
}

const myCompanies = (token: string) => call(ctx, '/api/v1/manage/company/my/list', {}, { token });

describe('console session calls', () => {
  it('describes the authorization request for each variant', async () => {
    for (const variant of ['dev', 'admin'] as const) {
      const response = await call<Record<string, string>>(ctx, '/api/v1/sso/config', { variant });
      expect(response.data).toMatchObject({
        issuer: `${ctx.baseUrl}/oidc`,
        authorizationEndpoint: `${ctx.baseUrl}/oidc/auth`,
        clientId: `tessera-console-${variant}`,
        redirectUri: `${ctx.baseUrl}/${variant}/`,
        scope: 'openid profile email offline_access',
      });
    }
  });

  it('exchanges a code for an opaque token that is stored only as a hash', async () => {
    const jo = await createAccount(ctx, { username: 'jo' });
    const response = await consoleToken(jo);
    expect(response.code).toBe(200);
    expect(response.data.username).toBe('jo');
    expect(Buffer.from(response.data.token, 'base64url').length).toBeGreaterThanOrEqual(16);
    const rows = await ctx.database.db.selectFrom('console_sessions').selectAll().execute();
    expect(rows.some((r) => r.token_hash === response.data.token)).toBe(false);
    expect(JSON.stringify(rows)).not.toContain(response.data.token);
    expect((await myCompanies(response.data.token)).code).toBe(200);
  });

  it('refuses a code that was already exchanged, and a made-up one', async () => {
    const kim = await createAccount(ctx, { username: 'kim' });
    const flow = await signInForCode({
      baseUrl: ctx.baseUrl,
      clientId: 'tessera-console-dev',
      redirectUri: `${ctx.baseUrl}/dev/`,
      identifier: kim.username,
      password: kim.password,
    });
    const body = { code: flow.code, codeVerifier: flow.verifier };
    expect((await call(ctx, '/api/v1/dev/oidc/token', body)).code).toBe(200);
    const again = await call(ctx, '/api/v1/dev/oidc/token', body);
    expect(again).toMatchObject({ code: 400, data: { reason: 'sso.code_invalid' } });
    const madeUp = await call(ctx, '/api/v1/dev/oidc/token', {
      code: 'x'.repeat(40),
      codeVerifier: 'y'.repeat(43),
    });
    expect(madeUp.code).toBe(400);
    const missing = await call(ctx, '/api/v1/dev/oidc/token', {});
    expect(missing).toMatchObject({ code: 400, msg: 'code is required' });
  });

  it('refreshes: the new token works and the old one is refused', async () => {
    const lee = await createAccount(ctx, { username: 'lee' });
    const { data } = await consoleToken(lee);
    const refreshed = await call<{ token: string; username: string }>(
      ctx,
      '/api/v1/dev/oidc/refresh',
      {},
      { token: data.token },
    );
    expect(refreshed.code).toBe(200);
    expect(refreshed.data.username).toBe('lee');
    expect(refreshed.data.token).not.toBe(data.token);
    expect((await myCompanies(data.token)).code).toBe(401);
    expect((await myCompanies(refreshed.data.token)).code).toBe(200);
  });

  it('says how long the token and the session have left; a refresh keeps the absolute expiry and is capped by it (issue 15)', async () => {
    const uma = await createAccount(ctx, { username: 'uma' });
    const { data } = await consoleToken(uma);
    // The test app's lifetimes: 2 hours idle, 12 hours absolute.
    expect(data.expiresIn).toBe(7200);
    expect(data.sessionExpiresIn).toBeGreaterThan(43_190);
    expect(data.sessionExpiresIn).toBeLessThanOrEqual(43_200);
    const absolute = new Date(Date.now() + 90_000);
    await ctx.database.db
      .updateTable('console_sessions')
      .set({ absolute_expires_at: absolute })
      .where('account_id', '=', uma.id)
      .execute();
    const refreshed = await call<TokenAnswer>(ctx, '/api/v1/dev/oidc/refresh', {}, { token: data.token });
    expect(refreshed.code).toBe(200);
    // The console must not plan a refresh past the end of the session.
    expect(refreshed.data.sessionExpiresIn).toBeGreaterThan(80);
    expect(refreshed.data.sessionExpiresIn).toBeLessThanOrEqual(90);
    expect(refreshed.data.expiresIn).toBe(refreshed.data.sessionExpiresIn);
    const row = await ctx.database.db
      .selectFrom('console_sessions')
      .select('absolute_expires_at')
      .where('account_id', '=', uma.id)
      .executeTakeFirstOrThrow();
    expect(row.absolute_expires_at.getTime()).toBe(absolute.getTime());
  });

  it('logs out: the token is refused and the answer says where to end single sign-on', async () => {
    const max = await createAccount(ctx, { username: 'max' });
    const { data } = await consoleToken(max);
    const out = await call<{ logoutUrl: string }>(ctx, '/api/v1/dev/login/logout', {}, { token: data.token });
    expect(out.code).toBe(200);
    const url = new URL(out.data.logoutUrl);
    expect(url.pathname).toBe('/oidc/session/end');
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe(`${ctx.baseUrl}/dev/`);
    expect(url.searchParams.get('id_token_hint')).toBeTruthy();
    const after = await myCompanies(data.token);
    expect(after).toMatchObject({ code: 401, msg: 'Identity information invalid, please login again!' });
    expect((await call(ctx, '/api/v1/dev/login/logout', {}, { token: data.token })).code).toBe(401);
  });

  it('expires a session after its idle time and after its absolute lifetime', async () => {
    const ned = await createAccount(ctx, { username: 'ned' });
    const idle = await consoleToken(ned);
    const absolute = await consoleToken(ned);
    const sessions = await ctx.database.db
      .selectFrom('console_sessions')
      .select(['id'])
      .where('account_id', '=', ned.id)
      .orderBy('created_at')
      .execute();
    await ctx.database.db
      .updateTable('console_sessions')
      .set({ idle_expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', sessions[0]!.id)
      .execute();
    await ctx.database.db
      .updateTable('console_sessions')
      .set({ absolute_expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', sessions[1]!.id)
      .execute();
    expect((await myCompanies(idle.data.token)).code).toBe(401);
    expect((await myCompanies(absolute.data.token)).code).toBe(401);
  });

  it('ends every session of an account that is disabled, and refresh cannot revive it', async () => {
    const oli = await createAccount(ctx, { username: 'oli' });
    const { data } = await consoleToken(oli);
    await ctx.database.db
      .updateTable('accounts')
      .set({ status: 'disabled' })
      .where('id', '=', oli.id)
      .execute();
    expect((await myCompanies(data.token)).code).toBe(401);
    expect((await call(ctx, '/api/v1/dev/oidc/refresh', {}, { token: data.token })).code).toBe(401);
  });

  it('ends the sessions that started before a password change', async () => {
    const pam = await createAccount(ctx, { username: 'pam' });
    const before = await consoleToken(pam);
    await createAccountsRepo(ctx.database.db).updatePasswordHash(pam.id, await hashPassword('New-Secret-77'));
    expect((await myCompanies(before.data.token)).code).toBe(401);
    const after = await consoleToken({ username: 'pam', password: 'New-Secret-77' });
    expect((await myCompanies(after.data.token)).code).toBe(200);
  });

  it('forgets console sessions a day after they ended, and keeps the live and the recently ended', async () => {
    const ended = await createAccount(ctx, { username: 'session-purge' });
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) tokens.push((await consoleToken(ended)).data.token);
    const rows = await ctx.database.db
      .selectFrom('console_sessions')
      .select('id')
      .where('account_id', '=', ended.id)
      .orderBy('created_at')
      .execute();
    const [live, revokedLongAgo, idleLongAgo, pastAbsolute, revokedJustNow] = rows.map((row) => row.id);
    const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    const set = (id: string | undefined, fields: Record<string, Date>) =>
      ctx.database.db
        .updateTable('console_sessions')
        .set(fields)
        .where('id', '=', id ?? '')
        .execute();
    await set(revokedLongAgo, { revoked_at: ago(25) });
    await set(idleLongAgo, { idle_expires_at: ago(25) });
    await set(pastAbsolute, { absolute_expires_at: ago(25) });
    await set(revokedJustNow, { revoked_at: ago(1) });
    await ctx.tessera.jobs.runSoon('maintenance.purge');
    await ctx.tessera.jobs.drain();
    const left = await ctx.database.db
      .selectFrom('console_sessions')
      .select('id')
      .where('account_id', '=', ended.id)
      .execute();
    expect(left.map((row) => row.id).sort()).toEqual([live, revokedJustNow].sort());
    expect((await myCompanies(tokens[0] ?? '')).code).toBe(200);
  });

  it('gives the platform console only to platform administrators', async () => {
    const root = await createAccount(ctx, { username: 'root-op', platformAdmin: true });
    const admin = await consoleToken(root, 'admin');
    expect(admin.code).toBe(200);
    expect((await call(ctx, '/api/v1/admin/oidc/refresh', {}, { token: admin.data.token })).code).toBe(200);
  });

  it('refuses calls without a token, with a wrong token and with an absurdly long one', async () => {
    expect((await call(ctx, '/api/v1/manage/company/my/list')).code).toBe(401);
    expect((await myCompanies('not-a-token')).code).toBe(401);
    expect((await myCompanies('x'.repeat(5000))).code).toBe(401);
    const zh = await call(ctx, '/api/v1/manage/company/my/list', {}, { lang: 'zh-CN' });
    expect(zh.msg).toBe('身份信息失效，请重新登录！');
  });
});
