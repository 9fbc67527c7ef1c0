import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { signInForCode, tokenRequest } from '../../test/browser-flow.ts';
import {
  call,
  consoleClientSecret,
  createAccount,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';

/**
 * The console's refresh (`oidc/refresh`): its session is read once, the refresh token rotates
 * through the provider's token endpoint in-process (the grant's session, grant and account read
 * with the token, no access-token row kept for a token nobody uses), and the new console token is
 * swapped in: five statements. Rotation and replay detection are the provider's as for anyone.
 */

let ctx: TestContext;
let statements: string[] | undefined;
beforeAll(async () => {
  ctx = await startTestApp({
    listen: true,
    jobs: { run: false },
    queryLog: (event) => statements?.push(event.query.sql),
  });
});
afterAll(() => ctx.close());

type TokenAnswer = { token: string; username: string };

async function consoleSession(username: string) {
  const account = await createAccount(ctx, { username });
  const flow = await signInForCode({
    baseUrl: ctx.baseUrl,
    clientId: 'tessera-console-dev',
    redirectUri: `${ctx.baseUrl}/dev/`,
    identifier: account.username,
    password: account.password,
    scope: 'openid profile email offline_access',
  });
  const answer = await call<TokenAnswer>(ctx, '/api/v1/dev/oidc/token', {
    code: flow.code,
    codeVerifier: flow.verifier,
  });
  expect(answer.code).toBe(200);
  return { account, token: answer.data.token };
}

const refresh = (token: string) => call<TokenAnswer>(ctx, '/api/v1/dev/oidc/refresh', {}, { token });

/** The provider's refresh token the console session holds. */
async function heldRefreshToken(accountId: string) {
  const row = await ctx.database.db
    .selectFrom('console_sessions')
    .select('refresh_token_sealed')
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return createSealer(ctx.masterKey).open(row.refresh_token_sealed as string, 'console-refresh-token');
}

const accessTokenRows = (accountId: string) =>
  ctx.database.db
    .selectFrom('oidc_payloads')
    .select('id')
    .where('model', '=', 'AccessToken')
    .where('account_id', '=', accountId)
    .execute();

describe("the console's refresh", () => {
  it('runs five statements and keeps no access token', async () => {
    const { account, token } = await consoleSession('refresh-counted');
    let current = token;
    for (let i = 0; i < 3; i++) {
      statements = [];
      const answer = await refresh(current);
      const ran = statements;
      statements = undefined;
      expect(answer.code).toBe(200);
      expect(ran).toHaveLength(5);
      current = answer.data.token;
    }
    expect(await accessTokenRows(account.id)).toEqual([]);
  });

  it('ends when a replayed refresh token revoked the grant', async () => {
    const { account, token } = await consoleSession('refresh-replayed');
    const first = await heldRefreshToken(account.id);
    const refreshed = await refresh(token);
    expect(refreshed.code).toBe(200);
    expect(await heldRefreshToken(account.id)).not.toBe(first);
    // Someone replays the rotated-away token: the provider revokes the whole grant...
    const secret = consoleClientSecret(ctx.masterKey, 'dev');
    const replayed = await tokenRequest(
      ctx.baseUrl,
      { clientId: 'tessera-console-dev', secret },
      { grant_type: 'refresh_token', refresh_token: first },
    );
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // ...so the console's current token, rotated once, cannot refresh any more.
    expect((await refresh(refreshed.data.token)).code).toBe(401);
  });

  it('ends with the single sign-on session', async () => {
    const { account, token } = await consoleSession('refresh-sso-ended');
    await ctx.database.db
      .deleteFrom('oidc_payloads')
      .where('model', '=', 'Session')
      .where('account_id', '=', account.id)
      .execute();
    expect((await refresh(token)).code).toBe(401);
  });

  it("is not stopped by someone else's wrong secrets for the console's client, which are", async () => {
    const { token } = await consoleSession('refresh-under-guessing');
    // Wrong secrets from this address (no trusted proxy: every request comes from 127.0.0.1).
    for (let i = 0; i < 21; i++)
      await tokenRequest(
        ctx.baseUrl,
        { clientId: 'tessera-console-dev', secret: `guess-${i}` },
        { grant_type: 'refresh_token', refresh_token: 'x' },
      );
    const guessed = await tokenRequest(
      ctx.baseUrl,
      { clientId: 'tessera-console-dev', secret: 'guess-again' },
      { grant_type: 'refresh_token', refresh_token: 'x' },
    );
    expect(guessed.status).toBe(429);
    // The right secret is answered from the same address (issue 28): here, about an unknown token.
    const right = await tokenRequest(
      ctx.baseUrl,
      { clientId: 'tessera-console-dev', secret: consoleClientSecret(ctx.masterKey, 'dev') },
      { grant_type: 'refresh_token', refresh_token: 'x' },
    );
    expect(right).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await refresh(token)).code).toBe(200);
  });
});
