import { upstreamIdTokenAlgorithms } from '@tessera/contract';
import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose';
import * as client from 'openid-client';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import type { OidcSettings } from '../identity-source.repo.ts';

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token older than this (by its iat) is refused; its jti is kept as long (and a minute of skew). */
const TOKEN_MAX_AGE_SECONDS = 600;

/**
 * A logout token the upstream provider posted (OpenID Connect Back-Channel Logout 1.0 §2.6):
 * signed by a key of the issuer's JWKS (read through the outbound rule) with an allowed alg, for
 * this client, with the back-channel event, a jti, an iat, no nonce, and a `sub`, a `sid` or both
 * (§2.4). Answers them with the token's `jti` and when it stops being accepted (the caller
 * refuses a jti used before), or undefined.
 */
export async function verifyLogoutToken(
  config: client.Configuration,
  settings: Pick<OidcSettings, 'clientId' | 'idTokenAlgorithms'>,
  token: string,
  outbound: OutboundPolicy,
): Promise<{ subject?: string; sid?: string; jti: string; acceptedUntil: Date } | undefined> {
  const metadata = config.serverMetadata();
  if (!metadata.jwks_uri || !token || token.length > 16_384) return undefined;
  const keys = createRemoteJWKSet(new URL(metadata.jwks_uri), {
    [customFetch]: (url, options) => outbound.fetch(url, options),
  });
  try {
    const { payload } = await jwtVerify(token, keys, {
      issuer: metadata.issuer,
      audience: settings.clientId,
      algorithms: settings.idTokenAlgorithms.length
        ? settings.idTokenAlgorithms
        : [...upstreamIdTokenAlgorithms],
      requiredClaims: ['iat', 'jti', 'events'],
      maxTokenAge: TOKEN_MAX_AGE_SECONDS,
    });
    const events = payload.events as Record<string, unknown> | undefined;
    if (!events || typeof events[BACKCHANNEL_EVENT] !== 'object' || 'nonce' in payload) return undefined;
    const subject = claimOf(payload.sub);
    const sid = claimOf(payload.sid);
    if (subject === null || sid === null || (!subject && !sid)) return undefined;
    if (typeof payload.jti !== 'string' || !payload.jti || payload.jti.length > 256) return undefined;
    const acceptedUntil = new Date(((payload.iat as number) + TOKEN_MAX_AGE_SECONDS + 60) * 1000);
    return { subject, sid, jti: payload.jti, acceptedUntil };
  } catch {
    return undefined;
  }
}

/** A `sub` or `sid` claim: absent (undefined), a usable string, or null when it is malformed. */
const claimOf = (value: unknown): string | undefined | null => {
  if (value === undefined) return undefined;
  return typeof value === 'string' && value && value.length <= 256 ? value : null;
};

/**
 * Where the browser goes to sign out at the provider too (RP-Initiated Logout 1.0): its
 * end_session_endpoint with the ID token of the sign-in, the post-logout redirect URI registered
 * there and the state; undefined when the provider has no such endpoint.
 */
export function upstreamEndSessionUrl(
  config: client.Configuration,
  at: { idTokenHint: string | null; postLogoutRedirectUri: string; state: string },
): string | undefined {
  if (!config.serverMetadata().end_session_endpoint) return undefined;
  return client.buildEndSessionUrl(config, {
    ...(at.idTokenHint ? { id_token_hint: at.idTokenHint } : {}),
    post_logout_redirect_uri: at.postLogoutRedirectUri,
    state: at.state,
  }).href;
}
