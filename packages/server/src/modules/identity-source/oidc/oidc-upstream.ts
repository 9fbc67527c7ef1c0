import { upstreamIdTokenAlgorithms } from '@tessera/contract';
import { importJWK } from 'jose';
import * as client from 'openid-client';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import { refusalMessage } from '../../../lib/outbound-address.ts';
import type { OidcSettings } from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import type { UpstreamIdentity } from '../upstream/upstream-identity.ts';
import type { DocumentRead, Jwks, UpstreamDocuments } from './oidc-documents.ts';
import type { OidcSecret } from './oidc-secret.ts';

/**
 * Tessera as the relying party of an upstream OpenID provider, through openid-client (panva):
 * discovery, the authorization code flow with PKCE, state and nonce, the ID token checked
 * against the issuer's JWKS (signature, alg allow-list, iss, aud, exp, nonce, azp), userinfo
 * when the ID token lacks a claim the settings name. Every request it makes (discovery, JWKS,
 * token, userinfo) goes through the outbound-address rule.
 */

/** What a failure of openid-client or the network says, or the outbound rule's refusal. */
function failureOf(
  reason: 'upstream.discovery_failed' | 'upstream.token_failed',
  error: unknown,
): SourceFailure {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause) {
    if ((cause as { code?: string }).code === 'EADDRREFUSED') {
      const refusal = refusalMessage(cause);
      return new SourceFailure(refusal.reason, refusal.params);
    }
  }
  if (error instanceof SourceFailure) return error;
  const detail =
    error instanceof client.ResponseBodyError
      ? `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`
      : error instanceof Error
        ? error.message
        : String(error);
  return new SourceFailure(reason, { detail: detail.slice(0, 300) });
}

/**
 * The openid-client configuration of a source: discovery at its issuer, its client
 * authentication. With `kept`, the discovery document and JWKS come from the source's kept
 * documents (oidc-documents.ts), read again only when their lifetime is over or, for the JWKS,
 * when an ID token names a key it lacks; without, discovery is read now (the Test action).
 */
export async function upstreamConfiguration(
  settings: Pick<OidcSettings, 'issuer' | 'clientId' | 'clientAuth'>,
  secret: OidcSecret,
  outbound: OutboundPolicy,
  kept?: { documents: UpstreamDocuments; key: string },
): Promise<client.Configuration> {
  const fetchThroughRule: client.CustomFetch = (url, options) =>
    outbound.fetch(url, options as RequestInit) as ReturnType<client.CustomFetch>;
  let auth: client.ClientAuth;
  if (settings.clientAuth === 'private_key_jwt') {
    if (!secret.privateJwk) throw new SourceFailure('identity_source.secret_required');
    const key = (await importJWK(secret.privateJwk, 'ES256')) as CryptoKey;
    auth = client.PrivateKeyJwt({ key, kid: secret.privateJwk.kid });
  } else if (settings.clientAuth === 'client_secret_post') {
    auth = client.ClientSecretPost(secret.clientSecret);
  } else {
    auth = client.ClientSecretBasic(secret.clientSecret);
  }
  // The ID token's signature is checked with the issuer's JWKS even though it comes straight
  // from the token endpoint (openid-client would otherwise trust the connection for it).
  const execute = settings.issuer.startsWith('http:')
    ? [client.allowInsecureRequests, client.enableNonRepudiationChecks]
    : [client.enableNonRepudiationChecks];
  const discover = async () => {
    let cacheControl: string | null = null;
    const recording: client.CustomFetch = async (url, options) => {
      const response = await fetchThroughRule(url, options);
      cacheControl = response.headers.get('cache-control');
      return response;
    };
    try {
      const config = await client.discovery(new URL(settings.issuer), settings.clientId, undefined, auth, {
        [client.customFetch]: recording,
        execute,
        timeout: 10,
      });
      return { config, cacheControl };
    } catch (error) {
      throw failureOf('upstream.discovery_failed', error);
    }
  };
  if (!kept) {
    const { config } = await discover();
    config[client.customFetch] = fetchThroughRule;
    return config;
  }
  const metadata = await kept.documents.discovery(kept.key, async () => {
    const { config, cacheControl } = await discover();
    return { value: config.serverMetadata(), cacheControl };
  });
  const config = new client.Configuration(metadata, settings.clientId, undefined, auth);
  for (const step of execute) step(config);
  config.timeout = 10;
  const jwksUri = metadata.jwks_uri ? new URL(metadata.jwks_uri).href : undefined;
  const readKeys: DocumentRead<Jwks> = async () => {
    const response = await outbound.fetch(jwksUri as string, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const jwks = (await response.json()) as Jwks;
    if (!Array.isArray(jwks?.keys)) throw new Error('no keys');
    return { value: jwks, cacheControl: response.headers.get('cache-control') };
  };
  // openid-client asks for the JWKS only when an ID token names a key the kept set lacks.
  config[client.customFetch] = async (url, options) => {
    if (!jwksUri || new URL(url).href !== jwksUri) return fetchThroughRule(url, options);
    const jwks = await kept.documents.keys(kept.key, readKeys, true);
    return new Response(JSON.stringify(jwks), { headers: { 'content-type': 'application/json' } });
  };
  if (jwksUri) {
    const jwks = await kept.documents.keys(kept.key, readKeys).catch(() => undefined);
    // Marked a minute old: fresh to openid-client (under five minutes), yet old enough that a
    // token naming a key the set lacks makes it ask again, which the fetch above answers.
    if (jwks) client.setJwksCache(config, { jwks: jwks as never, uat: Math.floor(Date.now() / 1000) - 60 });
  }
  return config;
}

/** The provider's signing keys (the Test action: what ID tokens will be checked with). */
export async function readUpstreamKeys(config: client.Configuration, outbound: OutboundPolicy) {
  const metadata = config.serverMetadata();
  if (!metadata.jwks_uri) throw new SourceFailure('upstream.keys_failed', { detail: 'no jwks_uri' });
  try {
    const response = await outbound.fetch(metadata.jwks_uri, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const jwks = (await response.json()) as { keys?: { kid?: string; alg?: string; use?: string }[] };
    if (!Array.isArray(jwks.keys)) throw new Error('no keys');
    return jwks.keys.filter((key) => key.use !== 'enc');
  } catch (error) {
    const failure = failureOf('upstream.discovery_failed', error);
    throw failure.reason === 'upstream.discovery_failed'
      ? new SourceFailure('upstream.keys_failed', failure.params)
      : failure;
  }
}

/** The checks of one sign-in: what the state row keeps. */
export interface UpstreamChecks {
  nonce: string;
  codeVerifier: string;
}

export function newUpstreamChecks(): UpstreamChecks {
  return { nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
}

/** Where the browser goes to sign in at the provider. */
export async function upstreamAuthorizationUrl(
  config: client.Configuration,
  settings: Pick<OidcSettings, 'scopes'>,
  at: { redirectUri: string; state: string; checks: UpstreamChecks; loginHint?: string },
): Promise<string> {
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: at.redirectUri,
    scope: settings.scopes,
    state: at.state,
    nonce: at.checks.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(at.checks.codeVerifier),
    code_challenge_method: 'S256',
    ...(at.loginHint ? { login_hint: at.loginHint } : {}),
  });
  return url.href;
}

const claimText = (claims: Record<string, unknown>, name: string | null | undefined) => {
  if (!name) return null;
  const value = claims[name];
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, 254) : null;
};

/** The header's alg of a compact JWS. */
const algOf = (jwt: string) => {
  try {
    return (JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as { alg?: string }).alg;
  } catch {
    return undefined;
  }
};

/**
 * The provider's answer at the callback (`callbackUrl` with the query it sent): the code
 * exchanged (PKCE verifier, state, nonce), the ID token verified, and who the person is.
 */
export async function finishUpstreamSignIn(
  config: client.Configuration,
  settings: OidcSettings,
  callback: { url: URL; state: string; checks: UpstreamChecks },
): Promise<UpstreamIdentity> {
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, callback.url, {
      pkceCodeVerifier: callback.checks.codeVerifier,
      expectedState: callback.state,
      expectedNonce: callback.checks.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    const failure = failureOf('upstream.token_failed', error);
    const validation = error instanceof Error && !(error instanceof client.ResponseBodyError);
    throw validation && failure.reason === 'upstream.token_failed'
      ? new SourceFailure('upstream.id_token_invalid', failure.params)
      : failure;
  }
  // The signature was checked with the alg the token names, among those openid-client supports
  // (never none or HMAC); the source may narrow the list.
  const allowed = settings.idTokenAlgorithms.length ? settings.idTokenAlgorithms : upstreamIdTokenAlgorithms;
  const alg = algOf(tokens.id_token ?? '');
  if (!alg || !(allowed as readonly string[]).includes(alg))
    throw new SourceFailure('upstream.id_token_invalid', { detail: `alg ${alg ?? 'missing'} not allowed` });
  const idClaims = tokens.claims();
  if (!idClaims) throw new SourceFailure('upstream.id_token_invalid', { detail: 'no ID token' });
  let claims: Record<string, unknown> = { ...idClaims };
  const wanted = [
    settings.usernameClaim,
    settings.nameClaim,
    settings.emailClaim,
    settings.phoneClaim,
    settings.groupsClaim,
  ].filter((name): name is string => Boolean(name));
  if (wanted.some((name) => claims[name] === undefined) && config.serverMetadata().userinfo_endpoint) {
    try {
      const userinfo = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      claims = { ...userinfo, ...claims };
    } catch (error) {
      throw failureOf('upstream.token_failed', error);
    }
  }
  const username = claimText(claims, settings.usernameClaim);
  if (!username) throw new SourceFailure('upstream.claim_missing', { claim: settings.usernameClaim });
  const groups = settings.groupsClaim ? claims[settings.groupsClaim] : undefined;
  const amr = Array.isArray(idClaims.amr) ? idClaims.amr.map(String) : [];
  const acr = typeof idClaims.acr === 'string' ? idClaims.acr : undefined;
  return {
    externalId: idClaims.sub,
    username,
    name: claimText(claims, settings.nameClaim),
    email: claimText(claims, settings.emailClaim),
    phone: claimText(claims, settings.phoneClaim),
    groups: Array.isArray(groups) ? groups.map(String).slice(0, 200) : [],
    // Counted only when the source trusts the provider's second factor at all.
    upstreamMfa:
      settings.trustUpstreamMfa &&
      ((acr !== undefined && settings.mfaAcrValues.includes(acr)) ||
        amr.some((value) => settings.mfaAmrValues.includes(value))),
    session: {
      idToken: tokens.id_token as string,
      sid: typeof idClaims.sid === 'string' ? idClaims.sid : null,
    },
  };
}
