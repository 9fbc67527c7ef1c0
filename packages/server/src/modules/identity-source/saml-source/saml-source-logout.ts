import { createPrivateKey } from 'node:crypto';
import type { Document, Element } from '@xmldom/xmldom';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../../db/database.ts';
import { buildLogoutResponse, outgoing } from '../../saml/saml-build.ts';
import {
  queryValue,
  rawQueryParameters,
  verifyEnvelopedSignature,
  verifyRedirectSignature,
} from '../../saml/saml-signature.ts';
import {
  attributeOf,
  childElements,
  decodePostMessage,
  decodeRedirectMessage,
  isSamlId,
  NS,
  onlyChild,
  parseInstant,
  parseXml,
  SamlInputError,
  samlInstant,
  textOf,
  xmlText,
} from '../../saml/saml-xml.ts';
import type { SamlSettings } from '../identity-source.repo.ts';
import { rememberAssertion } from './saml-source.repo.ts';
import { CLOCK_SKEW_MS, SamlSourceRefusal } from './saml-source-protocol.ts';
import { serviceProviderEndpoints } from './saml-source-settings.ts';

/**
 * Single logout with the upstream SAML identity provider, Tessera being its service provider.
 * SP-initiated: a sign-out at Tessera of a session made through the source sends the browser
 * to the upstream's single logout service with a LogoutRequest (HTTP-Redirect, signed with the
 * key of the SP metadata) naming the NameID and SessionIndex of the assertion; the upstream's
 * LogoutResponse comes back to Tessera's SLO endpoint. IdP-initiated: the upstream's
 * LogoutRequest at the same endpoint ends the person's Tessera sessions made through it, and is
 * answered with a signed LogoutResponse. Every message there must be signed by one of the
 * source's certificates (the query for HTTP-Redirect, the message for HTTP-POST), be from its
 * entity id, addressed to this endpoint, recent, and used once (the replay cache of assertions).
 */

/** A message older than this (by its IssueInstant) is refused. */
const MESSAGE_MAX_AGE_MS = 10 * 60_000;
const ALGORITHM = 'rsa-sha256' as const;

interface SamlSourceRow {
  id: string;
  settings: SamlSettings;
}

const signingKey = (source: SamlSourceRow, privateKeyPem: string) => ({
  privateKey: createPrivateKey(privateKeyPem),
  certificate: source.settings.spCertificate,
});

/** The LogoutRequest for a session made through the source: the address to send the browser to. */
export function logoutRequestUrl(
  publicUrl: string,
  source: SamlSourceRow,
  privateKeyPem: string,
  request: {
    id: string;
    nameId: string;
    nameIdFormat: string | null;
    nameQualifier: string | null;
    spNameQualifier: string | null;
    sessionIndex: string | null;
  },
): string {
  const destination = source.settings.sloUrl as string;
  const now = new Date();
  const qualifiers = [
    request.nameIdFormat ? ` Format="${xmlText(request.nameIdFormat)}"` : '',
    request.nameQualifier ? ` NameQualifier="${xmlText(request.nameQualifier)}"` : '',
    request.spNameQualifier ? ` SPNameQualifier="${xmlText(request.spNameQualifier)}"` : '',
  ].join('');
  const sessionIndex = request.sessionIndex
    ? `<samlp:SessionIndex>${xmlText(request.sessionIndex)}</samlp:SessionIndex>`
    : '';
  const xml = `<samlp:LogoutRequest xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${request.id}" Version="2.0" IssueInstant="${samlInstant(now)}" Destination="${xmlText(destination)}" NotOnOrAfter="${samlInstant(new Date(now.getTime() + MESSAGE_MAX_AGE_MS))}"><saml:Issuer>${xmlText(serviceProviderEndpoints(publicUrl, source.id).entityId)}</saml:Issuer><saml:NameID${qualifiers}>${xmlText(request.nameId)}</saml:NameID>${sessionIndex}</samlp:LogoutRequest>`;
  const message = outgoing({
    xml,
    binding: 'redirect',
    parameter: 'SAMLRequest',
    destination,
    relayState: undefined,
    key: signingKey(source, privateKeyPem),
    algorithm: ALGORITHM,
  });
  if (message.kind !== 'redirect') throw new Error('HTTP-Redirect expected');
  return message.url;
}

/** The signed LogoutResponse to the upstream's LogoutRequest: the address to send the browser to. */
export function logoutResponseUrl(
  publicUrl: string,
  source: SamlSourceRow,
  privateKeyPem: string,
  answer: { inResponseTo: string; relayState: string | undefined },
): string | undefined {
  const destination = source.settings.sloUrl;
  if (!destination) return undefined;
  const xml = buildLogoutResponse({
    idpEntityId: serviceProviderEndpoints(publicUrl, source.id).entityId,
    destination,
    inResponseTo: answer.inResponseTo,
    partial: false,
  });
  const message = outgoing({
    xml,
    binding: 'redirect',
    parameter: 'SAMLResponse',
    destination,
    relayState: answer.relayState,
    key: signingKey(source, privateKeyPem),
    algorithm: ALGORITHM,
  });
  return message.kind === 'redirect' ? message.url : undefined;
}

/** A message at the SLO endpoint, verified: the upstream's LogoutRequest or LogoutResponse. */
export type ReceivedLogout =
  | { kind: 'LogoutRequest'; id: string; nameId: string; sessionIndexes: string[]; relayState?: string }
  | { kind: 'LogoutResponse'; id: string; inResponseTo: string; success: boolean };

/** The message and how it came: HTTP-Redirect (GET, the query signed) or HTTP-POST (the message signed). */
function carried(request: FastifyRequest) {
  if (request.method === 'GET') {
    const raw = rawQueryParameters(request.raw.url ?? '');
    const parameter = raw.has('SAMLRequest') ? 'SAMLRequest' : 'SAMLResponse';
    const value = raw.get(parameter);
    if (!value) throw new SamlInputError('malformed', 'no SAML message');
    const relayState = raw.get('RelayState');
    const xml = decodeRedirectMessage(queryValue(value));
    const doc = parseXml(xml);
    if (doc.getElementsByTagNameNS(NS.ds, 'Signature').length)
      throw new SamlInputError('malformed', 'HTTP-Redirect messages carry no XML signature');
    return {
      doc,
      relayState: relayState === undefined ? undefined : queryValue(relayState),
      verify: (certificates: string[]) =>
        verifyRedirectSignature(raw, parameter, certificates) ? doc.documentElement : undefined,
    };
  }
  const body = (request.body ?? {}) as Record<string, unknown>;
  const value = typeof body.SAMLRequest === 'string' ? body.SAMLRequest : body.SAMLResponse;
  if (typeof value !== 'string' || !value) throw new SamlInputError('malformed', 'no SAML message');
  const xml = decodePostMessage(value);
  const doc: Document = parseXml(xml);
  return {
    doc,
    relayState: typeof body.RelayState === 'string' ? body.RelayState : undefined,
    verify: (certificates: string[]) => verifyEnvelopedSignature(xml, doc, certificates)?.documentElement,
  };
}

/**
 * Verifies a message at the source's SLO endpoint; throws SamlSourceRefusal (the detail is for
 * the server log). Unsigned messages, another issuer, another destination, stale or replayed
 * messages are refused.
 */
export async function receiveLogoutMessage(
  db: Db,
  publicUrl: string,
  source: SamlSourceRow,
  request: FastifyRequest,
): Promise<ReceivedLogout> {
  try {
    const { doc, relayState, verify } = carried(request);
    const root = doc.documentElement;
    const kind = root?.localName;
    if (!root || root.namespaceURI !== NS.protocol || (kind !== 'LogoutRequest' && kind !== 'LogoutResponse'))
      throw new SamlInputError('unexpected_message', kind ?? undefined);
    const signed: Element | undefined | null = verify(source.settings.signingCertificates);
    if (!signed) throw new SamlInputError('signature_missing');
    const message = signed;
    const issuer = onlyChild(message, NS.assertion, 'Issuer');
    if (!issuer || textOf(issuer) !== source.settings.idpEntityId)
      throw new SamlInputError('signature_invalid', 'another issuer');
    const id = attributeOf(message, 'ID');
    if (attributeOf(message, 'Version') !== '2.0' || !isSamlId(id))
      throw new SamlInputError('malformed', 'ID');
    const { sloUrl } = serviceProviderEndpoints(publicUrl, source.id);
    if (attributeOf(message, 'Destination') !== sloUrl)
      throw new SamlInputError('destination_mismatch', attributeOf(message, 'Destination') ?? 'missing');
    const issued = parseInstant(attributeOf(message, 'IssueInstant'));
    const now = Date.now();
    if (!issued || issued.getTime() > now + CLOCK_SKEW_MS || issued.getTime() < now - MESSAGE_MAX_AGE_MS)
      throw new SamlInputError('expired', 'IssueInstant');
    const notOnOrAfter = attributeOf(message, 'NotOnOrAfter');
    if (notOnOrAfter !== undefined && (parseInstant(notOnOrAfter)?.getTime() ?? 0) + CLOCK_SKEW_MS <= now)
      throw new SamlInputError('expired', 'NotOnOrAfter');
    // Each message once, on any instance (the source's replay cache, beside its assertion ids).
    const keepUntil = new Date(now + MESSAGE_MAX_AGE_MS + 2 * CLOCK_SKEW_MS);
    if (!(await rememberAssertion(db, source.id, `logout:${id}`, keepUntil)))
      throw new SamlInputError('replayed', id);
    if (kind === 'LogoutResponse') {
      const inResponseTo = attributeOf(message, 'InResponseTo');
      if (!inResponseTo) throw new SamlInputError('malformed', 'no InResponseTo');
      const status = onlyChild(message, NS.protocol, 'Status');
      const code = status && onlyChild(status, NS.protocol, 'StatusCode');
      const success = (code && attributeOf(code, 'Value')) === 'urn:oasis:names:tc:SAML:2.0:status:Success';
      return { kind, id, inResponseTo, success };
    }
    const nameId = onlyChild(message, NS.assertion, 'NameID');
    if (!nameId) throw new SamlInputError('unsupported', 'a LogoutRequest without a plain NameID');
    const sessionIndexes = childElements(message, NS.protocol, 'SessionIndex').map(textOf);
    return { kind, id, nameId: textOf(nameId), sessionIndexes, relayState };
  } catch (error) {
    if (error instanceof SamlInputError) throw new SamlSourceRefusal(error.message);
    throw error;
  }
}
