import {
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  generateKeyPair as nodeGenerateKeyPair,
  sign as nodeSign,
  verify as nodeVerify,
  randomBytes,
} from 'node:crypto';
import { promisify } from 'node:util';
import { ECParameters, ECPrivateKey } from '@peculiar/asn1-ecc';
import { PrivateKey, PrivateKeyInfo } from '@peculiar/asn1-pkcs8';
import { RSAPublicKey } from '@peculiar/asn1-rsa';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, SubjectPublicKeyInfo } from '@peculiar/asn1-x509';
import { type KeyAlgorithm, type KeyStrength, keyStrengths } from '@tessera/contract';
import { BigInteger } from 'jsbn';
import { sm2 } from 'sm-crypto';
import { oids } from './oids.ts';

/**
 * Keys of the three algorithms of spec §5 (RSA 2048/3072/4096, ECC P-256/384/521, SM2), as
 * PKCS#8 and SubjectPublicKeyInfo DER.
 *
 * SM2 never touches Node's crypto: Node cannot make standard SM2 signatures, and a key it imports
 * as SM2 aborts the process when exported (an assertion in node::crypto). So every key is
 * classified from its ASN.1 first; RSA and NIST curves go to Node, SM2 to sm-crypto, with the
 * signing nonce taken from the system's CSPRNG (sm-crypto's own generator is RC4-based).
 */

export interface KeyInfo {
  algorithm: KeyAlgorithm;
  strength: KeyStrength;
}

export type PkiProblem =
  | 'malformed'
  | 'unsupported_key'
  | 'bad_signature'
  | 'password'
  | 'encryption_unsupported';

/** Input that is not the key, certificate or file it claims to be; `problem` says how. */
export class PkiError extends Error {
  constructor(readonly problem: PkiProblem) {
    super(`pki: ${problem}`);
  }
}

const curveStrength: Record<string, KeyStrength> = {
  [oids.p256]: 'P-256',
  [oids.p384]: 'P-384',
  [oids.p521]: 'P-521',
  [oids.sm2Curve]: 'SMP256',
};
/** Uncompressed point sizes (0x04 || X || Y). */
const pointBytes: Record<string, number> = { 'P-256': 65, 'P-384': 97, 'P-521': 133, SMP256: 65 };
/** The hash an ECDSA signature of each curve uses (as strong as the curve). */
export const ecdsaHash: Record<string, 'sha256' | 'sha384' | 'sha512'> = {
  'P-256': 'sha256',
  'P-384': 'sha384',
  'P-521': 'sha512',
};

/** SM2's default distinguishing identifier (GM/T 0009), used in every SM2 signature here. */
export const SM2_DEFAULT_ID = '1234567812345678';

export const isValidStrength = (algorithm: KeyAlgorithm, strength: string): strength is KeyStrength =>
  (keyStrengths[algorithm] as readonly string[]).includes(strength);

const toBuffer = (value: ArrayBuffer | ArrayBufferView) =>
  ArrayBuffer.isView(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : Buffer.from(new Uint8Array(value));

function parseDer<T>(der: Uint8Array, type: new () => T): T {
  try {
    return AsnConvert.parse(der, type);
  } catch {
    throw new PkiError('malformed');
  }
}

const namedCurveOf = (parameters: ArrayBuffer | null | undefined) =>
  parameters ? parseDer(new Uint8Array(parameters), ECParameters).namedCurve : undefined;

/** The algorithm and strength of a SubjectPublicKeyInfo; anything outside spec §5 is refused. */
export function describePublicKey(spkiDer: Uint8Array): KeyInfo {
  const spki = parseDer(spkiDer, SubjectPublicKeyInfo);
  const key = toBuffer(spki.subjectPublicKey);
  if (spki.algorithm.algorithm === oids.rsaEncryption) {
    const rsa = parseDer(key, RSAPublicKey);
    const modulus = toBuffer(rsa.modulus);
    let start = 0;
    while (start < modulus.length && modulus[start] === 0) start++;
    const first = modulus[start] ?? 0;
    const bits = (modulus.length - start) * 8 - (Math.clz32(first) - 24);
    const strength = String(bits);
    if (!isValidStrength('rsa', strength)) throw new PkiError('unsupported_key');
    return { algorithm: 'rsa', strength };
  }
  if (spki.algorithm.algorithm === oids.ecPublicKey) {
    const strength = curveStrength[namedCurveOf(spki.algorithm.parameters) ?? ''];
    if (!strength || key.length !== pointBytes[strength] || key[0] !== 4)
      throw new PkiError('unsupported_key');
    if (strength === 'SMP256') {
      if (!sm2.verifyPublicKey(key.toString('hex'))) throw new PkiError('unsupported_key');
      return { algorithm: 'sm2', strength };
    }
    return { algorithm: 'ecc', strength };
  }
  throw new PkiError('unsupported_key');
}

/** The raw public key bits (for SM2: 04 || X || Y). */
const publicKeyBits = (spkiDer: Uint8Array) =>
  toBuffer(parseDer(spkiDer, SubjectPublicKeyInfo).subjectPublicKey);

/** A Node key object of an RSA or NIST-curve public key (never SM2: see above). */
function nodePublicKey(spkiDer: Uint8Array, info: KeyInfo): KeyObject {
  if (info.algorithm === 'sm2') throw new Error('SM2 keys are not given to Node');
  try {
    return createPublicKey({ key: Buffer.from(spkiDer), format: 'der', type: 'spki' });
  } catch {
    throw new PkiError('unsupported_key');
  }
}

function sm2Spki(publicKeyHex: string): Buffer {
  return Buffer.from(
    AsnConvert.serialize(
      new SubjectPublicKeyInfo({
        algorithm: new AlgorithmIdentifier({
          algorithm: oids.ecPublicKey,
          parameters: AsnConvert.serialize(new ECParameters({ namedCurve: oids.sm2Curve })),
        }),
        subjectPublicKey: new Uint8Array(Buffer.from(publicKeyHex, 'hex')).buffer,
      }),
    ),
  );
}

function sm2Pkcs8(privateKeyHex: string, publicKeyHex: string): Buffer {
  const ecKey = new ECPrivateKey({
    version: 1,
    privateKey: new OctetString(Buffer.from(privateKeyHex, 'hex')),
    publicKey: new Uint8Array(Buffer.from(publicKeyHex, 'hex')).buffer,
  });
  return Buffer.from(
    AsnConvert.serialize(
      new PrivateKeyInfo({
        privateKeyAlgorithm: new AlgorithmIdentifier({
          algorithm: oids.ecPublicKey,
          parameters: AsnConvert.serialize(new ECParameters({ namedCurve: oids.sm2Curve })),
        }),
        privateKey: new PrivateKey(AsnConvert.serialize(ecKey)),
      }),
    ),
  );
}

/** A scalar in [1, n-1] from the CSPRNG, as sm-crypto takes it (64 random bits beyond n keep the bias negligible). */
const sm2Scalar = () => sm2.generateKeyPairHex(randomBytes(40).toString('hex'), 16);

/** An SM2 signature (SM3 hash with the default distinguishing id), DER, with a CSPRNG nonce. */
function sm2Sign(privateKeyHex: string, publicKeyHex: string, data: Uint8Array): Buffer {
  const nonce = sm2Scalar();
  const point = {
    ...nonce,
    k: new BigInteger(nonce.privateKey, 16),
    x1: new BigInteger(nonce.publicKey.slice(2, 66), 16),
  };
  const signature = sm2.doSignature(Array.from(data), privateKeyHex, {
    der: true,
    hash: true,
    publicKey: publicKeyHex,
    userId: SM2_DEFAULT_ID,
    pointPool: [point as never],
  });
  return Buffer.from(signature, 'hex');
}

export interface PrivateKeyHandle {
  info: KeyInfo;
  spki: Buffer;
  pkcs8: Buffer;
  /** `x509`: what certificates and CRLs are signed with (RSA PKCS#1 v1.5); `challenge`: RSA-PSS. */
  sign(data: Uint8Array, scheme?: 'x509' | 'challenge'): Buffer;
}

/** Reads a PKCS#8 private key (DER) of one of the supported algorithms. */
export function loadPrivateKey(pkcs8Der: Uint8Array): PrivateKeyHandle {
  const info = parseDer(pkcs8Der, PrivateKeyInfo);
  const algorithm = info.privateKeyAlgorithm.algorithm;
  const pkcs8 = Buffer.from(pkcs8Der);
  if (algorithm === oids.ecPublicKey && namedCurveOf(info.privateKeyAlgorithm.parameters) === oids.sm2Curve) {
    const ecKey = parseDer(toBuffer(info.privateKey.buffer), ECPrivateKey);
    const d = toBuffer(ecKey.privateKey.buffer).toString('hex').padStart(64, '0');
    if (d.length !== 64) throw new PkiError('unsupported_key');
    const publicKeyHex = sm2.getPublicKeyFromPrivateKey(d);
    const spki = sm2Spki(publicKeyHex);
    return {
      info: { algorithm: 'sm2', strength: 'SMP256' },
      spki,
      pkcs8,
      sign: (data) => sm2Sign(d, publicKeyHex, data),
    };
  }
  if (algorithm !== oids.rsaEncryption && algorithm !== oids.ecPublicKey)
    throw new PkiError('unsupported_key');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  } catch {
    throw new PkiError('malformed');
  }
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  const keyInfo = describePublicKey(spki);
  return {
    info: keyInfo,
    spki,
    pkcs8,
    sign(data, scheme = 'x509') {
      if (keyInfo.algorithm === 'rsa')
        return scheme === 'challenge'
          ? nodeSign('sha256', data, { key, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: 32 })
          : nodeSign('sha256', data, key);
      return nodeSign(ecdsaHash[keyInfo.strength] ?? 'sha256', data, { key, dsaEncoding: 'der' });
    },
  };
}

const generate = promisify(nodeGenerateKeyPair);

/** A new key pair (RSA and NIST curves by OpenSSL on the thread pool; SM2 from the CSPRNG). */
export async function generateKeyPair(info: KeyInfo): Promise<PrivateKeyHandle> {
  if (info.algorithm === 'sm2') {
    const pair = sm2Scalar();
    return loadPrivateKey(sm2Pkcs8(pair.privateKey, pair.publicKey));
  }
  const { privateKey } =
    info.algorithm === 'rsa'
      ? await generate('rsa', { modulusLength: Number(info.strength) })
      : await generate('ec', { namedCurve: info.strength });
  return loadPrivateKey(privateKey.export({ format: 'der', type: 'pkcs8' }));
}

/**
 * The signature algorithms accepted on certificates, CRLs and certificate requests, with the
 * key algorithm each belongs to and its hash (SM2 hashes with SM3 inside sm-crypto).
 */
const signatureAlgorithms: Record<string, { key: KeyAlgorithm; hash: string }> = {
  [oids.sha256WithRsa]: { key: 'rsa', hash: 'sha256' },
  [oids.sha384WithRsa]: { key: 'rsa', hash: 'sha384' },
  [oids.sha512WithRsa]: { key: 'rsa', hash: 'sha512' },
  [oids.ecdsaWithSha256]: { key: 'ecc', hash: 'sha256' },
  [oids.ecdsaWithSha384]: { key: 'ecc', hash: 'sha384' },
  [oids.ecdsaWithSha512]: { key: 'ecc', hash: 'sha512' },
  [oids.sm2WithSm3]: { key: 'sm2', hash: 'sm3' },
};

/** What a key of `info` signs certificates and CRLs with (RSA: SHA-256; ECDSA: the curve's hash). */
export function x509SignatureAlgorithm(info: KeyInfo): AlgorithmIdentifier {
  if (info.algorithm === 'rsa')
    return new AlgorithmIdentifier({ algorithm: oids.sha256WithRsa, parameters: null });
  if (info.algorithm === 'sm2') return new AlgorithmIdentifier({ algorithm: oids.sm2WithSm3 });
  const hash = ecdsaHash[info.strength];
  return new AlgorithmIdentifier({
    algorithm:
      hash === 'sha512'
        ? oids.ecdsaWithSha512
        : hash === 'sha384'
          ? oids.ecdsaWithSha384
          : oids.ecdsaWithSha256,
  });
}

/** Verifies an X.509-style signature (certificate, CRL, CSR) of `data` by the key `spkiDer`. */
export function verifyX509Signature(
  spkiDer: Uint8Array,
  algorithmOid: string,
  data: Uint8Array,
  signature: Uint8Array,
): boolean {
  const algorithm = signatureAlgorithms[algorithmOid];
  const info = describePublicKey(spkiDer);
  if (!algorithm || algorithm.key !== info.algorithm) return false;
  if (info.algorithm === 'sm2') return sm2Verify(spkiDer, data, signature);
  const key = nodePublicKey(spkiDer, info);
  try {
    return nodeVerify(
      algorithm.hash,
      data,
      info.algorithm === 'ecc' ? { key, dsaEncoding: 'der' } : key,
      signature,
    );
  } catch {
    return false;
  }
}

function sm2Verify(spkiDer: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  try {
    return sm2.doVerifySignature(
      Array.from(data),
      Buffer.from(signature).toString('hex'),
      publicKeyBits(spkiDer).toString('hex'),
      { der: true, hash: true, userId: SM2_DEFAULT_ID },
    );
  } catch {
    return false;
  }
}

/**
 * Verifies a UKEY / soft-lock challenge signature by the key `spkiDer`: RSA-PSS with SHA-256
 * (salt 32 bytes), ECDSA with the curve's hash, or SM2 with SM3 and the default id (DER).
 */
export function verifyChallengeSignature(
  spkiDer: Uint8Array,
  data: Uint8Array,
  signature: Uint8Array,
): boolean {
  const info = describePublicKey(spkiDer);
  if (info.algorithm === 'sm2') return sm2Verify(spkiDer, data, signature);
  const key = nodePublicKey(spkiDer, info);
  try {
    if (info.algorithm === 'rsa')
      return nodeVerify(
        'sha256',
        data,
        { key, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: 32 },
        signature,
      );
    return nodeVerify(ecdsaHash[info.strength] ?? 'sha256', data, { key, dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
}

/** Whether a private key (PKCS#8) and a public key (SPKI) are one pair. */
export function keysMatch(privateKey: PrivateKeyHandle, spkiDer: Uint8Array): boolean {
  return (
    privateKey.spki.equals(Buffer.from(spkiDer)) ||
    publicKeyBits(privateKey.spki).equals(publicKeyBits(spkiDer))
  );
}
