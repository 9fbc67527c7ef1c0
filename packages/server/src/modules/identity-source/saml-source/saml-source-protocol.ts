import { type CacheProvider, type Profile, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { samlBindingUris, samlNameIdFormatUris } from '@tessera/contract';
import type { Element } from '@xmldom/xmldom';
import type { Db } from '../../../db/database.ts';
import { certificatePem } from '../../saml/saml-signature.ts';
import {
  attributeOf,
  childElements,
  decodeBase64,
  MESSAGE_MAX_BYTES,
  NS,
  newSamlId,
  onlyChild,
  parseInstant,
  parseXml,
  SamlInputError,
  textOf,
  xmlText,
} from '../../saml/saml-xml.ts';
import type { SamlSettings } from '../identity-source.repo.ts';
import { findOpenRequest, insertRequest, REQUEST_MINUTES, rememberAssertion } from './saml-source.repo.ts';
import { serviceProviderEndpoints } from './saml-source-settings.ts';

/**
 * The SAML protocol of an upstream source, through @node-saml/node-saml (the service provider
 * library of passport-saml): signed AuthnRequests, and responses whose assertion must be signed
 * by one of the upstream's certificates, for this service provider (audience), in time (one
 * minute of skew), from its entity id, in answer to a request of ours (InResponseTo).
 *
 * What node-saml leaves to its caller, done here: the document is parsed strictly first (size
 * and shape bounded, DOCTYPE refused: node-saml's parser would accept one); the document holds one
 * assertion in all, wherever it is (node-saml counts the Response's children only); the
 * Response's Destination and the assertion's bearer Recipient are our ACS (node-saml checks
 * neither); the request is answered once (node-saml's cache is per process: ours is a table),
 * and each assertion id is used once on any instance (a replay cache with expiry).
 */

/** Clocks of the upstream and ours may differ by this much. */
export const CLOCK_SKEW_MS = 60_000;

export interface SamlSourceRow {
  id: string;
  settings: SamlSettings;
}

/** A verified assertion: who it names and how they signed in upstream. */
export interface VerifiedAssertion {
  requestId: string;
  nameId: string;
  attributes: Record<string, string[]>;
  authnContext: string | null;
  /** What a LogoutRequest for the person's session at the upstream names. */
  logout?: {
    nameIdFormat: string | null;
    nameQualifier: string | null;
    spNameQualifier: string | null;
    sessionIndex: string | null;
  };
}

export class SamlSourceRefusal extends Error {}

function serviceProviderOf(
  db: Db,
  publicUrl: string,
  source: SamlSourceRow,
  spPrivateKeyPem: string,
  /** The interaction a new AuthnRequest is for. */
  interactionUid?: string,
) {
  const endpoints = serviceProviderEndpoints(publicUrl, source.id);
  // node-saml's InResponseTo check reads this table; requests are bound to their interaction.
  const cacheProvider: CacheProvider = {
    async saveAsync(key, value) {
      if (!interactionUid) throw new Error('an AuthnRequest without an interaction');
      await insertRequest(db, { id: key, sourceId: source.id, interactionUid });
      return { value, createdAt: Date.now() };
    },
    async getAsync(key) {
      const open = await findOpenRequest(db, source.id, key);
      return open ? new Date(open.created_at).toISOString() : null;
    },
    // Answered once, by answerRequest after every check: a refused response leaves the request open.
    async removeAsync() {
      return null;
    },
  };
  const spCertificate = certificatePem(source.settings.spCertificate);
  return new SAML({
    issuer: endpoints.entityId,
    callbackUrl: endpoints.acsUrl,
    logoutCallbackUrl: endpoints.sloUrl,
    audience: endpoints.entityId,
    entryPoint: source.settings.ssoUrl,
    idpIssuer: source.settings.idpEntityId,
    idpCert: source.settings.signingCertificates.map(certificatePem),
    privateKey: spPrivateKeyPem,
    publicCert: spCertificate,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    identifierFormat: samlNameIdFormatUris[source.settings.nameIdFormat],
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_MINUTES * 60_000,
    cacheProvider,
    generateUniqueId: newSamlId,
    disableRequestedAuthnContext: true,
    authnRequestBinding: source.settings.ssoBinding === 'post' ? 'HTTP-POST' : 'HTTP-Redirect',
  });
}

/** Tessera's SP metadata for the source (entity id, ACS, signing certificate; assertions signed). */
export function serviceProviderMetadata(publicUrl: string, source: SamlSourceRow): string {
  const sp = serviceProviderOf({} as Db, publicUrl, source, 'unused');
  const certificate = certificatePem(source.settings.spCertificate);
  // The private key only tells node-saml that requests are signed; the metadata holds the certificate.
  const metadata = sp.generateServiceProviderMetadata(null, certificate);
  // node-saml names the single logout service over HTTP-POST only; it takes HTTP-Redirect too.
  const { sloUrl } = serviceProviderEndpoints(publicUrl, source.id);
  const post = new RegExp(`<SingleLogoutService Binding="${samlBindingUris.post}" Location="[^"]*"/>`);
  return metadata.replace(
    post,
    (element) =>
      `<SingleLogoutService Binding="${samlBindingUris.redirect}" Location="${xmlText(sloUrl)}"/>${element}`,
  );
}

/** A new AuthnRequest for the interaction: the address to send the browser to, or the form to post. */
export async function startSignIn(
  db: Db,
  publicUrl: string,
  source: SamlSourceRow,
  spPrivateKeyPem: string,
  interactionUid: string,
): Promise<
  { kind: 'redirect'; url: string } | { kind: 'post'; action: string; fields: Record<string, string> }
> {
  const sp = serviceProviderOf(db, publicUrl, source, spPrivateKeyPem, interactionUid);
  if (source.settings.ssoBinding === 'post') {
    const fields = (await sp.getAuthorizeMessageAsync('', undefined, {})) as Record<string, string>;
    const { RelayState: _none, ...message } = fields;
    return { kind: 'post', action: source.settings.ssoUrl, fields: message };
  }
  return { kind: 'redirect', url: await sp.getAuthorizeUrlAsync('', undefined, {}) };
}

/** The elements of a namespace and name anywhere in the document. */
const allOf = (root: Element, ns: string, name: string) => Array.from(root.getElementsByTagNameNS(ns, name));

/** What node-saml does not check of the response as posted (before its signatures are looked at). */
function checkResponseShape(xml: string, acsUrl: string): string {
  const doc = parseXml(xml);
  const root = doc.documentElement;
  if (!root || root.namespaceURI !== NS.protocol || root.localName !== 'Response')
    throw new SamlSourceRefusal('not a Response');
  // One assertion in the whole document: a second one anywhere (Extensions, an Object of the
  // signature, inside the assertion) is how signature wrapping hides what was signed.
  const assertions =
    allOf(root, NS.assertion, 'Assertion').length + allOf(root, NS.assertion, 'EncryptedAssertion').length;
  if (assertions !== 1) throw new SamlSourceRefusal(`${assertions} assertions`);
  const destination = attributeOf(root, 'Destination');
  if (destination !== undefined && destination !== acsUrl)
    throw new SamlSourceRefusal(`Destination ${destination}`);
  const inResponseTo = attributeOf(root, 'InResponseTo');
  if (!inResponseTo) throw new SamlSourceRefusal('no InResponseTo');
  return inResponseTo;
}

/** What node-saml does not check of the assertion it verified. */
function checkVerifiedAssertion(assertionXml: string, acsUrl: string, requestId: string) {
  const assertion = parseXml(assertionXml).documentElement;
  if (!assertion || assertion.namespaceURI !== NS.assertion || assertion.localName !== 'Assertion')
    throw new SamlSourceRefusal('no assertion');
  const id = attributeOf(assertion, 'ID');
  if (!id) throw new SamlSourceRefusal('assertion without ID');
  const subject = onlyChild(assertion, NS.assertion, 'Subject');
  const bearer = (subject ? childElements(subject, NS.assertion, 'SubjectConfirmation') : [])
    .filter((c) => attributeOf(c, 'Method') === 'urn:oasis:names:tc:SAML:2.0:cm:bearer')
    .map((c) => onlyChild(c, NS.assertion, 'SubjectConfirmationData'))
    .find(
      (data) =>
        data && attributeOf(data, 'Recipient') === acsUrl && attributeOf(data, 'InResponseTo') === requestId,
    );
  if (!bearer) throw new SamlSourceRefusal('no bearer confirmation for our ACS and request');
  const conditions = onlyChild(assertion, NS.assertion, 'Conditions');
  const until =
    parseInstant(attributeOf(bearer, 'NotOnOrAfter')) ??
    parseInstant(conditions ? attributeOf(conditions, 'NotOnOrAfter') : undefined);
  if (!until) throw new SamlSourceRefusal('assertion without NotOnOrAfter');
  const contexts = allOf(assertion, NS.assertion, 'AuthnContextClassRef').map((e) => textOf(e));
  return { id, until, authnContext: contexts[0] ?? null };
}

/** The attributes of the verified profile as lists of strings (complex values are left out). */
function attributesOf(profile: Profile): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const raw = (profile.attributes ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(raw)) {
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    if (values.length) out[name] = values.map((v) => v.trim()).filter(Boolean);
  }
  return out;
}

/**
 * Verifies a posted SAMLResponse for the source; throws SamlSourceRefusal (the detail is for the
 * server log) or answers the assertion, whose id is then used.
 */
export async function verifyResponse(
  db: Db,
  publicUrl: string,
  source: SamlSourceRow,
  spPrivateKeyPem: string,
  samlResponse: string,
): Promise<VerifiedAssertion> {
  const { acsUrl } = serviceProviderEndpoints(publicUrl, source.id);
  let xml: string;
  let requestId: string;
  try {
    xml = decodeBase64(samlResponse, MESSAGE_MAX_BYTES).toString('utf8');
    requestId = checkResponseShape(xml, acsUrl);
  } catch (error) {
    if (error instanceof SamlInputError) throw new SamlSourceRefusal(error.message);
    throw error;
  }
  const sp = serviceProviderOf(db, publicUrl, source, spPrivateKeyPem);
  let profile: Profile | null;
  try {
    ({ profile } = await sp.validatePostResponseAsync({
      SAMLResponse: Buffer.from(xml, 'utf8').toString('base64'),
    }));
  } catch (error) {
    throw new SamlSourceRefusal(`node-saml: ${(error as Error).message}`);
  }
  if (!profile?.nameID) throw new SamlSourceRefusal('no NameID');
  let checked: ReturnType<typeof checkVerifiedAssertion>;
  try {
    checked = checkVerifiedAssertion(profile.getAssertionXml?.() ?? '', acsUrl, requestId);
  } catch (error) {
    if (error instanceof SamlInputError) throw new SamlSourceRefusal(error.message);
    throw error;
  }
  const keepUntil = new Date(Math.max(checked.until.getTime(), Date.now()) + CLOCK_SKEW_MS);
  if (!(await rememberAssertion(db, source.id, checked.id, keepUntil)))
    throw new SamlSourceRefusal(`assertion ${checked.id} replayed`);
  return {
    requestId,
    nameId: profile.nameID,
    attributes: attributesOf(profile),
    authnContext: checked.authnContext,
    logout: {
      nameIdFormat: profile.nameIDFormat ?? null,
      nameQualifier: profile.nameQualifier ?? null,
      spNameQualifier: profile.spNameQualifier ?? null,
      sessionIndex: profile.sessionIndex ?? null,
    },
  };
}
