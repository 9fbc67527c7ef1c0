import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { expect } from 'vitest';
import { authorization, CookieJar, go, redeem, signInOnPage, type TestApp } from './oidc-flow.ts';

/**
 * An application's back-channel logout endpoint on 127.0.0.1: records every logout token posted
 * to it, by path. `/broken` answers 500 and `/hang` never answers (the provider's timeout).
 */
export async function startLogoutReceiver() {
  const received: { path: string; token: string; at: number }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      if (path === '/hang') return;
      received.push({ path, token: new URLSearchParams(body).get('logout_token') ?? '', at: Date.now() });
      response.writeHead(path === '/broken' ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Signs `person` in to each app in one browser; answers the browser and each app's ID token. */
export async function signedInTo(
  baseUrl: string,
  apps: TestApp[],
  person: { username: string; password: string },
  jar = new CookieJar(),
) {
  const idTokens: string[] = [];
  for (const app of apps) {
    const auth = authorization(baseUrl, app.clientId);
    let landing = await go(jar, auth.url);
    if (landing.page) landing = await signInOnPage(jar, landing.page, person);
    const tokens = await redeem(baseUrl, app, auth, landing);
    idTokens.push(tokens.id_token!);
  }
  return { jar, idTokens };
}

/**
 * Checks a logout token as a relying party must (OIDC Back-Channel Logout 1.0 §2.6): signed by
 * the provider's keys, for this client, typed `logout+jwt`, with the logout event, a `jti`, no
 * nonce; answers its claims.
 */
export async function verifiedLogoutToken(baseUrl: string, token: string, clientId: string) {
  const keys = createLocalJWKSet(await (await fetch(`${baseUrl}/oidc/jwks`)).json());
  const { payload, protectedHeader } = await jwtVerify(token, keys, {
    issuer: `${baseUrl}/oidc`,
    audience: clientId,
    typ: 'logout+jwt',
    maxTokenAge: '2 minutes',
  });
  expect(protectedHeader.alg).toMatch(/^(ES|RS)256$/);
  expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} });
  expect(payload.jti).toEqual(expect.any(String));
  expect(payload).not.toHaveProperty('nonce');
  return payload as JWTPayload & { sid?: string };
}
