import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { buildAuthorizationUrl, codeChallengeOf, createCodeVerifier, sha256 } from './pkce.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('PKCE (RFC 7636, S256)', () => {
  it('makes verifiers of 43 base64url characters, different each time', () => {
    const a = createCodeVerifier();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createCodeVerifier()).not.toBe(a);
  });

  it('computes the RFC 7636 appendix B challenge', async () => {
    await expect(codeChallengeOf('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).resolves.toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('computes the same challenge without crypto.subtle (plain-HTTP pages)', async () => {
    vi.stubGlobal('crypto', { getRandomValues: crypto.getRandomValues.bind(crypto) });
    try {
      await expect(codeChallengeOf('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).resolves.toBe(
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      );
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('has a SHA-256 fallback that agrees with Node for every padding boundary', () => {
    expect(hex(sha256(new TextEncoder().encode('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 128, 1000]) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 31 + 7) & 0xff);
      expect(hex(sha256(bytes)), `length ${length}`).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  it('builds the authorization request', () => {
    const url = new URL(
      buildAuthorizationUrl({
        authorizationEndpoint: 'http://localhost:8080/oidc/auth',
        clientId: 'tessera-console-dev',
        redirectUri: 'http://localhost:8080/dev/',
        scope: 'openid profile',
        state: 'st',
        codeChallenge: 'ch',
      }),
    );
    expect(url.origin + url.pathname).toBe('http://localhost:8080/oidc/auth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'tessera-console-dev',
      redirect_uri: 'http://localhost:8080/dev/',
      scope: 'openid profile',
      state: 'st',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
  });
});
