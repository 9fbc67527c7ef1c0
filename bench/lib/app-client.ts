/**
 * A company's application or programmatic access account at the provider, as its own server
 * would talk to it: client_secret_basic credentials, grants at /oidc/token, the claims of an ID
 * token it received.
 */
import { postForm } from './browser.ts';
import type { BenchServer } from './server.ts';

export interface AppClient {
  clientId: string;
  secret: string;
}

/** The Authorization header of client_secret_basic (both parts form-encoded, RFC 6749 §2.3.1). */
export const basicAuthorization = (client: AppClient) =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;

export interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
}

/** A grant at the provider's token endpoint; throws on any answer but a 200 with an access token. */
export async function tokenGrant(
  server: BenchServer,
  client: AppClient,
  form: Record<string, string>,
): Promise<TokenAnswer> {
  const answer = await postForm(`${server.base}/oidc/token`, new URLSearchParams(form).toString(), {
    authorization: basicAuthorization(client),
  });
  const text = await answer.text();
  let body: Partial<TokenAnswer> = {};
  try {
    body = JSON.parse(text) as Partial<TokenAnswer>;
  } catch {
    // not JSON: reported below
  }
  if (answer.status !== 200 || !body.access_token)
    throw new Error(`token ${form.grant_type}: ${answer.status} ${text.slice(0, 200)}`);
  return body as TokenAnswer;
}

/** An authorization code redeemed by the application (authorization_code with PKCE). */
export const codeGrant = (
  server: BenchServer,
  client: AppClient,
  redirectUri: string,
  code: string,
  verifier: string,
) =>
  tokenGrant(server, client, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });

/** The claims of an ID token (read, not verified: the provider just issued it to us). */
export const idTokenClaims = (idToken: string) =>
  JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    sub: string;
    amr?: string[];
  };
