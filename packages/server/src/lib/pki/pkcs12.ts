import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  pbkdf2,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ContentInfo } from '@peculiar/asn1-cms';
import {
  AuthenticatedSafe,
  CertBag,
  MacData,
  PFX,
  PKCS12Attribute,
  SafeBag,
  SafeContents,
} from '@peculiar/asn1-pfx';
import { EncryptedPrivateKeyInfo } from '@peculiar/asn1-pkcs8';
import { DigestInfo } from '@peculiar/asn1-rsa';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import * as der from './der.ts';
import { PkiError } from './keys.ts';
import { oids } from './oids.ts';

/**
 * PKCS#12 (RFC 7292) as OpenSSL 3 writes it: keys in PKCS#8 shrouded bags and certificates in an
 * encrypted safe, both PBES2 (PBKDF2 with HMAC-SHA-256, AES-256-CBC), and an HMAC-SHA-256 MAC.
 * Reading also accepts the older PKCS#12 PBE with triple DES and SHA-1 MACs; RC2 is refused.
 * Iteration counts are bounded and the key derivations do not hold the event loop.
 */

const pbkdf2Async = promisify(pbkdf2);
export const PBKDF2_ITERATIONS = 2048;
const MAX_PBKDF2_ITERATIONS = 1_000_000;
const MAX_PKCS12_KDF_ITERATIONS = 200_000;

const hashes: Record<string, { name: string; block: number; size: number }> = {
  [oids.sha1]: { name: 'sha1', block: 64, size: 20 },
  [oids.sha256]: { name: 'sha256', block: 64, size: 32 },
  [oids.sha384]: { name: 'sha384', block: 128, size: 48 },
  [oids.sha512]: { name: 'sha512', block: 128, size: 64 },
};
const prfs: Record<string, string> = {
  [oids.hmacWithSha1]: 'sha1',
  [oids.hmacWithSha256]: 'sha256',
  [oids.hmacWithSha384]: 'sha384',
  [oids.hmacWithSha512]: 'sha512',
};
const ciphers: Record<string, { name: string; key: number }> = {
  [oids.aes128Cbc]: { name: 'aes-128-cbc', key: 16 },
  [oids.aes192Cbc]: { name: 'aes-192-cbc', key: 24 },
  [oids.aes256Cbc]: { name: 'aes-256-cbc', key: 32 },
  [oids.desEde3Cbc]: { name: 'des-ede3-cbc', key: 24 },
};

/** The password as PKCS#12's own derivation takes it: BMPString with a terminating zero. */
const bmpPassword = (password: string) =>
  Buffer.concat([Buffer.from(password, 'utf16le').swap16(), Buffer.alloc(2)]);

/** RFC 7292 appendix B.2 (id 1: key, 2: IV, 3: MAC key). */
export async function pkcs12Kdf(
  hashOid: string,
  password: string,
  salt: Buffer,
  iterations: number,
  id: 1 | 2 | 3,
  length: number,
): Promise<Buffer> {
  const hash = hashes[hashOid];
  if (!hash) throw new PkiError('encryption_unsupported');
  if (iterations < 1 || iterations > MAX_PKCS12_KDF_ITERATIONS) throw new PkiError('malformed');
  const v = hash.block;
  const fill = (data: Buffer) =>
    data.length ? Buffer.alloc(v * Math.ceil(data.length / v), data) : Buffer.alloc(0);
  const passwordBytes = password ? bmpPassword(password) : Buffer.alloc(0);
  const input = Buffer.concat([fill(salt), fill(passwordBytes)]);
  const diversifier = Buffer.alloc(v, id);
  const output: Buffer[] = [];
  for (let produced = 0; produced < length; produced += hash.size) {
    let a = createHash(hash.name).update(diversifier).update(input).digest();
    for (let i = 1; i < iterations; i++) {
      a = createHash(hash.name).update(a).digest();
      if (i % 4096 === 0) await yieldToLoop();
    }
    output.push(a);
    const b = Buffer.alloc(v, a);
    for (let j = 0; j < input.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = (input[j + k] ?? 0) + (b[k] ?? 0) + carry;
        input[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(output).subarray(0, length);
}

/** PBES2 parameters and ciphertext of `plain` (PBKDF2-HMAC-SHA-256, AES-256-CBC). */
async function pbes2Encrypt(plain: Buffer, password: string) {
  const salt = randomBytes(16);
  const iv = randomBytes(16);
  const key = await pbkdf2Async(Buffer.from(password, 'utf8'), salt, PBKDF2_ITERATIONS, 32, 'sha256');
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const encrypted = Buffer.concat([cipher.update(plain), cipher.final()]);
  const parameters = der.sequence(
    der.algorithm(
      oids.pbkdf2,
      der.sequence(
        der.octetString(salt),
        der.integer(PBKDF2_ITERATIONS),
        der.algorithm(oids.hmacWithSha256, Buffer.from([5, 0])),
      ),
    ),
    der.algorithm(oids.aes256Cbc, der.octetString(iv)),
  );
  return { algorithm: der.algorithm(oids.pbes2, parameters), encrypted };
}

/** Decrypts with the algorithm of an AlgorithmIdentifier (DER): PBES2, or PKCS#12 PBE with triple DES. */
async function decryptWith(algorithmDer: Buffer, encrypted: Buffer, password: string): Promise<Buffer> {
  const [oidNode, paramsNode] = der.children(der.read(algorithmDer).value);
  const algorithm = der.readOid(oidNode);
  let cipherName: string;
  let key: Buffer;
  let iv: Buffer;
  if (algorithm === oids.pbes2) {
    const [kdf, scheme] = der.children(paramsNode?.value ?? Buffer.alloc(0));
    const [kdfOid, kdfParams] = der.children(kdf?.value ?? Buffer.alloc(0));
    if (der.readOid(kdfOid) !== oids.pbkdf2) throw new PkiError('encryption_unsupported');
    const [saltNode, iterNode, ...rest] = der.children(kdfParams?.value ?? Buffer.alloc(0));
    const salt = der.readOctets(saltNode);
    const iterations = der.readInteger(iterNode, MAX_PBKDF2_ITERATIONS);
    const prfNode = rest.find((node) => node.tag === 0x30);
    const prf = prfNode ? prfs[der.readOid(der.children(prfNode.value)[0])] : 'sha1';
    const [schemeOid, ivNode] = der.children(scheme?.value ?? Buffer.alloc(0));
    const cipher = ciphers[der.readOid(schemeOid)];
    if (!prf || !cipher) throw new PkiError('encryption_unsupported');
    cipherName = cipher.name;
    iv = der.readOctets(ivNode);
    key = await pbkdf2Async(Buffer.from(password, 'utf8'), salt, iterations, cipher.key, prf);
  } else if (algorithm === oids.pbeSha1With3KeyTripleDes || algorithm === oids.pbeSha1With2KeyTripleDes) {
    const [saltNode, iterNode] = der.children(paramsNode?.value ?? Buffer.alloc(0));
    const salt = der.readOctets(saltNode);
    const iterations = der.readInteger(iterNode, MAX_PKCS12_KDF_ITERATIONS);
    const derived = await pkcs12Kdf(oids.sha1, password, salt, iterations, 1, 24);
    key =
      algorithm === oids.pbeSha1With3KeyTripleDes
        ? derived
        : Buffer.concat([derived.subarray(0, 16), derived.subarray(0, 8)]);
    iv = await pkcs12Kdf(oids.sha1, password, salt, iterations, 2, 8);
    cipherName = 'des-ede3-cbc';
  } else {
    // RC2 and 40-bit schemes (old exports) are refused rather than loaded from OpenSSL's legacy provider.
    throw new PkiError('encryption_unsupported');
  }
  try {
    const decipher = createDecipheriv(cipherName, key, iv);
    return Buffer.concat([decipher.update(encrypted), decipher.final()]);
  } catch {
    throw new PkiError('password');
  }
}

/** Decrypts a PKCS#8 EncryptedPrivateKeyInfo (DER) to its PrivateKeyInfo. */
export async function decryptPrivateKey(encryptedDer: Uint8Array, password: string): Promise<Buffer> {
  const info = parse(encryptedDer, EncryptedPrivateKeyInfo);
  return decryptWith(
    Buffer.from(AsnConvert.serialize(info.encryptionAlgorithm)),
    Buffer.from(info.encryptedData.buffer),
    password,
  );
}

function parse<T>(input: Uint8Array | ArrayBuffer, type: new () => T): T {
  try {
    return AsnConvert.parse(input, type);
  } catch {
    throw new PkiError('malformed');
  }
}

// PKCS12Attribute's constructor drops its parameters (asn1-pfx 2.11), so the fields are assigned.
const attribute = (attrId: string, value: ArrayBuffer) =>
  Object.assign(new PKCS12Attribute(), { attrId, attrValues: [value] });
const attributes = (friendlyName: string, localKeyId: Buffer) => [
  attribute(oids.localKeyId, AsnConvert.serialize(new OctetString(localKeyId))),
  attribute(
    oids.friendlyName,
    new Uint8Array(der.tlv(0x1e, Buffer.from(friendlyName, 'utf16le').swap16())).buffer,
  ),
];

const dataContent = (bytes: Uint8Array) =>
  new ContentInfo({ contentType: oids.data, content: AsnConvert.serialize(new OctetString(bytes)) });

/** A PKCS#12 file of a private key (PKCS#8 DER) with its certificate and the CA chain after it. */
export async function makePkcs12(input: {
  privateKey: Buffer;
  certificates: Buffer[];
  password: string;
  friendlyName: string;
}): Promise<Buffer> {
  const localKeyId = createHash('sha1')
    .update(input.certificates[0] ?? Buffer.alloc(0))
    .digest();
  const certBags = input.certificates.map(
    (certificate, index) =>
      new SafeBag({
        bagId: oids.certBag,
        bagValue: AsnConvert.serialize(
          new CertBag({
            certId: oids.x509Certificate,
            certValue: AsnConvert.serialize(new OctetString(certificate)),
          }),
        ),
        bagAttributes: index === 0 ? attributes(input.friendlyName, localKeyId) : undefined,
      }),
  );
  const certSafe = await pbes2Encrypt(
    Buffer.from(AsnConvert.serialize(new SafeContents(certBags))),
    input.password,
  );
  const encryptedData = der.sequence(
    der.integer(0),
    der.sequence(der.oid(oids.data), certSafe.algorithm, der.tlv(0x80, certSafe.encrypted)),
  );
  const shrouded = await pbes2Encrypt(input.privateKey, input.password);
  const keyBag = new SafeBag({
    bagId: oids.shroudedKeyBag,
    bagValue: new Uint8Array(der.sequence(shrouded.algorithm, der.octetString(shrouded.encrypted))).buffer,
    bagAttributes: attributes(input.friendlyName, localKeyId),
  });
  const authSafe = Buffer.from(
    AsnConvert.serialize(
      new AuthenticatedSafe([
        new ContentInfo({ contentType: oids.encryptedData, content: new Uint8Array(encryptedData).buffer }),
        dataContent(new Uint8Array(AsnConvert.serialize(new SafeContents([keyBag])))),
      ]),
    ),
  );
  const macSalt = randomBytes(16);
  const macKey = await pkcs12Kdf(oids.sha256, input.password, macSalt, PBKDF2_ITERATIONS, 3, 32);
  const pfx = new PFX({
    version: 3,
    authSafe: dataContent(authSafe),
    macData: new MacData({
      mac: new DigestInfo({
        digestAlgorithm: new AlgorithmIdentifier({ algorithm: oids.sha256, parameters: null }),
        digest: new OctetString(createHmac('sha256', macKey).update(authSafe).digest()),
      }),
      macSalt: new OctetString(macSalt),
      iterations: PBKDF2_ITERATIONS,
    }),
  });
  return Buffer.from(AsnConvert.serialize(pfx));
}

export interface Pkcs12Contents {
  /** PKCS#8 DER of each private key. */
  privateKeys: Buffer[];
  certificates: Buffer[];
}

const octetsOf = (content: ArrayBuffer) => Buffer.from(parse(content, OctetString).buffer);

/** Reads a PKCS#12 file: checks its MAC with the password, then decrypts its keys and certificates. */
export async function readPkcs12(bytes: Uint8Array, password: string): Promise<Pkcs12Contents> {
  const pfx = parse(bytes, PFX);
  if (pfx.authSafe.contentType !== oids.data) throw new PkiError('malformed');
  const authSafe = octetsOf(pfx.authSafe.content);
  if (pfx.macData) {
    const digestOid = pfx.macData.mac.digestAlgorithm.algorithm;
    const hash = hashes[digestOid];
    if (!hash) throw new PkiError('encryption_unsupported');
    const key = await pkcs12Kdf(
      digestOid,
      password,
      Buffer.from(pfx.macData.macSalt.buffer),
      pfx.macData.iterations ?? 1,
      3,
      hash.size,
    );
    const expected = createHmac(hash.name, key).update(authSafe).digest();
    const given = Buffer.from(pfx.macData.mac.digest.buffer);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new PkiError('password');
  }
  const contents: Pkcs12Contents = { privateKeys: [], certificates: [] };
  for (const info of parse(authSafe, AuthenticatedSafe)) {
    let safe: Buffer;
    if (info.contentType === oids.data) safe = octetsOf(info.content);
    else if (info.contentType === oids.encryptedData) {
      const [, encryptedContentInfo] = der.children(der.read(new Uint8Array(info.content)).value);
      const [, algorithmNode, contentNode] = der.children(encryptedContentInfo?.value ?? Buffer.alloc(0));
      if (!algorithmNode || contentNode?.tag !== 0x80) throw new PkiError('malformed');
      safe = await decryptWith(algorithmNode.raw, contentNode.value, password);
    } else throw new PkiError('encryption_unsupported');
    for (const bag of parse(safe, SafeContents)) {
      if (bag.bagId === oids.keyBag) contents.privateKeys.push(Buffer.from(bag.bagValue));
      else if (bag.bagId === oids.shroudedKeyBag)
        contents.privateKeys.push(await decryptPrivateKey(new Uint8Array(bag.bagValue), password));
      else if (bag.bagId === oids.certBag) {
        const cert = parse(bag.bagValue, CertBag);
        if (cert.certId === oids.x509Certificate) contents.certificates.push(octetsOf(cert.certValue));
      }
      if (contents.privateKeys.length + contents.certificates.length > 32) throw new PkiError('malformed');
    }
  }
  return contents;
}
