import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AccessDescription,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityInfoAccessSyntax,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  CertificateList,
  CRLDistributionPoints,
  CRLNumber,
  CRLReason,
  CRLReasons,
  DistributionPoint,
  DistributionPointName,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  GeneralName,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  RevokedCertificate,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  TBSCertList,
  Time,
  Validity,
  Version,
} from '@peculiar/asn1-x509';
import type { RevocationReason } from '@tessera/contract';
import {
  describePublicKey,
  type KeyInfo,
  PkiError,
  type PrivateKeyHandle,
  verifyX509Signature,
  x509SignatureAlgorithm,
} from './keys.ts';
import { oids } from './oids.ts';

/** X.509 certificates, CRLs and certificate requests (RFC 5280, RFC 2986) of every supported algorithm. */

const toBuffer = (value: ArrayBuffer) => Buffer.from(new Uint8Array(value));
const arrayBufferOf = (bytes: Uint8Array) => new Uint8Array(bytes).buffer;

const ext = (extnID: string, critical: boolean, value: unknown) =>
  new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });

export interface SubjectFields {
  commonName: string;
  organization?: string | null;
  organizationalUnit?: string | null;
}

const attribute = (type: string, value: string) =>
  new RelativeDistinguishedName([
    new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) }),
  ]);

/** A distinguished name: O, OU, CN (UTF-8 strings). */
export function buildName(fields: SubjectFields): Name {
  const parts: RelativeDistinguishedName[] = [];
  if (fields.organization) parts.push(attribute(oids.organization, fields.organization));
  if (fields.organizationalUnit) parts.push(attribute(oids.organizationalUnit, fields.organizationalUnit));
  parts.push(attribute(oids.commonName, fields.commonName));
  return new Name(parts);
}

const shortNames: Record<string, string> = {
  [oids.commonName]: 'CN',
  [oids.organization]: 'O',
  [oids.organizationalUnit]: 'OU',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

/** A name as people read it, in its order: `O=Acme, CN=Acme Root CA`. */
export function nameText(name: Name): string {
  return name
    .flatMap((rdn) => rdn.map((atv) => `${shortNames[atv.type] ?? atv.type}=${atv.value.toString()}`))
    .join(', ')
    .slice(0, 512);
}

/** The common name of a name, if it has one. */
export const commonNameOf = (name: Name) =>
  name
    .flatMap((rdn) => rdn.filter((atv) => atv.type === oids.commonName))
    .at(0)
    ?.value.toString();

/** A positive 128-bit serial number (RFC 5280 allows up to 20 octets). */
export function newSerialNumber(): Buffer {
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  return serial;
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
export function keyIdentifierOf(spkiDer: Uint8Array): Buffer {
  const spki = AsnConvert.parse(spkiDer, SubjectPublicKeyInfo);
  return createHash('sha1').update(new Uint8Array(spki.subjectPublicKey)).digest();
}

export interface Issuer {
  key: PrivateKeyHandle;
  name: Name;
  /** The issuer's subject key identifier (authority key identifier of what it signs). */
  keyIdentifier: Buffer;
}

export interface CertificateInput {
  issuer: Issuer | 'self';
  subject: Name;
  /** The subject's key (for a self-signed CA: the issuer's own). */
  subjectSpki: Buffer;
  serialNumber: Buffer;
  notBefore: Date;
  notAfter: Date;
  /**
   * `ca`: may sign certificates and CRLs; `person`: client authentication and signatures;
   * `server`: a TLS server (serverAuth) named by `serverNames`.
   */
  profile: 'ca' | 'person' | 'server';
  /** A server's host names and IP addresses (subjectAltName). */
  serverNames?: string[];
  crlUrl?: string;
  caIssuersUrl?: string;
}

/** Builds and signs a certificate; returns its DER. */
export function buildCertificate(input: CertificateInput, selfKey?: PrivateKeyHandle): Buffer {
  const signer = input.issuer === 'self' ? selfKey : input.issuer.key;
  if (!signer) throw new Error('a self-signed certificate needs its key');
  const subjectKeyId = keyIdentifierOf(input.subjectSpki);
  const authorityKeyId = input.issuer === 'self' ? subjectKeyId : input.issuer.keyIdentifier;
  const extensions = [
    ext(
      '2.5.29.19',
      true,
      new BasicConstraints(input.profile === 'ca' ? { cA: true, pathLenConstraint: 0 } : { cA: false }),
    ),
    ext(
      '2.5.29.15',
      true,
      new KeyUsage(
        input.profile === 'ca'
          ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign | KeyUsageFlags.digitalSignature
          : input.profile === 'server'
            ? KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment
            : KeyUsageFlags.digitalSignature | KeyUsageFlags.nonRepudiation,
      ),
    ),
    ext('2.5.29.14', false, new SubjectKeyIdentifier(arrayBufferOf(subjectKeyId))),
    ext(
      '2.5.29.35',
      false,
      new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(arrayBufferOf(authorityKeyId)) }),
    ),
  ];
  if (input.profile === 'person')
    extensions.push(ext('2.5.29.37', false, new ExtendedKeyUsage([oids.clientAuth])));
  if (input.profile === 'server') {
    extensions.push(ext('2.5.29.37', false, new ExtendedKeyUsage([oids.serverAuth])));
    extensions.push(
      ext(
        '2.5.29.17',
        false,
        new SubjectAlternativeName(
          (input.serverNames ?? []).map((name) =>
            isIP(name) ? new GeneralName({ iPAddress: name }) : new GeneralName({ dNSName: name }),
          ),
        ),
      ),
    );
  }
  if (input.crlUrl)
    extensions.push(
      ext(
        '2.5.29.31',
        false,
        new CRLDistributionPoints([
          new DistributionPoint({
            distributionPoint: new DistributionPointName({
              fullName: [new GeneralName({ uniformResourceIdentifier: input.crlUrl })],
            }),
          }),
        ]),
      ),
    );
  if (input.caIssuersUrl)
    extensions.push(
      ext(
        '1.3.6.1.5.5.7.1.1',
        false,
        new AuthorityInfoAccessSyntax([
          new AccessDescription({
            accessMethod: oids.caIssuers,
            accessLocation: new GeneralName({ uniformResourceIdentifier: input.caIssuersUrl }),
          }),
        ]),
      ),
    );
  const signatureAlgorithm = x509SignatureAlgorithm(signer.info);
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: arrayBufferOf(input.serialNumber),
    signature: signatureAlgorithm,
    issuer: input.issuer === 'self' ? input.subject : input.issuer.name,
    validity: new Validity({ notBefore: input.notBefore, notAfter: input.notAfter }),
    subject: input.subject,
    subjectPublicKeyInfo: AsnConvert.parse(input.subjectSpki, SubjectPublicKeyInfo),
    extensions: new Extensions(extensions),
  });
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  const certificate = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm,
    signatureValue: arrayBufferOf(signer.sign(tbsDer)),
  });
  return Buffer.from(AsnConvert.serialize(certificate));
}

export interface ParsedCertificate {
  der: Buffer;
  tbs: Buffer;
  signatureAlgorithm: string;
  signature: Buffer;
  serialNumber: string;
  subject: Name;
  subjectText: string;
  issuer: Name;
  /** DER of the issuer and subject names, for comparing them. */
  issuerDer: Buffer;
  subjectDer: Buffer;
  notBefore: Date;
  notAfter: Date;
  spki: Buffer;
  keyInfo: KeyInfo;
  isCa: boolean;
  /** Whether the key may sign certificates (true without a key usage extension). */
  mayCertSign: boolean;
  subjectKeyId: Buffer | undefined;
  /** SHA-256 of the DER, hex. */
  fingerprint: string;
}

const extensionValue = <T>(extensions: Extension[] | undefined, id: string, type: new () => T) => {
  const found = extensions?.find((e) => e.extnID === id);
  return found ? AsnConvert.parse(found.extnValue, type) : undefined;
};

/** Reads a certificate (DER); anything else, or a key outside spec §5, is a PkiError. */
export function parseCertificate(der: Uint8Array): ParsedCertificate {
  let certificate: Certificate;
  try {
    certificate = AsnConvert.parse(der, Certificate);
  } catch {
    throw new PkiError('malformed');
  }
  const tbs = certificate.tbsCertificate;
  const raw = certificate.tbsCertificateRaw;
  if (!raw) throw new PkiError('malformed');
  const spki = Buffer.from(AsnConvert.serialize(tbs.subjectPublicKeyInfo));
  let basic: BasicConstraints | undefined;
  let usage: KeyUsage | undefined;
  let subjectKeyId: Buffer | undefined;
  try {
    basic = extensionValue(tbs.extensions, '2.5.29.19', BasicConstraints);
    usage = extensionValue(tbs.extensions, '2.5.29.15', KeyUsage);
    const ski = extensionValue(tbs.extensions, '2.5.29.14', SubjectKeyIdentifier);
    subjectKeyId = ski ? Buffer.from(ski.buffer) : undefined;
  } catch {
    throw new PkiError('malformed');
  }
  return {
    der: Buffer.from(der),
    tbs: toBuffer(raw),
    signatureAlgorithm: certificate.signatureAlgorithm.algorithm,
    signature: toBuffer(certificate.signatureValue),
    serialNumber: toBuffer(tbs.serialNumber)
      .toString('hex')
      .replace(/^(00)+(?=.)/, ''),
    subject: tbs.subject,
    subjectText: nameText(tbs.subject),
    issuer: tbs.issuer,
    issuerDer: Buffer.from(AsnConvert.serialize(tbs.issuer)),
    subjectDer: Buffer.from(AsnConvert.serialize(tbs.subject)),
    notBefore: tbs.validity.notBefore.getTime(),
    notAfter: tbs.validity.notAfter.getTime(),
    spki,
    keyInfo: describePublicKey(spki),
    isCa: basic?.cA === true,
    mayCertSign: usage ? (Number(usage.toNumber()) & KeyUsageFlags.keyCertSign) !== 0 : true,
    subjectKeyId,
    fingerprint: createHash('sha256').update(der).digest('hex'),
  };
}

/** Whether `certificate` was signed by the key `issuerSpki` under the issuer's name. */
export function isIssuedBy(certificate: ParsedCertificate, issuer: ParsedCertificate): boolean {
  return (
    certificate.issuerDer.equals(issuer.subjectDer) &&
    verifyX509Signature(issuer.spki, certificate.signatureAlgorithm, certificate.tbs, certificate.signature)
  );
}

/** A serial number (hex) as the octets of a positive DER INTEGER. */
function serialBytes(hex: string): Buffer {
  const bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  return (bytes[0] ?? 0) >= 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
}

const crlReasonCode: Record<RevocationReason, CRLReasons> = {
  unspecified: CRLReasons.unspecified,
  keyCompromise: CRLReasons.keyCompromise,
  caCompromise: CRLReasons.cACompromise,
  affiliationChanged: CRLReasons.affiliationChanged,
  superseded: CRLReasons.superseded,
  cessationOfOperation: CRLReasons.cessationOfOperation,
};

export interface CrlInput {
  issuer: Issuer;
  number: number;
  thisUpdate: Date;
  nextUpdate: Date;
  revoked: { serialNumber: string; revokedAt: Date; reason: RevocationReason }[];
}

/** A signed version 2 CRL (DER) with its number and the issuer's key identifier. */
export function buildCrl(input: CrlInput): Buffer {
  const signatureAlgorithm = x509SignatureAlgorithm(input.issuer.key.info);
  const tbs = new TBSCertList({
    version: Version.v2,
    signature: signatureAlgorithm,
    issuer: input.issuer.name,
    thisUpdate: new Time(input.thisUpdate),
    nextUpdate: new Time(input.nextUpdate),
    revokedCertificates: input.revoked.length
      ? input.revoked.map(
          (entry) =>
            new RevokedCertificate({
              userCertificate: arrayBufferOf(serialBytes(entry.serialNumber)),
              revocationDate: new Time(entry.revokedAt),
              // RFC 5280 §5.3.1: the reason code is omitted rather than given as unspecified.
              crlEntryExtensions:
                entry.reason === 'unspecified'
                  ? undefined
                  : [ext('2.5.29.21', false, new CRLReason(crlReasonCode[entry.reason]))],
            }),
        )
      : undefined,
    crlExtensions: [
      ext(
        '2.5.29.35',
        false,
        new AuthorityKeyIdentifier({
          keyIdentifier: new KeyIdentifier(arrayBufferOf(input.issuer.keyIdentifier)),
        }),
      ),
      ext('2.5.29.20', false, new CRLNumber(input.number)),
    ],
  });
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  const crl = new CertificateList({
    tbsCertList: tbs,
    signatureAlgorithm,
    signature: arrayBufferOf(input.issuer.key.sign(tbsDer)),
  });
  return Buffer.from(AsnConvert.serialize(crl));
}

export interface ParsedRequest {
  subject: Name;
  subjectText: string;
  spki: Buffer;
  keyInfo: KeyInfo;
}

/** Reads a PKCS#10 certificate request (DER) and checks that its own key signed it. */
export function parseCertificateRequest(der: Uint8Array): ParsedRequest {
  let request: CertificationRequest;
  try {
    request = AsnConvert.parse(der, CertificationRequest);
  } catch {
    throw new PkiError('malformed');
  }
  const raw = request.certificationRequestInfoRaw;
  if (!raw) throw new PkiError('malformed');
  const spki = Buffer.from(AsnConvert.serialize(request.certificationRequestInfo.subjectPKInfo));
  const keyInfo = describePublicKey(spki);
  if (
    !verifyX509Signature(
      spki,
      request.signatureAlgorithm.algorithm,
      toBuffer(raw),
      toBuffer(request.signature),
    )
  )
    throw new PkiError('bad_signature');
  const subject = request.certificationRequestInfo.subject;
  return { subject, subjectText: nameText(subject), spki, keyInfo };
}
