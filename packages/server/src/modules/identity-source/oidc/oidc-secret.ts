import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { randomToken, type Sealer } from '../../../lib/crypto.ts';
import type { AnySource, OidcSettings } from '../identity-source.repo.ts';

/**
 * What an OpenID Connect source keeps sealed (one value in `secret_sealed`): the client secret
 * the upstream issued, and the private key Tessera signs its client assertions with
 * (private_key_jwt), generated here and published as a JWKS (its public half).
 */
export interface OidcSecret {
  clientSecret?: string;
  privateJwk?: JWK;
}

/** The source's secret, opened; `purpose` is the source's sealing purpose (secretPurpose). */
export function openOidcSecret(sealer: Sealer, sealed: string | null, purpose: string): OidcSecret {
  if (!sealed) return {};
  return JSON.parse(sealer.open(sealed, purpose)) as OidcSecret;
}

/** The public half of the source's client-assertion key, as its JWKS publishes it. */
export function publicJwkOf(secret: OidcSecret): JWK | undefined {
  if (!secret.privateJwk) return undefined;
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = secret.privateJwk;
  return publicJwk;
}

async function newAssertionKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomToken(12), alg: 'ES256', use: 'sig' };
}

/** Where the stored secret was sent: changing it needs the secret typed again. */
const secretTargetChanged = (before: OidcSettings, after: OidcSettings) =>
  before.issuer !== after.issuer || before.clientId !== after.clientId;

/**
 * The sealed secret of an OpenID Connect source after a save: the typed client secret (or the
 * stored one, when it goes to the same issuer and client), and a client-assertion key made once
 * when private_key_jwt is chosen. Undefined when a client secret is needed and missing.
 */
export async function sealOidcSecret(
  sealer: Sealer,
  purpose: string,
  settings: OidcSettings,
  typedSecret: string | undefined,
  before?: Pick<AnySource, 'secret_sealed' | 'settings'>,
): Promise<string | undefined> {
  const stored = before ? openOidcSecret(sealer, before.secret_sealed, purpose) : {};
  const keepStored = before && !secretTargetChanged(before.settings as OidcSettings, settings);
  const clientSecret = typedSecret ?? (keepStored ? stored.clientSecret : undefined);
  if (settings.clientAuth !== 'private_key_jwt' && !clientSecret) return undefined;
  const privateJwk =
    settings.clientAuth === 'private_key_jwt'
      ? (stored.privateJwk ?? (await newAssertionKey()))
      : stored.privateJwk;
  const secret: OidcSecret = {
    ...(clientSecret ? { clientSecret } : {}),
    ...(privateJwk ? { privateJwk } : {}),
  };
  return sealer.seal(JSON.stringify(secret), purpose);
}
