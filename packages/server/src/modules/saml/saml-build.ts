import { createPublicKey, X509Certificate } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { samlAttributeNameFormatUris } from '@tessera/contract';
import { encrypt } from 'xml-encryption';
import type { SamlAttributeMapping } from '../../db/schema-saml.ts';
import {
  certificatePem,
  type SignatureAlgorithmName,
  type SigningKey,
  signatureAlgorithms,
  signRedirectQuery,
  signRootElement,
} from './saml-signature.ts';
import { NS, newSamlId, STATUS, samlInstant, xmlText } from './saml-xml.ts';

/** Assertions and responses are valid this long after they are issued. */
const VALIDITY_MS = 5 * 60_000;
/** Conditions start a little before now, for service providers whose clocks run behind. */
const NOT_BEFORE_SKEW_MS = 60_000;

const PASSWORD_PROTECTED = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
const UNSPECIFIED_CONTEXT = 'urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified';

export interface AssertionInput {
  idpEntityId: string;
  spEntityId: string;
  acsUrl: string;
  inResponseTo: string | null;
  nameId: { value: string; format: string };
  sessionIndex: string;
  authnInstant: Date;
  sessionNotOnOrAfter: Date;
  amr: readonly string[];
  attributes: { mapping: SamlAttributeMapping; values: string[] }[];
}

/** How the app wants its responses: what is signed, with what, and whether the assertion is encrypted. */
export interface ResponseSecurity {
  key: SigningKey;
  algorithm: SignatureAlgorithmName;
  signResponse: boolean;
  signAssertion: boolean;
  /** The service provider's encryption certificate (base64 DER) when assertions are encrypted. */
  encryptFor: string | null;
}

function attributeXml({ mapping, values }: AssertionInput['attributes'][number]): string {
  const friendly = mapping.friendlyName ? ` FriendlyName="${xmlText(mapping.friendlyName)}"` : '';
  const valueXml = values
    .map((value) => `<saml:AttributeValue xsi:type="xs:string">${xmlText(value)}</saml:AttributeValue>`)
    .join('');
  return `<saml:Attribute Name="${xmlText(mapping.name)}" NameFormat="${samlAttributeNameFormatUris[mapping.nameFormat]}"${friendly}>${valueXml}</saml:Attribute>`;
}

function assertionXml(input: AssertionInput, now: Date): string {
  const until = samlInstant(new Date(now.getTime() + VALIDITY_MS));
  const inResponseTo = input.inResponseTo ? ` InResponseTo="${xmlText(input.inResponseTo)}"` : '';
  const attributes = input.attributes.filter((a) => a.values.length > 0);
  const statement = attributes.length
    ? `<saml:AttributeStatement>${attributes.map(attributeXml).join('')}</saml:AttributeStatement>`
    : '';
  return `<saml:Assertion xmlns:saml="${NS.assertion}" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ID="${newSamlId()}" Version="2.0" IssueInstant="${samlInstant(now)}"><saml:Issuer>${xmlText(input.idpEntityId)}</saml:Issuer><saml:Subject><saml:NameID Format="${xmlText(input.nameId.format)}">${xmlText(input.nameId.value)}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${until}" Recipient="${xmlText(input.acsUrl)}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${samlInstant(new Date(now.getTime() - NOT_BEFORE_SKEW_MS))}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${xmlText(input.spEntityId)}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${samlInstant(input.authnInstant)}" SessionIndex="${xmlText(input.sessionIndex)}" SessionNotOnOrAfter="${samlInstant(input.sessionNotOnOrAfter)}"><saml:AuthnContext><saml:AuthnContextClassRef>${input.amr.includes('pwd') ? PASSWORD_PROTECTED : UNSPECIFIED_CONTEXT}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>${statement}</saml:Assertion>`;
}

function encryptAssertion(assertion: string, certificate: string): Promise<string> {
  const pem = certificatePem(certificate);
  const publicKey = createPublicKey(new X509Certificate(pem).toString()).export({
    type: 'spki',
    format: 'pem',
  });
  return new Promise((resolve, reject) =>
    encrypt(
      assertion,
      {
        rsa_pub: publicKey,
        pem,
        encryptionAlgorithm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
        keyEncryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
        disallowEncryptionWithInsecureAlgorithm: true,
        warnInsecureAlgorithm: false,
      },
      (error: Error | null, result?: string) => (error || !result ? reject(error) : resolve(result)),
    ),
  );
}

const responseOpen = (idp: string, destination: string, inResponseTo: string | null, now: Date) =>
  `<samlp:Response xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${newSamlId()}" Version="2.0" IssueInstant="${samlInstant(now)}" Destination="${xmlText(destination)}"${
    inResponseTo ? ` InResponseTo="${xmlText(inResponseTo)}"` : ''
  }><saml:Issuer>${xmlText(idp)}</saml:Issuer>`;

/** A successful Response with its assertion, signed and encrypted as the app wants. */
export async function buildResponse(input: AssertionInput, security: ResponseSecurity): Promise<string> {
  const now = new Date();
  let assertion = assertionXml(input, now);
  if (security.signAssertion) assertion = signRootElement(assertion, security.key, security.algorithm);
  if (security.encryptFor)
    assertion = `<saml:EncryptedAssertion>${await encryptAssertion(assertion, security.encryptFor)}</saml:EncryptedAssertion>`;
  const response = `${responseOpen(input.idpEntityId, input.acsUrl, input.inResponseTo, now)}<samlp:Status><samlp:StatusCode Value="${STATUS.success}"/></samlp:Status>${assertion}</samlp:Response>`;
  return security.signResponse ? signRootElement(response, security.key, security.algorithm) : response;
}

/** A Response that refuses (no assertion): a status code and a second-level one. */
export function buildErrorResponse(
  input: {
    idpEntityId: string;
    acsUrl: string;
    inResponseTo: string | null;
    status: string;
    subStatus: string;
  },
  key: SigningKey,
  algorithm: SignatureAlgorithmName,
): string {
  const xml = `${responseOpen(input.idpEntityId, input.acsUrl, input.inResponseTo, new Date())}<samlp:Status><samlp:StatusCode Value="${input.status}"><samlp:StatusCode Value="${input.subStatus}"/></samlp:StatusCode></samlp:Status></samlp:Response>`;
  return signRootElement(xml, key, algorithm);
}

export function buildLogoutRequest(input: {
  id: string;
  idpEntityId: string;
  destination: string;
  nameId: { value: string; format: string };
  sessionIndex: string;
}): string {
  const now = new Date();
  return `<samlp:LogoutRequest xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${input.id}" Version="2.0" IssueInstant="${samlInstant(now)}" Destination="${xmlText(input.destination)}" NotOnOrAfter="${samlInstant(new Date(now.getTime() + VALIDITY_MS))}"><saml:Issuer>${xmlText(input.idpEntityId)}</saml:Issuer><saml:NameID Format="${xmlText(input.nameId.format)}">${xmlText(input.nameId.value)}</saml:NameID><samlp:SessionIndex>${xmlText(input.sessionIndex)}</samlp:SessionIndex></samlp:LogoutRequest>`;
}

export function buildLogoutResponse(input: {
  idpEntityId: string;
  destination: string;
  inResponseTo: string;
  partial: boolean;
}): string {
  const sub = input.partial ? `<samlp:StatusCode Value="${STATUS.partialLogout}"/>` : '';
  return `<samlp:LogoutResponse xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${newSamlId()}" Version="2.0" IssueInstant="${samlInstant(new Date())}" Destination="${xmlText(input.destination)}" InResponseTo="${xmlText(input.inResponseTo)}"><saml:Issuer>${xmlText(input.idpEntityId)}</saml:Issuer><samlp:Status><samlp:StatusCode Value="${STATUS.success}">${sub}</samlp:StatusCode></samlp:Status></samlp:LogoutResponse>`;
}

/** How the browser carries a message: a redirect, or a form it posts. */
export type Outgoing =
  | { kind: 'redirect'; url: string }
  | { kind: 'post'; action: string; fields: { name: string; value: string }[] };

/** A message over HTTP-POST: the form the browser posts to `destination`. */
export const postForm = (
  parameter: 'SAMLRequest' | 'SAMLResponse',
  xml: string,
  destination: string,
  relayState: string | null | undefined,
): Outgoing => ({
  kind: 'post',
  action: destination,
  fields: [
    { name: parameter, value: Buffer.from(xml, 'utf8').toString('base64') },
    ...(relayState !== undefined && relayState !== null ? [{ name: 'RelayState', value: relayState }] : []),
  ],
});

/**
 * Sends a message over a binding, signed: HTTP-Redirect signs the query (the XML stays
 * unsigned, as the binding wants), HTTP-POST signs the XML (responses come signed already).
 */
export function outgoing(input: {
  xml: string;
  binding: 'redirect' | 'post';
  parameter: 'SAMLRequest' | 'SAMLResponse';
  destination: string;
  relayState: string | undefined;
  key: SigningKey;
  algorithm: SignatureAlgorithmName;
  /** Already signed (a Response), or to be signed here for HTTP-POST. */
  signed?: boolean;
}): Outgoing {
  if (input.binding === 'post') {
    const xml = input.signed ? input.xml : signRootElement(input.xml, input.key, input.algorithm);
    return postForm(input.parameter, xml, input.destination, input.relayState);
  }
  const encoded = deflateRawSync(Buffer.from(input.xml, 'utf8')).toString('base64');
  const query = [
    `${input.parameter}=${encodeURIComponent(encoded)}`,
    ...(input.relayState !== undefined ? [`RelayState=${encodeURIComponent(input.relayState)}`] : []),
    `SigAlg=${encodeURIComponent(signatureAlgorithms[input.algorithm].uri)}`,
  ].join('&');
  const signature = signRedirectQuery(query, input.key, input.algorithm);
  const separator = input.destination.includes('?') ? '&' : '?';
  return {
    kind: 'redirect',
    url: `${input.destination}${separator}${query}&Signature=${encodeURIComponent(signature)}`,
  };
}
