import { randomBytes } from 'node:crypto';

/**
 * The wire format of the CAS protocol (Apereo CAS Protocol 3.0, §2.4–2.7, appendix A and C): the
 * XML and JSON answers of validation and proxy requests, the CAS 1.0 text answer, and the
 * single-logout request.
 */

export const CAS_NS = 'http://www.yale.edu/tp/cas';

/** The error codes of the specification (§2.5.3, §2.7.2). */
export type CasErrorCode =
  | 'INVALID_REQUEST'
  | 'INVALID_TICKET_SPEC'
  | 'UNAUTHORIZED_SERVICE_PROXY'
  | 'INVALID_PROXY_CALLBACK'
  | 'INVALID_TICKET'
  | 'INVALID_SERVICE'
  | 'UNAUTHORIZED_SERVICE'
  | 'INTERNAL_ERROR';

export type CasFormat = 'XML' | 'JSON';

/** A refused validation or proxy request, answered in the protocol (never an HTTP error). */
export class CasFailure extends Error {
  constructor(
    readonly code: CasErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A ticket: its kind's prefix and 256 random bits (a CSPRNG) in hex: tickets may hold only
 * letters, digits and hyphens (§3.1.1, §3.3.1), and clients check it (mod_auth_cas refuses an
 * underscore, which base64url would give).
 */
export const newTicketId = (prefix: 'ST' | 'PT' | 'PGT' | 'PGTIOU') =>
  `${prefix}-${randomBytes(32).toString('hex')}`;

const escapeXml = (value: string) =>
  value.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string,
  );

export interface Authentication {
  user: string;
  /** Released attributes (CAS 3.0), name → values; absent at the CAS 2.0 endpoints. */
  attributes?: Record<string, string[]>;
  proxyGrantingTicketIou?: string;
  /** The proxies a proxy ticket went through, the most recent first. */
  proxies?: string[];
}

export type CasAnswer = { type: string; body: string };
const xml = (inner: string): CasAnswer => ({
  type: 'application/xml; charset=utf-8',
  body: `<cas:serviceResponse xmlns:cas="${CAS_NS}">\n${inner}</cas:serviceResponse>\n`,
});
const json = (inner: Record<string, unknown>): CasAnswer => ({
  type: 'application/json; charset=utf-8',
  body: JSON.stringify({ serviceResponse: inner }),
});

/** An attribute name as an XML element name (the released names are ours, so this is a safeguard). */
const elementName = (name: string) => name.replace(/[^A-Za-z0-9_.-]/g, '_');

export function authenticationSuccess(auth: Authentication, format: CasFormat): CasAnswer {
  if (format === 'JSON')
    return json({
      authenticationSuccess: {
        user: auth.user,
        ...(auth.proxyGrantingTicketIou ? { proxyGrantingTicket: auth.proxyGrantingTicketIou } : {}),
        ...(auth.proxies?.length ? { proxies: auth.proxies } : {}),
        ...(auth.attributes ? { attributes: auth.attributes } : {}),
      },
    });
  let inner = `  <cas:authenticationSuccess>\n    <cas:user>${escapeXml(auth.user)}</cas:user>\n`;
  if (auth.attributes) {
    inner += '    <cas:attributes>\n';
    for (const [name, values] of Object.entries(auth.attributes))
      for (const value of values)
        inner += `      <cas:${elementName(name)}>${escapeXml(value)}</cas:${elementName(name)}>\n`;
    inner += '    </cas:attributes>\n';
  }
  if (auth.proxyGrantingTicketIou)
    inner += `    <cas:proxyGrantingTicket>${escapeXml(auth.proxyGrantingTicketIou)}</cas:proxyGrantingTicket>\n`;
  if (auth.proxies?.length) {
    inner += '    <cas:proxies>\n';
    for (const proxy of auth.proxies) inner += `      <cas:proxy>${escapeXml(proxy)}</cas:proxy>\n`;
    inner += '    </cas:proxies>\n';
  }
  return xml(`${inner}  </cas:authenticationSuccess>\n`);
}

export function authenticationFailure(failure: CasFailure, format: CasFormat): CasAnswer {
  if (format === 'JSON')
    return json({ authenticationFailure: { code: failure.code, description: failure.message } });
  return xml(
    `  <cas:authenticationFailure code="${failure.code}">${escapeXml(failure.message)}</cas:authenticationFailure>\n`,
  );
}

export function proxySuccess(proxyTicket: string, format: CasFormat): CasAnswer {
  if (format === 'JSON') return json({ proxySuccess: { proxyTicket } });
  return xml(
    `  <cas:proxySuccess>\n    <cas:proxyTicket>${escapeXml(proxyTicket)}</cas:proxyTicket>\n  </cas:proxySuccess>\n`,
  );
}

export function proxyFailure(failure: CasFailure, format: CasFormat): CasAnswer {
  if (format === 'JSON') return json({ proxyFailure: { code: failure.code, description: failure.message } });
  return xml(`  <cas:proxyFailure code="${failure.code}">${escapeXml(failure.message)}</cas:proxyFailure>\n`);
}

/** The CAS 1.0 answer of /validate (§2.4.2). */
export const validateText = (user: string | null): CasAnswer => ({
  type: 'text/plain; charset=utf-8',
  body: user === null ? 'no\n\n' : `yes\n${user}\n`,
});

/** The single-logout request posted to a service (appendix C): its SessionIndex is the service ticket. */
export function logoutRequestXml(serviceTicket: string, now = new Date()): string {
  const id = `LR-${randomBytes(16).toString('hex')}`;
  return (
    '<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ' +
    `xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" ` +
    `IssueInstant="${now.toISOString().replace(/\.\d{3}Z$/, 'Z')}">` +
    '<saml:NameID>@NOT_USED@</saml:NameID>' +
    `<samlp:SessionIndex>${escapeXml(serviceTicket)}</samlp:SessionIndex></samlp:LogoutRequest>`
  );
}
