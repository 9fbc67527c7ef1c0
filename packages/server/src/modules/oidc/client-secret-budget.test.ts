import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantLicense, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { openedApp, relyingParty, type TestApp } from '../../test/oidc-flow.ts';

/**
 * Issue 28, a right client secret is never refused: wrong secrets from an address spend the
 * client's budget and, once it is spent, are refused there (429); the application's right secret
 * is still answered from that same address, at the token endpoint (openid-client with
 * client_secret_basic and client_secret_post, as real relying parties send them) and at the
 * decision API (HTTP Basic).
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  // Requests come from 127.0.0.1, trusted here to name the client's address with X-Forwarded-For.
  ctx = await startTestApp({ listen: true, trustedProxies: ['127.0.0.1'] });
  await grantLicense(ctx, { app: 20 });
  owner = await ownerWithCompany(ctx, 'secret-budget-owner');
});
afterAll(() => ctx.close());

const BUDGET = 20;

/** An openid-client relying party for the application, its requests coming from `ip`. */
async function relyingPartyAt(ip: string, app: TestApp, secret: string, method: 'basic' | 'post') {
  const auth = method === 'basic' ? client.ClientSecretBasic(secret) : client.ClientSecretPost(secret);
  const config = await relyingParty(ctx, { ...app, clientSecret: secret }, auth);
  config[client.customFetch] = (url, options) =>
    fetch(url, { ...options, headers: { ...options.headers, 'x-forwarded-for': ip } } as RequestInit);
  return config;
}

/** The status of a client credentials grant: 200, or the status of the provider's error. */
async function grant(app: TestApp, secret: string, method: 'basic' | 'post', ip: string) {
  const config = await relyingPartyAt(ip, app, secret, method);
  try {
    await client.clientCredentialsGrant(config);
    return 200;
  } catch (error) {
    // A 401 to HTTP Basic comes with a WWW-Authenticate challenge, other answers with a JSON body.
    if (error instanceof client.WWWAuthenticateChallengeError) {
      expect(error.cause[0]?.parameters.error).toBe('invalid_client');
      return error.status;
    }
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect((error as client.ResponseBodyError).error).toBe('invalid_client');
    return (error as client.ResponseBodyError).status;
  }
}

/** The status of a decision API call with HTTP Basic from `ip`. */
async function decide(app: TestApp, secret: string, ip: string) {
  const response = await fetch(`${ctx.baseUrl}/api/v1/app/permission/list`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': ip,
      authorization: `Basic ${Buffer.from(`${app.clientId}:${secret}`).toString('base64')}`,
    },
    body: JSON.stringify({ userId: 'someone' }),
  });
  return response.status;
}

describe('a right client secret', () => {
  it.each(['basic', 'post'] as const)(
    'is answered at the token endpoint after the wrong ones spent its budget (client_secret_%s)',
    async (method) => {
      const app = await openedApp(ctx, owner, { tokenAuthMethod: `client_secret_${method}` });
      const ip = method === 'basic' ? '198.51.100.21' : '198.51.100.22';
      for (let i = 0; i < BUDGET; i++) expect(await grant(app, `guess-${i}`, method, ip)).toBe(401);
      expect(await grant(app, 'one-guess-too-many', method, ip)).toBe(429);
      expect(await grant(app, app.clientSecret, method, ip)).toBe(200);
      // The budget still holds for wrong secrets, before and after the right one.
      expect(await grant(app, 'another-guess', method, ip)).toBe(429);
      expect(await grant(app, app.clientSecret, method, ip)).toBe(200);
    },
  );

  it('is answered by the decision API after the wrong ones spent its budget', async () => {
    const app = await openedApp(ctx, owner);
    const ip = '198.51.100.23';
    for (let i = 0; i <= BUDGET; i++) expect(await decide(app, `guess-${i}`, ip)).toBe(401);
    expect(await decide(app, 'one-guess-too-many', ip)).toBe(429);
    expect(await decide(app, app.clientSecret, ip)).toBe(200);
    expect(await decide(app, 'another-guess', ip)).toBe(429);
    // Another address is not refused for this address's guesses.
    expect(await decide(app, 'first-guess-here', '198.51.100.24')).toBe(401);
  });
});
