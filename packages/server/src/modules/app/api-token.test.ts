import { importJWK, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { tokenRequest } from '../../test/browser-flow.ts';
import { call, grantLicense, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { KEYS_CHANNEL, loadJwks, rotateSigningKeys } from '../oidc/keys.ts';
import { managementApiAudience } from './api-caller.ts';

/**
 * Programmatic access accounts' tokens are signed JWTs for the management API: nothing is
 * stored per grant, and the API checks signature, issuer, audience, expiry and the account's
 * current secret on every call (the account row itself is read on every call as well).
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let robot: { clientId: string; secret: string };

const admin = <T = Record<string, unknown>>(path: string, body: unknown = {}) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

async function tokenFor(clientId: string, secret: string) {
  const { status, body } = await tokenRequest(
    ctx.baseUrl,
    { clientId, secret },
    { grant_type: 'client_credentials' },
  );
  expect(status, JSON.stringify(body)).toBe(200);
  return body as { access_token: string; expires_in: number };
}

const listUsers = (token: string) =>
  ctx.tessera.app
    .inject({
      method: 'POST',
      url: '/api/v1/manage/user/list',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      payload: '{}',
    })
    .then((r) => (r.json() as { code: number }).code);

const decode = (part: string) =>
  JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>;

/** The provider's active private ES256 key (to forge tokens that only differ in one claim). */
async function providerKey(): Promise<{ key: CryptoKey | Uint8Array; kid: string }> {
  const { keys } = await loadJwks(ctx.database.db, createSealer(ctx.masterKey));
  const jwk = keys.find((k) => k.alg === 'ES256') as JWK;
  return { key: await importJWK(jwk, 'ES256'), kid: jwk.kid as string };
}

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  await grantLicense(ctx, { app: 1000 });
  owner = await ownerWithCompany(ctx, 'jwt-owner');
  const created = await admin<{ app: { appId: string } }>('/api/v1/manage/app/create', { name: 'Robots' });
  const account = await admin<{ account: { clientId: string }; secret: string }>(
    '/api/v1/manage/app/api-account/create',
    { appId: created.data.app.appId, name: 'Sync job', expiresAt: null },
  );
  expect(account.code, account.msg).toBe(200);
  robot = { clientId: account.data.account.clientId, secret: account.data.secret };
});
afterAll(() => ctx.close());

describe('access account tokens', () => {
  it('are ES256 JWTs for the management API, and no grant is stored', async () => {
    const before = await ctx.database.db
      .selectFrom('oidc_payloads')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('model', '=', 'ClientCredentials')
      .executeTakeFirstOrThrow();
    const { access_token: token, expires_in } = await tokenFor(robot.clientId, robot.secret);
    const [header, payload] = token.split('.').map((part, i) => (i < 2 ? decode(part) : {}));
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      iss: `${ctx.baseUrl}/oidc`,
      aud: managementApiAudience(ctx.baseUrl),
      client_id: robot.clientId,
      sub: robot.clientId,
    });
    expect(typeof payload?.sv).toBe('string');
    expect(expires_in).toBe(3600);
    expect(Number(payload?.exp) - Number(payload?.iat)).toBe(3600);
    const after = await ctx.database.db
      .selectFrom('oidc_payloads')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('model', '=', 'ClientCredentials')
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect(await listUsers(token)).toBe(200);
  });

  it('refuses a token that was altered, expired, for another audience or issuer, or signed by another key', async () => {
    const { access_token: real } = await tokenFor(robot.clientId, robot.secret);
    const claims = decode(real.split('.')[1]!);
    const { key, kid } = await providerKey();
    const forge = (
      changes: Record<string, unknown>,
      signWith: { key: CryptoKey | Uint8Array; kid: string } = { key, kid },
    ) =>
      new SignJWT({ ...claims, ...changes })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signWith.kid })
        .sign(signWith.key);

    // The forging itself is right: an unchanged copy is accepted.
    expect(await listUsers(await forge({}))).toBe(200);

    const now = Math.floor(Date.now() / 1000);
    expect(await listUsers(await forge({ exp: now - 1, iat: now - 3601 }))).toBe(401);
    expect(await listUsers(await forge({ aud: `${ctx.baseUrl}/somewhere-else` }))).toBe(401);
    expect(await listUsers(await forge({ iss: 'https://evil.example.com/oidc' }))).toBe(401);
    expect(await listUsers(await forge({ sv: 'an-older-secret' }))).toBe(401);
    const { generateKeyPair } = await import('jose');
    const stranger = await generateKeyPair('ES256');
    expect(await listUsers(await forge({}, { key: stranger.privateKey, kid }))).toBe(401);

    // The payload of another client, with the real token's signature.
    const [h, , s] = real.split('.');
    const altered = Buffer.from(JSON.stringify({ ...claims, client_id: 'api_someone_else' })).toString(
      'base64url',
    );
    expect(await listUsers(`${h}.${altered}.${s}`)).toBe(401);
  });

  it('stay valid across a signing key rotation', async () => {
    const { access_token: before } = await tokenFor(robot.clientId, robot.secret);
    const [newKid] = await rotateSigningKeys(ctx.database.db, createSealer(ctx.masterKey));
    await ctx.database.notify(KEYS_CHANNEL, 'rotated');
    await ctx.tessera.reloadKeys();
    expect(await listUsers(before)).toBe(200);
    const { access_token: after } = await tokenFor(robot.clientId, robot.secret);
    expect(decode(after.split('.')[0]!).kid).toBe(newKid);
    expect(await listUsers(after)).toBe(200);
  });
});
