import { createPublicKey, createVerify, type KeyObject, sign, X509Certificate } from 'node:crypto';
import type { Document } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { attributeOf, NS, parseXml, SamlInputError } from './saml-xml.ts';

/**
 * XML signatures of SAML messages (xml-crypto 6, see the README for why this library).
 * Verification trusts only the certificates registered for the service provider, never a key
 * the message carries, and answers the signed content itself, re-parsed from the canonical form
 * xml-crypto verified: whatever else the message holds (a wrapped copy, a second assertion) is
 * never read.
 */

const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

/** Signature algorithms by the names of the console, with their URIs and digests. */
export const signatureAlgorithms = {
  'rsa-sha256': { uri: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', hash: 'sha256' },
  'rsa-sha512': { uri: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512', hash: 'sha512' },
  'rsa-sha1': { uri: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', hash: 'sha1' },
} as const;
export type SignatureAlgorithmName = keyof typeof signatureAlgorithms;

const digestUris = {
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  sha512: 'http://www.w3.org/2001/04/xmlenc#sha512',
  sha1: 'http://www.w3.org/2000/09/xmldsig#sha1',
} as const;

/** What service providers may sign with: RSA with SHA-256 or SHA-512 (SHA-1 and HMAC are refused). */
const acceptedSignatureUris = new Map<string, string>([
  [signatureAlgorithms['rsa-sha256'].uri, 'sha256'],
  [signatureAlgorithms['rsa-sha512'].uri, 'sha512'],
]);

/** A base64 DER certificate as PEM. */
export const certificatePem = (base64Der: string): string =>
  `-----BEGIN CERTIFICATE-----\n${base64Der.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;

/** The signing key of the company's identity provider, as the signer needs it. */
export interface SigningKey {
  privateKey: KeyObject;
  /** Base64 DER. */
  certificate: string;
}

/**
 * Signs the root element of `xml` (enveloped, exclusive canonicalisation), placing the
 * signature right after the root's Issuer as the SAML schema wants it.
 */
export function signRootElement(xml: string, key: SigningKey, algorithm: SignatureAlgorithmName): string {
  const chosen = signatureAlgorithms[algorithm];
  const signer = new SignedXml({
    privateKey: key.privateKey.export({ type: 'pkcs8', format: 'pem' }),
    publicCert: certificatePem(key.certificate),
    signatureAlgorithm: chosen.uri,
    canonicalizationAlgorithm: EXC_C14N,
  });
  signer.addReference({
    xpath: '/*',
    transforms: [ENVELOPED, EXC_C14N],
    digestAlgorithm: digestUris[chosen.hash],
  });
  signer.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: "/*/*[local-name(.)='Issuer']", action: 'after' },
  });
  return signer.getSignedXml();
}

/** Signs an HTTP-Redirect query (`SAMLRequest=…&RelayState=…&SigAlg=…`, values already URL-encoded). */
export function signRedirectQuery(query: string, key: SigningKey, algorithm: SignatureAlgorithmName): string {
  return sign(signatureAlgorithms[algorithm].hash, Buffer.from(query, 'utf8'), key.privateKey).toString(
    'base64',
  );
}

const publicKeysOf = (certificates: readonly string[]): KeyObject[] =>
  certificates.map((der) => createPublicKey(new X509Certificate(Buffer.from(der, 'base64')).toString()));

/**
 * The element a message's enveloped signature covers, verified against the service provider's
 * certificates; undefined when the message carries no signature. The signature must be a child
 * of the root, cover exactly the root (by its ID) and nothing else, with an accepted algorithm.
 */
export function verifyEnvelopedSignature(
  xml: string,
  doc: Document,
  certificates: readonly string[],
): Document | undefined {
  const root = doc.documentElement;
  if (!root) throw new SamlInputError('malformed');
  const signatures = Array.from(doc.getElementsByTagNameNS(NS.ds, 'Signature'));
  if (signatures.length === 0) return undefined;
  const signature = signatures[0];
  if (signatures.length > 1 || !signature || signature.parentNode !== root)
    throw new SamlInputError(
      'signature_invalid',
      'the signature must be the only one, on the message itself',
    );
  if (!certificates.length) throw new SamlInputError('certificate_missing');
  const rootId = attributeOf(root, 'ID');
  const method = signature.getElementsByTagNameNS(NS.ds, 'SignatureMethod')[0]?.getAttribute('Algorithm');
  if (!method || !acceptedSignatureUris.has(method))
    throw new SamlInputError(
      'signature_invalid',
      `signature algorithm ${method ?? 'missing'} is not accepted`,
    );
  const references = signature.getElementsByTagNameNS(NS.ds, 'Reference');
  if (references.length !== 1 || references[0]?.getAttribute('URI') !== `#${rootId}`)
    throw new SamlInputError('signature_invalid', 'the signature must cover the message by its ID');

  for (const publicCert of certificates.map(certificatePem)) {
    const verifier = new SignedXml({
      publicCert,
      getCertFromKeyInfo: () => null,
    });
    // Only RSA with SHA-256/512; the library would also take SHA-1 and HMAC.
    verifier.SignatureAlgorithms = Object.fromEntries(
      Object.entries(verifier.SignatureAlgorithms).filter(([uri]) => acceptedSignatureUris.has(uri)),
    );
    verifier.HashAlgorithms = Object.fromEntries(
      Object.entries(verifier.HashAlgorithms).filter(([uri]) => uri !== digestUris.sha1),
    );
    verifier.loadSignature(signature as unknown as globalThis.Node);
    let valid = false;
    try {
      valid = verifier.checkSignature(xml);
    } catch {
      valid = false;
    }
    // After a failure the signed references are never read (they may hold unverified content).
    if (!valid) continue;
    const signed = verifier.getSignedReferences();
    if (signed.length !== 1 || !signed[0]) continue;
    const signedDoc = parseXml(signed[0]);
    const signedRoot = signedDoc.documentElement;
    if (
      signedRoot?.namespaceURI !== root.namespaceURI ||
      signedRoot?.localName !== root.localName ||
      attributeOf(signedRoot, 'ID') !== rootId
    )
      throw new SamlInputError('signature_invalid', 'the signature covers another element');
    return signedDoc;
  }
  throw new SamlInputError('signature_invalid');
}

/** The raw (still URL-encoded) query parameters of a request URL; a repeated one refuses it. */
export function rawQueryParameters(url: string): Map<string, string> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const parameters = new Map<string, string>();
  for (const part of query.split('&')) {
    if (!part) continue;
    const index = part.indexOf('=');
    const name = decodeURIComponent(index < 0 ? part : part.slice(0, index));
    if (parameters.has(name)) throw new SamlInputError('malformed', `${name} given twice`);
    parameters.set(name, index < 0 ? '' : part.slice(index + 1));
  }
  return parameters;
}

const decodeQueryValue = (raw: string) => decodeURIComponent(raw.replace(/\+/g, ' '));

/**
 * Whether an HTTP-Redirect message is signed, and by the service provider: the signature covers
 * the parameters exactly as they were sent (SAML bindings §3.4.4.1), so it is checked over the
 * raw query text, never over a re-encoding of it.
 */
export function verifyRedirectSignature(
  parameters: Map<string, string>,
  messageParameter: 'SAMLRequest' | 'SAMLResponse',
  certificates: readonly string[],
): boolean {
  const signature = parameters.get('Signature');
  const sigAlg = parameters.get('SigAlg');
  if (signature === undefined && sigAlg === undefined) return false;
  if (!signature || !sigAlg)
    throw new SamlInputError('signature_invalid', 'Signature and SigAlg go together');
  const hash = acceptedSignatureUris.get(decodeQueryValue(sigAlg));
  if (!hash)
    throw new SamlInputError('signature_invalid', `SigAlg ${decodeQueryValue(sigAlg)} is not accepted`);
  if (!certificates.length) throw new SamlInputError('certificate_missing');
  const relayState = parameters.get('RelayState');
  const signedText = [
    `${messageParameter}=${parameters.get(messageParameter) ?? ''}`,
    ...(relayState !== undefined ? [`RelayState=${relayState}`] : []),
    `SigAlg=${sigAlg}`,
  ].join('&');
  const signatureBytes = Buffer.from(decodeQueryValue(signature), 'base64');
  for (const key of publicKeysOf(certificates)) {
    const verifier = createVerify(hash);
    verifier.update(signedText, 'utf8');
    if (verifier.verify(key, signatureBytes)) return true;
  }
  throw new SamlInputError('signature_invalid');
}

export const queryValue = decodeQueryValue;
