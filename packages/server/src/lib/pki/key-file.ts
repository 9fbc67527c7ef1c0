import { ECParameters, ECPrivateKey } from '@peculiar/asn1-ecc';
import { PrivateKey, PrivateKeyInfo } from '@peculiar/asn1-pkcs8';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import { PkiError } from './keys.ts';
import { oids } from './oids.ts';
import { looksLikePem, pemBlocks } from './pem.ts';
import { decryptPrivateKey, type Pkcs12Contents, readPkcs12 } from './pkcs12.ts';

/**
 * A file of keys and certificates as administrators have them: PEM (certificates with a PKCS#8
 * key, encrypted or not, or a PKCS#1 / SEC1 key) or PKCS#12 (.p12, .pfx). Keys come out as PKCS#8.
 */
export async function readKeyFile(bytes: Uint8Array, password: string): Promise<Pkcs12Contents> {
  if (!looksLikePem(bytes)) return readPkcs12(bytes, password);
  const contents: Pkcs12Contents = { privateKeys: [], certificates: [] };
  for (const block of pemBlocks(Buffer.from(bytes).toString('latin1'))) {
    // Legacy OpenSSL encryption (Proc-Type) uses MD5 as its key derivation: refused.
    if (block.encrypted) throw new PkiError('encryption_unsupported');
    switch (block.label) {
      case 'CERTIFICATE':
        contents.certificates.push(block.der);
        break;
      case 'PRIVATE KEY':
        contents.privateKeys.push(block.der);
        break;
      case 'ENCRYPTED PRIVATE KEY':
        if (!password) throw new PkiError('password');
        contents.privateKeys.push(await decryptPrivateKey(block.der, password));
        break;
      case 'RSA PRIVATE KEY':
        contents.privateKeys.push(wrap(oids.rsaEncryption, null, block.der));
        break;
      case 'EC PRIVATE KEY':
        contents.privateKeys.push(sec1ToPkcs8(block.der));
        break;
    }
  }
  return contents;
}

function wrap(algorithm: string, parameters: ArrayBuffer | null, key: Uint8Array) {
  return Buffer.from(
    AsnConvert.serialize(
      new PrivateKeyInfo({
        privateKeyAlgorithm: new AlgorithmIdentifier({ algorithm, parameters }),
        privateKey: new PrivateKey(new Uint8Array(key).buffer),
      }),
    ),
  );
}

function sec1ToPkcs8(der: Buffer) {
  let curve: string | undefined;
  try {
    curve = AsnConvert.parse(der, ECPrivateKey).parameters?.namedCurve;
  } catch {
    throw new PkiError('malformed');
  }
  if (!curve) throw new PkiError('unsupported_key');
  return wrap(oids.ecPublicKey, AsnConvert.serialize(new ECParameters({ namedCurve: curve })), der);
}
