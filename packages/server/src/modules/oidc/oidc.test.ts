import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { CookieJar, request, signInForCode, startAuthorization } from '../../test/browser-flow.ts';
import { consoleClientSecret, createAccount, startTestApp, type TestContext } from '../../test/harness.ts';
import { KEYS_CHANNEL, rotateSigningKeys } from './keys.ts';

let ctx: TestContext;
let config: client.Configuration;
let user: { id: string; username: string; password: string };
const clientId = 'tessera-console-dev';
let redirectUri: string;

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  redirectUri = `${ctx.baseUrl}/dev/`;
  user = await createAccount(ctx, { username: 'alice', email: 'alice@example.com' });
  config = await client.discovery(
    new URL(`${ctx.baseUrl}/oidc`),
    clientId,
    undefined,
    client.ClientSecretBasic(consoleClientSecret(ctx.masterKey, 'dev')),
    { execute: [client.allowInsecureRequests] },
  );
});
afterAll(() => ctx.close());

/** As the console signs in: it renews its session with the refresh token (offline_access). */
const signIn = (scope = 'openid profile email offline_access') =>
  signInForCode({
    baseUrl: ctx.baseUrl,
    clientId,
    redirectUri,
    identifier: user.username,
    password: user.password,
    scope,
  });

const redeem = async (flow: Awaited<ReturnType<typeof signIn>>) =>
  client.authorizationCodeGrant(config, flow.callbackUrl, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
  });

describe('OIDC provider with an independent relying party', () => {
  it('publishes discovery and a JWKS with an ES256 and an RS256 key', async () => {
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(`${ctx.baseUrl}/oidc`);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.end_session_endpoint).toBe(`${ctx.baseUrl}/oidc/session/end`);
    const jwks = (await (await fetch(metadata.jwks_uri!)).json()) as { keys: { alg: string; d?: string }[] };
    expect(jwks.keys.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256']);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
  });

  it('signs in with authorization code + PKCE and releases the profile claims', async () => {
    const tokens = await redeem(await signIn());
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user.id);
    expect(claims.preferred_username).toBe('alice');
    expect(tokens.refresh_token).toBeTruthy();
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString());
    expect(header.alg).toBe('ES256');
    const info = await client.fetchUserInfo(config, tokens.access_token, user.id);
    expect(info.email).toBe('alice@example.com');
  });

  it('issues a refresh token only for offline_access (OIDC Core §11)', async () => {
    const tokens = await redeem(await signIn('openid profile email'));
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('accepts a sign-in by email as well as by username', async () => {
    const flow = await signInForCode({
      baseUrl: ctx.baseUrl,
      clientId,
      redirectUri,
      identifier: 'ALICE@example.com',
      password: user.password,
    });
    expect(flow.code).toBeTruthy();
  });

  it('requires PKCE: an authorization request without a challenge is refused', async () => {
    const url = new URL(`${ctx.baseUrl}/oidc/auth`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'openid',
    }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    const location = new URL(response.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('refuses a wrong code verifier', async () => {
    const flow = await signIn();
    await expect(
      client.authorizationCodeGrant(config, flow.callbackUrl, {
        pkceCodeVerifier: 'x'.repeat(43),
        expectedState: flow.state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('lets exactly one of 50 parallel redemptions of a code succeed', async () => {
    const flow = await signIn();
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code: flow.code,
      code_verifier: flow.verifier,
      redirect_uri: redirectUri,
    }).toString();
    const auth = `Basic ${Buffer.from(`${clientId}:${consoleClientSecret(ctx.masterKey, 'dev')}`).toString('base64')}`;
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${ctx.baseUrl}/oidc/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
          body,
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string } })),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400).every((r) => r.body.error === 'invalid_grant')).toBe(true);
  });

  it('rotates refresh tokens and revokes the grant when an old one is replayed', async () => {
    const first = await redeem(await signIn());
    const second = await client.refreshTokenGrant(config, first.refresh_token!);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    await expect(client.refreshTokenGrant(config, first.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // Reuse detection: the rotated token of the same grant is dead too.
    await expect(client.refreshTokenGrant(config, second.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('introspects and revokes tokens', async () => {
    const tokens = await redeem(await signIn());
    const active = await client.tokenIntrospection(config, tokens.access_token);
    expect(active.active).toBe(true);
    expect(active.sub).toBe(user.id);
    await client.tokenRevocation(config, tokens.access_token);
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
  });

  it('ends the session by RP-initiated logout: its ID token spares the confirmation', async () => {
    const flow = await signIn();
    const tokens = await redeem(flow);
    const endUrl = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: redirectUri,
    });
    const page = await request(flow.jar, endUrl.toString());
    const html = await page.text();
    // The page posts itself (form-launch.js): nothing for the person to confirm.
    expect(html).not.toContain('op.logoutForm');
    const action = /<form method="post" action="([^"]+)"[^>]*data-auto-submit>/.exec(html)![1]!;
    expect(html).toContain('name="logout" value="yes"');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1]!;
    const confirm = await request(flow.jar, new URL(action, ctx.baseUrl).toString(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    expect(confirm.status).toBe(303);
    expect(confirm.headers.get('location')).toBe(redirectUri);
    // The single sign-on session is gone: a new authorization asks for the password again.
    const again = await startAuthorization({ baseUrl: ctx.baseUrl, clientId, redirectUri, jar: flow.jar });
    expect(again.location).toContain('/interaction/');
  });

  it('keeps tokens valid across a signing key rotation and signs new ones with the new key', async () => {
    const before = await redeem(await signIn());
    const oldKid = JSON.parse(Buffer.from(before.id_token!.split('.')[0]!, 'base64url').toString()).kid;
    const [newEsKid] = await rotateSigningKeys(ctx.database.db, createSealer(ctx.masterKey));
    await ctx.database.notify(KEYS_CHANNEL, 'rotated');
    await ctx.tessera.reloadKeys();
    const jwks = (await (await fetch(`${ctx.baseUrl}/oidc/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKid, newEsKid]));
    const after = await redeem(await signIn());
    const newKid = JSON.parse(Buffer.from(after.id_token!.split('.')[0]!, 'base64url').toString()).kid;
    expect(newKid).toBe(newEsKid);
    // A refresh token issued before the rotation still works.
    await expect(client.refreshTokenGrant(config, before.refresh_token!)).resolves.toBeTruthy();
  });

  it('renders provider errors on the portal error page without internals', async () => {
    const response = await fetch(`${ctx.baseUrl}/oidc/auth?client_id=nope&response_type=code`, {
      redirect: 'manual',
    });
    const html = await response.text();
    expect(response.status).toBe(400);
    expect(html).toContain('/portal/styles.css');
    expect(html).not.toMatch(/at .*\.js:\d+/);
  });

  it('keeps the interaction cookie httpOnly and SameSite=Lax', async () => {
    const jar = new CookieJar();
    const start = await startAuthorization({ baseUrl: ctx.baseUrl, clientId, redirectUri, jar });
    expect(start.status).toBe(303);
    const response = await fetch(start.location, { redirect: 'manual', headers: { cookie: jar.header() } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });
});
