import { upstreamIdTokenAlgorithms } from '@tessera/contract';
import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose';
import type * as client from 'openid-client';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import type { OidcSettings } from '../identity-source.repo.ts';

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/**
 * A logout token the upstream provider posted (OpenID Connect Back-Channel Logout 1.0 §2.6):
 * signed by a key of the issuer's JWKS (read through the outbound rule) with an allowed alg, for
 * this client, with the back-channel event, a jti, an iat, no nonce, and a `sub` (Tessera links
 * people by `sub`; a token naming only a `sid` is refused). Answers the `sub`, or undefined.
 */
export async function verifyLogoutToken(
  config: client.Configuration,
  settings: Pick<OidcSettings, 'clientId' | 'idTokenAlgorithms'>,
  token: string,
  outbound: OutboundPolicy,
): Promise<string | undefined> {
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
      maxTokenAge: '10 minutes',
    });
    const events = payload.events as Record<string, unknown> | undefined;
    if (!events || typeof events[BACKCHANNEL_EVENT] !== 'object' || 'nonce' in payload) return undefined;
    return typeof payload.sub === 'string' && payload.sub ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}
