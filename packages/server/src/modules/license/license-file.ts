import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { type LicensePayload, licensePayload } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';

const BEGIN = '-----BEGIN TESSERA LICENSE-----';
const END = '-----END TESSERA LICENSE-----';

/**
 * The vendor's public key that Tessera trusts by default. The matching private key stays with
 * the vendor; TESSERA_LICENSE_PUBLIC_KEY replaces this key (for a private vendor, or tests).
 */
export const BUILT_IN_LICENSE_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAcNSAlmN+TrWUNQEf/p7VZFl0LtAH0+eFuGuCYaKfXTk=
-----END PUBLIC KEY-----`;

/** Reads a PEM or base64 (DER SPKI) Ed25519 public key; throws when it is anything else. */
export function parseLicensePublicKey(text: string): KeyObject {
  const key = text.includes('BEGIN')
    ? createPublicKey(text)
    : createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 public key');
  return key;
}

/** Signs a licence (the vendor command uses this). */
export function issueLicenseFile(payload: LicensePayload, privateKeyPem: string): string {
  const body = Buffer.from(JSON.stringify(licensePayload.parse(payload)), 'utf8');
  const signature = sign(null, body, createPrivateKey(privateKeyPem));
  const text = `${body.toString('base64url')}.${signature.toString('base64url')}`;
  const lines = text.match(/.{1,64}/g) ?? [];
  return `${BEGIN}\n${lines.join('\n')}\n${END}\n`;
}

/** Verifies a licence file against the trusted key and returns its content. */
export function readLicenseFile(text: string, trusted: KeyObject): LicensePayload {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new AppError('license.malformed');
  const compact = text.slice(start + BEGIN.length, end).replace(/\s+/g, '');
  const [bodyText, signatureText, extra] = compact.split('.');
  if (!bodyText || !signatureText || extra !== undefined) throw new AppError('license.malformed');
  const body = Buffer.from(bodyText, 'base64url');
  const signature = Buffer.from(signatureText, 'base64url');
  if (signature.length !== 64 || !verify(null, body, trusted, signature))
    throw new AppError('license.bad_signature');
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError('license.malformed');
  }
  const parsed = licensePayload.safeParse(json);
  if (!parsed.success) throw new AppError('license.malformed');
  return parsed.data;
}
