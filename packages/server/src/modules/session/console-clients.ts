import { type ConsoleVariant, consoleVariants } from '@tessera/contract';
import type { ClientMetadata } from 'oidc-provider';
import type { Sealer } from '../../lib/crypto.ts';

export interface ConsoleClient {
  variant: ConsoleVariant;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scope: string;
}

export const consoleClientId = (variant: ConsoleVariant) => `tessera-console-${variant}`;

/**
 * Each console variant is its own registered OIDC client. Their secrets are derived from the
 * master key, so every instance agrees on them without storing them.
 */
export function consoleClients(publicUrl: string, sealer: Sealer): ConsoleClient[] {
  return consoleVariants.map((variant) => ({
    variant,
    clientId: consoleClientId(variant),
    clientSecret: sealer.derive(`console-client-secret:${variant}`).toString('base64url'),
    redirectUri: `${publicUrl}/${variant}/`,
    // offline_access: the console renews its session with the refresh token (session.service.ts).
    scope: 'openid profile email offline_access',
  }));
}

export const consoleClientMetadata = (client: ConsoleClient): ClientMetadata => ({
  client_id: client.clientId,
  client_secret: client.clientSecret,
  client_name: client.variant === 'admin' ? 'Tessera admin console' : 'Tessera console',
  redirect_uris: [client.redirectUri],
  post_logout_redirect_uris: [client.redirectUri],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  id_token_signed_response_alg: 'ES256',
});
