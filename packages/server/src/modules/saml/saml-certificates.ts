import { createHash, createPrivateKey, type KeyObject, webcrypto, X509Certificate } from 'node:crypto';
import { AppError } from '../../lib/errors.ts';

let peculiar: Promise<typeof import('@peculiar/x509')> | undefined;
/**
 * @peculiar/x509 (with reflect-metadata, which it needs first), loaded when the first identity
 * provider key is made: once per installation, so not worth its memory from start on.
 */
const loadX509 = () =>
  (peculiar ??= import('reflect-metadata').then(async () => {
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    return x509;
  }));

/** What the console shows of a certificate. */
export interface CertificateInfo {
  /** PEM. */
  pem: string;
  subject: string;
  /** Seconds since the epoch. */
  notBefore: number;
  notAfter: number;
  /** SHA-256 of the DER, hex pairs separated by colons (as openssl prints it). */
  fingerprint: string;
}

const seconds = (date: string) => Math.floor(new Date(date).getTime() / 1000);

export function certificateInfo(base64Der: string): CertificateInfo {
  const der = Buffer.from(base64Der, 'base64');
  const cert = new X509Certificate(der);
  return {
    pem: cert.toString(),
    subject: cert.subject.replace(/\n/g, ', '),
    notBefore: seconds(cert.validFrom),
    notAfter: seconds(cert.validTo),
    fingerprint: (createHash('sha256').update(der).digest('hex').match(/../g) ?? []).join(':').toUpperCase(),
  };
}

/**
 * A certificate an administrator pasted or a metadata document holds: PEM, or the bare base64
 * of its DER (as metadata and many consoles show it). Answers base64 DER; refuses anything that
 * is not an X.509 certificate with an RSA key (what SAML signatures and encryption here use).
 */
export function parseCertificate(text: string): string {
  const body = text
    .replace(/-----BEGIN CERTIFICATE-----/, '')
    .replace(/-----END CERTIFICATE-----/, '')
    .replace(/\s+/g, '');
  if (!body || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw new AppError('saml.certificate_invalid');
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    throw new AppError('saml.certificate_invalid');
  }
  if (cert.publicKey.asymmetricKeyType !== 'rsa') throw new AppError('saml.certificate_key_unsupported');
  return cert.raw.toString('base64');
}

/** A new identity provider key: RSA 2048 and a self-signed certificate valid for five years. */
export async function generateSigningKey(
  subject: string,
): Promise<{ privateKey: KeyObject; certificate: string; notAfter: Date }> {
  const algorithm = {
    name: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: 2048,
  };
  const x509 = await loadX509();
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 3600_000);
  const notAfter = new Date(Date.now() + 5 * 365 * 86_400_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    name: subject,
    notBefore,
    notAfter,
    keys: keys as CryptoKeyPair,
    signingAlgorithm: algorithm,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return {
    privateKey: createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }),
    certificate: Buffer.from(cert.rawData).toString('base64'),
    notAfter,
  };
}
