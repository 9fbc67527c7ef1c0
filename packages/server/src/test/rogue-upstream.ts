import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRemoteJWKSet, exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';

/**
 * An upstream OpenID provider that answers with crafted ID tokens (the attacks on the OpenID
 * Connect identity source): discovery, a JWKS with one RSA key, and a token endpoint whose ID
 * token the test shapes per scenario (wrong nonce, issuer or audience, `alg: none`, a key not in
 * the JWKS); it signs the back-channel logout tokens the test shapes too. The authorization step
 * is the test's: it reads the state and nonce Tessera sent from the authorization URL and goes
 * back to Tessera's callback itself.
 */

export type RogueScenario =
  | 'valid'
  | 'wrong_nonce'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'alg_none'
  | 'unknown_key'
  | 'expired';

export interface RogueUpstream {
  issuer: string;
  clientId: string;
  /** The scenario of the next token answer, and the nonce the authorization URL carried. */
  next: { scenario: RogueScenario; nonce: string; sub: string; amr?: string[]; sid?: string };
  /** When set, the token endpoint takes only a client assertion (private_key_jwt) signed by a key of this JWKS. */
  assertionJwks?: string;
  /** The claims of the last client assertion it accepted. */
  lastAssertion?: Record<string, unknown>;
  /** How often its discovery document and JWKS were read. */
  reads: { discovery: number; jwks: number };
  /** When set, discovery and JWKS answer 503 (the provider is down). */
  failing?: boolean;
  /** The Cache-Control header of its discovery document and JWKS (none when unset). */
  cacheControl?: string;
  /** A back-channel logout token it signs (a fresh jti), naming the `sub`, the `sid` or both. */
  logoutToken(claims: { sub?: string; sid?: string }): Promise<string>;
  /** Rotates its signing key: a new key with a new kid replaces the old one in its JWKS. */
  rotate(): Promise<void>;
  close(): Promise<void>;
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

export async function startRogueUpstream(): Promise<RogueUpstream> {
  let { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256', { extractable: true });
  let kid = 'rogue-1';
  let jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const clientId = 'rogue-client';
  const state: RogueUpstream = {
    issuer: '',
    clientId,
    next: { scenario: 'valid', nonce: '', sub: 'mallory-1' },
    reads: { discovery: 0, jwks: 0 },
    logoutToken: (claims) =>
      new SignJWT({
        ...claims,
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'logout+jwt' })
        .setIssuer(state.issuer)
        .setAudience(clientId)
        .setIssuedAt()
        .setExpirationTime('2m')
        .setJti(randomBytes(12).toString('hex'))
        .sign(privateKey),
    rotate: async () => {
      ({ privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true }));
      kid = `rogue-${Number(kid.split('-')[1]) + 1}`;
      jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
    },
    close: async () => {},
  };

  async function idToken() {
    const { scenario, nonce, sub, amr, sid } = state.next;
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: scenario === 'wrong_issuer' ? `${state.issuer}-evil` : state.issuer,
      aud: scenario === 'wrong_audience' ? 'someone-else' : clientId,
      sub,
      nonce: scenario === 'wrong_nonce' ? randomBytes(8).toString('hex') : nonce,
      iat: scenario === 'expired' ? now - 7200 : now,
      exp: scenario === 'expired' ? now - 3600 : now + 300,
      preferred_username: 'mallory',
      name: 'Mallory',
      ...(amr ? { amr } : {}),
      ...(sid ? { sid } : {}),
    };
    if (scenario === 'alg_none') return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    const key = scenario === 'unknown_key' ? other.privateKey : privateKey;
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key);
  }

  /** Checks the client assertion when private_key_jwt is expected (throws when it does not verify). */
  async function clientAuthenticated(form: URLSearchParams) {
    if (!state.assertionJwks) return;
    const assertion = form.get('client_assertion') ?? '';
    const { payload } = await jwtVerify(assertion, createRemoteJWKSet(new URL(state.assertionJwks)), {
      issuer: clientId,
      subject: clientId,
      audience: [state.issuer, `${state.issuer}/token`],
    });
    state.lastAssertion = payload;
  }

  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const json = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    /** A document that may be cached, or a 503 while the provider is down. */
    const document = (body: unknown) => {
      if (state.failing) return response.writeHead(503).end();
      response.writeHead(200, {
        'content-type': 'application/json',
        ...(state.cacheControl ? { 'cache-control': state.cacheControl } : {}),
      });
      response.end(JSON.stringify(body));
    };
    if (path === '/rogue/.well-known/openid-configuration') {
      state.reads.discovery += 1;
      return document({
        issuer: state.issuer,
        authorization_endpoint: `${state.issuer}/authorize`,
        token_endpoint: `${state.issuer}/token`,
        jwks_uri: `${state.issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (path === '/rogue/jwks') {
      state.reads.jwks += 1;
      return document({ keys: [jwk] });
    }
    if (path === '/rogue/token' && request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString());
        clientAuthenticated(form)
          .then(idToken)
          .then(
            (id_token) =>
              json({
                access_token: randomBytes(16).toString('hex'),
                token_type: 'Bearer',
                expires_in: 300,
                id_token,
              }),
            () => {
              response.writeHead(401, { 'content-type': 'application/json' });
              response.end(JSON.stringify({ error: 'invalid_client' }));
            },
          );
      });
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  state.issuer = `http://localhost:${port}/rogue`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
