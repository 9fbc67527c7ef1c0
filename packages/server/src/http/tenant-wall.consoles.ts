import { expect } from 'vitest';
import { signInForCode } from '../test/browser-flow.ts';
import { call, createAccount, type TestContext } from '../test/harness.ts';

type Variant = 'admin' | 'dev';

/**
 * The tenant wall between the two consoles (issue 28): a platform administrator signs in to
 * both through the provider, as each console does (its own OIDC client, offline_access), so that
 * each token is one its console's client was issued, with the refresh token behind it.
 */
export async function signInToBothConsoles(ctx: TestContext) {
  const account = await createAccount(ctx, { username: 'both-consoles', platformAdmin: true });
  const tokens = {} as Record<Variant, string>;
  for (const variant of ['admin', 'dev'] as const) {
    const flow = await signInForCode({
      baseUrl: ctx.baseUrl,
      clientId: `tessera-console-${variant}`,
      redirectUri: `${ctx.baseUrl}/${variant}/`,
      identifier: account.username,
      password: account.password,
      scope: 'openid profile email offline_access',
    });
    const answer = await call<{ token: string }>(ctx, `/api/v1/${variant}/oidc/token`, {
      code: flow.code,
      codeVerifier: flow.verifier,
    });
    expect(answer.code).toBe(200);
    tokens[variant] = answer.data.token;
  }
  return tokens;
}

/** Whether a console token still opens its session (a call that changes nothing). */
export const stillSignedIn = async (ctx: TestContext, token: string) =>
  (await call(ctx, '/api/v1/manage/company/my/list', {}, { token })).code === 200;

/** What a call answers to a token: its code and reason. */
export async function answerTo(ctx: TestContext, path: string, token: string, body: unknown = {}) {
  const answer = await call<{ reason?: string } | null>(ctx, path, body, { token });
  return { path, code: answer.code, reason: answer.data?.reason };
}
