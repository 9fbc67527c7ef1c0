import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { DOMParser, type Document, type Element, type Node } from '@xmldom/xmldom';

/** Namespaces of SAML 2.0 and XML signatures. */
export const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
} as const;

/** Status codes of SAML core §3.2.2.2. */
export const STATUS = {
  success: 'urn:oasis:names:tc:SAML:2.0:status:Success',
  requester: 'urn:oasis:names:tc:SAML:2.0:status:Requester',
  responder: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
  authnFailed: 'urn:oasis:names:tc:SAML:2.0:status:AuthnFailed',
  noPassive: 'urn:oasis:names:tc:SAML:2.0:status:NoPassive',
  requestDenied: 'urn:oasis:names:tc:SAML:2.0:status:RequestDenied',
  invalidNameIdPolicy: 'urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy',
  partialLogout: 'urn:oasis:names:tc:SAML:2.0:status:PartialLogout',
} as const;

/**
 * Why a SAML message or metadata document was refused. Each is a phrase of the portal's error
 * page (saml.problem.*) and of the console's errors; the details go to the server log only.
 */
export type SamlProblem =
  | 'too_large'
  | 'malformed'
  | 'dtd'
  | 'unexpected_message'
  | 'unknown_service_provider'
  | 'signature_missing'
  | 'signature_invalid'
  | 'certificate_missing'
  | 'acs_not_registered'
  | 'destination_mismatch'
  | 'replayed'
  | 'expired'
  | 'unsupported'
  | 'no_session';

export class SamlInputError extends Error {
  constructor(
    readonly problem: SamlProblem,
    detail?: string,
  ) {
    super(detail ? `${problem}: ${detail}` : problem);
  }
}

/** Protocol messages are small; a document past this is refused before it is parsed. */
export const MESSAGE_MAX_BYTES = 64 * 1024;

/** The shape a document may have: how many elements, how deeply nested (checked before parsing). */
export interface XmlShapeLimits {
  maxBytes: number;
  maxElements: number;
  maxDepth: number;
}

/** A protocol message (an AuthnRequest holds about ten elements). */
export const MESSAGE_LIMITS: XmlShapeLimits = { maxBytes: MESSAGE_MAX_BYTES, maxElements: 300, maxDepth: 32 };

/**
 * Counts elements and nesting with one pass over the text, before the DOM parser (whose time
 * grows faster than the document) sees it: a flood of elements or a deep nest is refused in
 * microseconds. Comments, CDATA, processing instructions and quoted attribute values are skipped.
 */
export function checkXmlShape(text: string, limits: XmlShapeLimits): void {
  let elements = 0;
  let depth = 0;
  let at = text.indexOf('<');
  const skipTo = (from: number, end: string) => {
    const found = text.indexOf(end, from);
    if (found < 0) throw new SamlInputError('malformed', `unterminated ${end}`);
    return found + end.length;
  };
  while (at >= 0) {
    let next: number;
    if (text.startsWith('<!--', at)) next = skipTo(at + 4, '-->');
    else if (text.startsWith('<![CDATA[', at)) next = skipTo(at + 9, ']]>');
    else if (text.startsWith('<?', at)) next = skipTo(at + 2, '?>');
    else if (text.startsWith('</', at)) {
      depth--;
      next = skipTo(at + 2, '>');
    } else {
      let quote = '';
      let end = at + 1;
      for (; end < text.length; end++) {
        const c = text[end];
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '>') break;
      }
      if (end >= text.length) throw new SamlInputError('malformed', 'unterminated tag');
      elements++;
      if (text[end - 1] !== '/') depth++;
      if (elements > limits.maxElements || depth > limits.maxDepth)
        throw new SamlInputError(
          'too_large',
          `more than ${limits.maxElements} elements or ${limits.maxDepth} levels`,
        );
      next = end + 1;
    }
    at = text.indexOf('<', next);
  }
}

/**
 * Parses untrusted XML strictly: no document type declaration (so no entities, internal or
 * external, and nothing is ever fetched), any parser complaint refuses the document, and the
 * size, the number of elements and their nesting are bounded before parsing starts.
 */
export function parseXml(text: string, limits: XmlShapeLimits = MESSAGE_LIMITS): Document {
  if (Buffer.byteLength(text, 'utf8') > limits.maxBytes) throw new SamlInputError('too_large');
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new SamlInputError('dtd');
  checkXmlShape(text, limits);
  let doc: Document;
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        throw new SamlInputError('malformed', `${level}: ${message}`);
      },
    }).parseFromString(text, 'text/xml');
  } catch (error) {
    if (error instanceof SamlInputError) throw error;
    throw new SamlInputError('malformed', error instanceof Error ? error.message : String(error));
  }
  if (doc.doctype || !doc.documentElement) throw new SamlInputError('malformed', 'no root element');
  return doc;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;

const isElement = (node: Node | null): node is Element => node?.nodeType === ELEMENT_NODE;

/** The element children of `parent` with this namespace and local name. */
export function childElements(parent: Element, ns: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (isElement(node) && node.namespaceURI === ns && node.localName === localName) found.push(node);
  }
  return found;
}

/** The one child of that name, or undefined; two of them refuse the message. */
export function onlyChild(parent: Element, ns: string, localName: string): Element | undefined {
  const found = childElements(parent, ns, localName);
  if (found.length > 1) throw new SamlInputError('malformed', `more than one ${localName}`);
  return found[0];
}

/**
 * The text of a simple element (an Issuer, a NameID): exactly one text node and nothing else.
 * Comments, processing instructions, CDATA sections and child elements are refused, because a
 * canonicalised signature does not see them the way a reader does (`admin<!---->.evil`).
 */
export function textOf(element: Element): string {
  const nodes: Node[] = [];
  for (let node = element.firstChild; node; node = node.nextSibling) nodes.push(node);
  if (nodes.length === 0) return '';
  if (nodes.length !== 1 || nodes[0]?.nodeType !== TEXT_NODE)
    throw new SamlInputError('malformed', `${element.localName} must hold plain text only`);
  return (nodes[0].nodeValue ?? '').trim();
}

/** An attribute of the element, or undefined when absent. */
export const attributeOf = (element: Element, name: string): string | undefined =>
  element.hasAttribute(name) ? (element.getAttribute(name) ?? undefined) : undefined;

/** A SAML ID (xsd:ID: an NCName), bounded in length. */
export const isSamlId = (value: string | undefined): value is string =>
  typeof value === 'string' && /^[A-Za-z_][\w.-]{0,255}$/.test(value);

/** A new message or assertion id: 160 random bits, starting with a letter as xsd:ID requires. */
export const newSamlId = (): string => `_${randomBytes(20).toString('hex')}`;

/** xsd:dateTime in UTC, whole seconds, as SAML writes its instants. */
export const samlInstant = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;

/** An xsd:dateTime with a zone (Z or ±hh:mm); undefined when it is not one. */
export function parseInstant(value: string | undefined): Date | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(value))
    return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const xmlEscapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text or an attribute value, escaped for XML. */
export const xmlText = (value: string): string => value.replace(/[&<>"']/g, (c) => xmlEscapes[c] ?? c);

/** Base64 as the bindings carry it, refused when it is not base64 at all. */
export function decodeBase64(value: string, maxBytes: number): Buffer {
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) throw new SamlInputError('malformed', 'not base64');
  if ((compact.length * 3) / 4 > maxBytes) throw new SamlInputError('too_large');
  return Buffer.from(compact, 'base64');
}

/** HTTP-Redirect: base64 of the DEFLATE-compressed message, inflated within the message limit. */
export function decodeRedirectMessage(value: string): string {
  const compressed = decodeBase64(value, MESSAGE_MAX_BYTES);
  try {
    return inflateRawSync(compressed, { maxOutputLength: MESSAGE_MAX_BYTES }).toString('utf8');
  } catch (error) {
    const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    throw new SamlInputError(tooLarge ? 'too_large' : 'malformed', 'not DEFLATE data');
  }
}

/**
 * HTTP-POST: base64 of the message. Some service providers (node-saml and passport-saml by
 * default) DEFLATE it as for HTTP-Redirect: what is not XML is inflated, within the same limit.
 */
export function decodePostMessage(value: string): string {
  const bytes = decodeBase64(value, MESSAGE_MAX_BYTES);
  const text = bytes.toString('utf8');
  if (text.trimStart().startsWith('<')) return text;
  return decodeRedirectMessage(bytes.toString('base64'));
}
