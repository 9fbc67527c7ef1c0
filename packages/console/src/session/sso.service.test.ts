import { describe, expect, it, vi } from 'vitest';
import type { CallApi } from '../api/http-client.ts';
import { codeChallengeOf } from './pkce.ts';
import { createSsoService, SignInStateMismatch } from './sso.service.ts';

const config = {
  issuer: 'http://localhost:8080/oidc',
  authorizationEndpoint: 'http://localhost:8080/oidc/auth',
  endSessionEndpoint: 'http://localhost:8080/oidc/session/end',
  clientId: 'tessera-console-admin',
  redirectUri: 'http://localhost:8080/admin/',
  scope: 'openid profile email',
  codeChallengeMethod: 'S256' as const,
};

function setup() {
  const calls: Array<{ path: string; body: unknown }> = [];
  const fake = async (path: string, body?: unknown) => {
    calls.push({ path, body });
    if (path === '/api/v1/sso/config') return config;
    if (path === '/api/v1/admin/oidc/token')
      return { token: 'tok', username: 'admin', expiresIn: 7200, sessionExpiresIn: 43_200 };
    throw new Error(`unexpected call ${path}`);
  };
  const goTo = vi.fn<(url: string) => void>();
  const sso = createSsoService({
    variant: 'admin',
    callApi: fake as unknown as CallApi,
    storage: window.sessionStorage,
    goTo,
  });
  return { sso, calls, goTo };
}

describe('sso service', () => {
  it('sends the browser to the authorization endpoint with PKCE and remembers the target', async () => {
    const { sso, calls, goTo } = setup();
    await sso.startSignIn('/org/user?page=2');
    expect(calls[0]).toEqual({ path: '/api/v1/sso/config', body: { variant: 'admin' } });
    const url = new URL(goTo.mock.calls[0]![0]);
    const pending = JSON.parse(window.sessionStorage.getItem('tessera_sso_admin') ?? '{}');
    expect(pending.returnTo).toBe('/org/user?page=2');
    expect(url.searchParams.get('state')).toBe(pending.state);
    expect(url.searchParams.get('client_id')).toBe('tessera-console-admin');
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:8080/admin/');
    expect(url.searchParams.get('code_challenge')).toBe(await codeChallengeOf(pending.verifier));
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('exchanges the code with the verifier it kept, once', async () => {
    const { sso, calls } = setup();
    await sso.startSignIn('/dashboard');
    const pending = JSON.parse(window.sessionStorage.getItem('tessera_sso_admin') ?? '{}');
    await expect(sso.completeSignIn('the-code', pending.state)).resolves.toEqual({
      token: 'tok',
      username: 'admin',
      expiresIn: 7200,
      sessionExpiresIn: 43_200,
      returnTo: '/dashboard',
    });
    expect(calls[1]).toEqual({
      path: '/api/v1/admin/oidc/token',
      body: { code: 'the-code', codeVerifier: pending.verifier },
    });
    await expect(sso.completeSignIn('the-code', pending.state)).rejects.toBeInstanceOf(SignInStateMismatch);
  });

  it('refuses an answer whose state this tab did not send', async () => {
    const { sso, calls } = setup();
    await sso.startSignIn('/dashboard');
    await expect(sso.completeSignIn('code', 'forged')).rejects.toBeInstanceOf(SignInStateMismatch);
    await expect(sso.completeSignIn('code', null)).rejects.toBeInstanceOf(SignInStateMismatch);
    expect(calls.map((c) => c.path)).toEqual(['/api/v1/sso/config']);
  });

  it('ends the single sign-on session to switch accounts', async () => {
    const { sso, goTo } = setup();
    await sso.switchAccount();
    const url = new URL(goTo.mock.calls[0]![0]);
    expect(url.pathname).toBe('/oidc/session/end');
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe('http://localhost:8080/admin/');
  });
});
