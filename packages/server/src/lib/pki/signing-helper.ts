import { createHash } from 'node:crypto';
import { defaultKeyStrength, type KeyAlgorithm } from '@tessera/contract';
import { readKeyFile } from './key-file.ts';
import { generateKeyPair, isValidStrength, loadPrivateKey, PkiError, type PrivateKeyHandle } from './keys.ts';
import { toPem } from './pem.ts';
import { parseCertificate } from './x509.ts';

/**
 * The signing side of UKEY and soft-lock factors, as a vendor's middleware does it: a key pair
 * made on the computer, its public key and id to register, and a signature of a sign-in
 * challenge. `npm run ukey` (cli/ukey.ts) is a command line over these; tests use them directly.
 */

/** The id a software key container is known by: the start of its public key's SHA-256. */
export const containerIdOf = (spki: Uint8Array) =>
  createHash('sha256').update(spki).digest('hex').slice(0, 16).toUpperCase();

/** A new key (PKCS#8 PEM), its public key (PEM) and its container id. */
export async function newKey(algorithm: KeyAlgorithm, strength?: string) {
  const chosen = strength ?? defaultKeyStrength[algorithm];
  if (!isValidStrength(algorithm, chosen)) throw new PkiError('unsupported_key');
  return describe(await generateKeyPair({ algorithm, strength: chosen }));
}

function describe(key: PrivateKeyHandle) {
  return {
    privateKeyPem: toPem('PRIVATE KEY', key.pkcs8),
    publicKeyPem: toPem('PUBLIC KEY', key.spki),
    containerId: containerIdOf(key.spki),
    info: key.info,
  };
}

/**
 * The key of a key file: PEM (PKCS#8, PKCS#1, SEC1, or encrypted PKCS#8 with `password`) or the
 * PKCS#12 file a company's CA hands out with its one-time password; with its certificate, if any.
 */
export async function openKeyFile(bytes: Uint8Array, password = '') {
  const contents = await readKeyFile(bytes, password);
  const [pkcs8] = contents.privateKeys;
  if (!pkcs8) throw new PkiError('malformed');
  const key = loadPrivateKey(pkcs8);
  const certificate = contents.certificates
    .map((der) => ({ der, parsed: parseCertificate(der) }))
    .find((c) => c.parsed.spki.equals(key.spki));
  return {
    ...describe(key),
    sign: (challenge: string) => key.sign(Buffer.from(challenge, 'utf8'), 'challenge').toString('base64'),
    certificatePem: certificate ? toPem('CERTIFICATE', certificate.der) : null,
  };
}
