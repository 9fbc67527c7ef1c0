import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { startTestApp, type TestContext } from '../../test/harness.ts';
import { ACR_MULTI_FACTOR, ACR_SINGLE_FACTOR } from './authentication-context.ts';
import { KEYS_CHANNEL, rotateSigningKeys } from './keys.ts';
import { DISCOVERY_CACHE, JWKS_CACHE } from './provider-responses.ts';

/** The provider's metadata (OpenID Connect Discovery 1.0) says exactly what it supports. */

let ctx: TestContext;
let metadata: Record<string, unknown>;
let response: Response;

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  response = await fetch(`${ctx.baseUrl}/oidc/.well-known/openid-configuration`);
  metadata = (await response.json()) as Record<string, unknown>;
});
afterAll(() => ctx.close());

describe('discovery', () => {
  it('lists the flows, modes and methods that work, and nothing else', () => {
    const issuer = `${ctx.baseUrl}/oidc`;
    expect(metadata).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      userinfo_endpoint: `${issuer}/me`,
      jwks_uri: `${issuer}/jwks`,
      end_session_endpoint: `${issuer}/session/end`,
      revocation_endpoint: `${issuer}/token/revocation`,
      introspection_endpoint: `${issuer}/token/introspection`,
      response_types_supported: ['code'],
      response_modes_supported: ['form_post', 'fragment', 'query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      id_token_signing_alg_values_supported: ['ES256', 'RS256'],
      subject_types_supported: ['public', 'pairwise'],
      scopes_supported: ['openid', 'offline_access', 'profile', 'email', 'phone', 'groups', 'permissions'],
      prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
      acr_values_supported: [ACR_SINGLE_FACTOR, ACR_MULTI_FACTOR],
      claims_parameter_supported: true,
      claim_types_supported: ['normal'],
      ui_locales_supported: ['en', 'zh-CN'],
      authorization_response_iss_parameter_supported: true,
      request_uri_parameter_supported: false,
      pushed_authorization_request_endpoint: `${issuer}/request`,
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    });
    expect([...(metadata.claims_supported as string[])].sort()).toEqual(
      [
        'acr',
        'amr',
        'auth_time',
        'email',
        'email_verified',
        'groups',
        'iss',
        'name',
        'permissions',
        'phone_number',
        'phone_number_verified',
        'preferred_username',
        'sid',
        'sub',
        'updated_at',
      ].sort(),
    );
    // Flows that are not offered are not announced.
    expect(metadata.request_parameter_supported).toBeUndefined();
    expect(metadata.registration_endpoint).toBeUndefined();
    expect(metadata.device_authorization_endpoint).toBeUndefined();
    expect(metadata.userinfo_signing_alg_values_supported).toBeUndefined();
  });

  it('may be cached for an hour, and the JWKS for five minutes', async () => {
    expect(response.headers.get('cache-control')).toBe(DISCOVERY_CACHE);
    expect(DISCOVERY_CACHE).toBe('public, max-age=3600');
    const jwks = await fetch(`${ctx.baseUrl}/oidc/jwks`);
    expect(jwks.headers.get('cache-control')).toBe(JWKS_CACHE);
    expect(JWKS_CACHE).toBe('public, max-age=300');
    expect(jwks.headers.get('content-type')).toContain('application/jwk-set+json');
    // Errors are not cached.
    const refused = await fetch(`${ctx.baseUrl}/oidc/token`, { method: 'POST' });
    expect(refused.headers.get('cache-control')).toBe('no-store');
  });

  it('publishes a rotated key at once (npm run keys -- rotate)', async () => {
    const [kid] = await rotateSigningKeys(ctx.database.db, createSealer(ctx.masterKey));
    await ctx.database.notify(KEYS_CHANNEL, 'rotated');
    await ctx.tessera.reloadKeys();
    const jwks = (await (await fetch(`${ctx.baseUrl}/oidc/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toContain(kid);
  });
});
