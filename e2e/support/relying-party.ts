import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';

/**
 * A small web application that signs its users in through Tessera with openid-client, as a
 * company's own app would: `/login` starts the code flow with PKCE (also when Tessera's portal
 * launches it: third-party initiated login with `iss`), `/callback` redeems the code and greets
 * the person by name, or shows the error it got back. Listens on 127.0.0.1 only.
 */
export interface RelyingParty {
  baseUrl: string;
  redirectUri: string;
  loginUrl: string;
  /** Sets the client it signs in with (the app is created in the console after this server starts). */
  configure(clientId: string, clientSecret: string): void;
  stop(): Promise<void>;
}

export async function startRelyingParty(
  issuer: string,
  /** Receives the codes and tokens the app gets (the run's secrets). */
  secrets: string[] = [],
): Promise<RelyingParty> {
  let credentials: { clientId: string; clientSecret: string } | undefined;
  let config: client.Configuration | undefined;
  const pending = new Map<string, { verifier: string; nonce: string }>();
  let baseUrl = '';

  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
  const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

  async function configuration() {
    if (!credentials) throw new Error('the relying party has no client yet');
    config ??= await client.discovery(
      new URL(issuer),
      credentials.clientId,
      undefined,
      client.ClientSecretBasic(credentials.clientSecret),
      { execute: [client.allowInsecureRequests] },
    );
    return config;
  }

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', baseUrl);
    const answer = (status: number, html: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      response.end(html);
    };
    (async () => {
      if (url.pathname === '/login') {
        const verifier = client.randomPKCECodeVerifier();
        const state = client.randomState();
        const nonce = client.randomNonce();
        pending.set(state, { verifier, nonce });
        const target = client.buildAuthorizationUrl(await configuration(), {
          redirect_uri: `${baseUrl}/callback`,
          scope: 'openid profile email',
          code_challenge: await client.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        });
        return answer(302, '', { location: target.toString() });
      }
      if (url.pathname === '/callback') {
        const state = url.searchParams.get('state') ?? '';
        const flow = pending.get(state);
        if (url.searchParams.get('error') || !flow) {
          return answer(
            200,
            page(
              'Sign-in failed',
              `<p id="error">${escapeHtml(url.searchParams.get('error') ?? 'unknown state')}</p>`,
            ),
          );
        }
        pending.delete(state);
        const seen = (...values: (string | null | undefined)[]) =>
          secrets.push(...values.filter((value): value is string => Boolean(value)));
        seen(url.searchParams.get('code'), flow.verifier);
        const tokens = await client.authorizationCodeGrant(await configuration(), url, {
          pkceCodeVerifier: flow.verifier,
          expectedState: state,
          expectedNonce: flow.nonce,
        });
        seen(tokens.access_token, tokens.id_token, tokens.refresh_token);
        const name = String(tokens.claims()?.preferred_username ?? '');
        return answer(200, page('Team wiki', `<p id="greeting">Signed in as ${escapeHtml(name)}</p>`));
      }
      return answer(404, page('Not found', ''));
    })().catch((error: unknown) =>
      answer(500, page('Error', `<p id="error">${escapeHtml(String(error))}</p>`)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    redirectUri: `${baseUrl}/callback`,
    loginUrl: `${baseUrl}/login`,
    configure(clientId, clientSecret) {
      credentials = { clientId, clientSecret };
      config = undefined;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
