import type { Document, Element } from '@xmldom/xmldom';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { AppSamlConfig } from '../../db/schema-saml.ts';
import { findServiceProvider, rememberMessageId } from './saml.repo.ts';
import {
  queryValue,
  rawQueryParameters,
  verifyEnvelopedSignature,
  verifyRedirectSignature,
} from './saml-signature.ts';
import {
  attributeOf,
  decodePostMessage,
  decodeRedirectMessage,
  isSamlId,
  NS,
  onlyChild,
  parseInstant,
  parseXml,
  SamlInputError,
  textOf,
} from './saml-xml.ts';

/** Clocks of service providers may differ from ours by this much. */
export const CLOCK_SKEW_MS = 180_000;
/** A message older than this (by its IssueInstant) is refused. */
export const MESSAGE_MAX_AGE_MS = 10 * 60_000;

export type SamlMessageKind = 'AuthnRequest' | 'LogoutRequest' | 'LogoutResponse';

/** A message received from a service provider, checked: whose it is, and the element to read. */
export interface ReceivedMessage {
  app: App;
  config: AppSamlConfig;
  /** The message element itself: the signed content when it was signed, never anything around it. */
  message: Element;
  id: string;
  signed: boolean;
  relayState: string | undefined;
  binding: 'redirect' | 'post';
}

/** The raw message and RelayState of a request, by binding (GET: HTTP-Redirect, POST: HTTP-POST). */
function carried(request: FastifyRequest, parameter: 'SAMLRequest' | 'SAMLResponse') {
  if (request.method === 'GET') {
    const raw = rawQueryParameters(request.raw.url ?? '');
    const value = raw.get(parameter);
    if (!value) throw new SamlInputError('malformed', `${parameter} missing`);
    const relayState = raw.get('RelayState');
    return {
      binding: 'redirect' as const,
      raw,
      xml: decodeRedirectMessage(queryValue(value)),
      relayState: relayState === undefined ? undefined : queryValue(relayState),
    };
  }
  const body = (request.body ?? {}) as Record<string, unknown>;
  const value = body[parameter];
  if (typeof value !== 'string' || !value) throw new SamlInputError('malformed', `${parameter} missing`);
  const relayState = typeof body.RelayState === 'string' ? body.RelayState : undefined;
  return { binding: 'post' as const, raw: undefined, xml: decodePostMessage(value), relayState };
}

const issuerOf = (element: Element): string => {
  const issuer = onlyChild(element, NS.assertion, 'Issuer');
  if (!issuer) throw new SamlInputError('unknown_service_provider', 'no Issuer');
  return textOf(issuer);
};

/**
 * Receives a SAML message on one of the company's endpoints: decodes it by binding, finds the
 * service provider by its Issuer, verifies its signature (required when the app asks for signed
 * requests, and always for logout messages of a service provider with a signing certificate),
 * then checks version, ID, age and destination, and remembers the ID so that it is accepted once.
 */
export async function receiveMessage(
  db: Db,
  request: FastifyRequest,
  expect: { companyId: string; kind: SamlMessageKind; endpoint: string },
): Promise<ReceivedMessage> {
  const parameter = expect.kind === 'LogoutResponse' ? 'SAMLResponse' : 'SAMLRequest';
  const { binding, raw, xml, relayState } = carried(request, parameter);
  const doc: Document = parseXml(xml);
  const root = doc.documentElement;
  if (root?.namespaceURI !== NS.protocol || root.localName !== expect.kind)
    throw new SamlInputError('unexpected_message', root?.localName ?? undefined);
  const issuer = issuerOf(root);
  const found = await findServiceProvider(db, expect.companyId, issuer);
  if (!found) throw new SamlInputError('unknown_service_provider', issuer);
  const certificates = found.config.signing_certificates;

  let message = root;
  let signed: boolean;
  if (binding === 'redirect') {
    // The binding signs the query; a signature inside the message is not part of it.
    if (doc.getElementsByTagNameNS(NS.ds, 'Signature').length)
      throw new SamlInputError('malformed', 'HTTP-Redirect messages carry no XML signature');
    signed = verifyRedirectSignature(raw as Map<string, string>, parameter, certificates);
  } else {
    const signedDoc = verifyEnvelopedSignature(xml, doc, certificates);
    signed = Boolean(signedDoc);
    if (signedDoc?.documentElement) message = signedDoc.documentElement;
  }
  const mustBeSigned =
    expect.kind === 'AuthnRequest' ? found.config.require_signed_requests : certificates.length > 0;
  if (mustBeSigned && !signed) throw new SamlInputError('signature_missing');
  if (signed && issuerOf(message) !== issuer) throw new SamlInputError('signature_invalid', 'Issuer changed');

  const id = attributeOf(message, 'ID');
  if (attributeOf(message, 'Version') !== '2.0') throw new SamlInputError('unsupported', 'SAML version');
  if (!isSamlId(id)) throw new SamlInputError('malformed', 'ID');
  const issued = parseInstant(attributeOf(message, 'IssueInstant'));
  const now = Date.now();
  if (
    !issued ||
    issued.getTime() > now + CLOCK_SKEW_MS ||
    issued.getTime() < now - MESSAGE_MAX_AGE_MS - CLOCK_SKEW_MS
  )
    throw new SamlInputError('expired', 'IssueInstant');
  const notOnOrAfter = parseInstant(attributeOf(message, 'NotOnOrAfter'));
  if (
    attributeOf(message, 'NotOnOrAfter') !== undefined &&
    (!notOnOrAfter || notOnOrAfter.getTime() + CLOCK_SKEW_MS <= now)
  )
    throw new SamlInputError('expired', 'NotOnOrAfter');
  const destination = attributeOf(message, 'Destination');
  if (destination !== undefined && destination !== expect.endpoint)
    throw new SamlInputError('destination_mismatch', destination);
  if (signed && destination === undefined) throw new SamlInputError('destination_mismatch', 'missing');
  const keepUntil = new Date(now + MESSAGE_MAX_AGE_MS + 2 * CLOCK_SKEW_MS);
  if (!(await rememberMessageId(db, found.app.id, id, keepUntil))) throw new SamlInputError('replayed', id);
  return { ...found, message, id, signed, relayState, binding };
}
