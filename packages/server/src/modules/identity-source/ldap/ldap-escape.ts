import { AndFilter, EqualityFilter, type Filter, FilterParser } from 'ldapts';

/**
 * Escaping of values put into LDAP filters (RFC 4515) and distinguished names (RFC 4514), and
 * the two forms of a unique identifier: a text one (entryUUID) and Active Directory's binary
 * objectGUID, whose string form has its first three groups little-endian.
 */

/**
 * A value for an assertion in a filter (RFC 4515 §3): `*`, `(`, `)`, `\` and NUL become `\2a`,
 * `\28`, `\29`, `\5c` and `\00`, so that a typed username can only ever be a value: `*` finds
 * the entry named "*", not every entry.
 */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * An attribute value inside a DN (RFC 4514 §2.4): `"`, `+`, `,`, `;`, `<`, `>`, `\` anywhere, a
 * leading `#` or space, a trailing space and NUL are escaped; the value can then not add an RDN
 * or leave the template's place.
 */
export function escapeDnValue(value: string): string {
  let escaped = value.replace(/["+,;<>\\]/g, (c) => `\\${c}`).replace(/\0/g, '\\00');
  if (escaped.startsWith('#') || escaped.startsWith(' ')) escaped = `\\${escaped}`;
  if (escaped.endsWith(' ') && !escaped.endsWith('\\ ')) escaped = `${escaped.slice(0, -1)}\\ `;
  return escaped;
}

/** The DN of a user DN template with the username put in its place (escaped per RFC 4514). */
export const userDnFromTemplate = (template: string, username: string) =>
  template.split('{username}').join(escapeDnValue(username));

/** Attributes whose values are binary: read as bytes and shown as a GUID. */
export const BINARY_ID_ATTRIBUTES = new Set(['objectguid']);

/** Active Directory's string form of objectGUID bytes (the first three groups little-endian). */
export function guidFromBytes(bytes: Buffer): string {
  if (bytes.length !== 16) return bytes.toString('hex');
  const hex = (from: number, to: number, reverse: boolean) => {
    const part = [...bytes.subarray(from, to)];
    return (reverse ? part.reverse() : part).map((b) => b.toString(16).padStart(2, '0')).join('');
  };
  return [hex(0, 4, true), hex(4, 6, true), hex(6, 8, true), hex(8, 10, false), hex(10, 16, false)].join('-');
}

/** The bytes of an objectGUID from its string form (the inverse of guidFromBytes). */
export function bytesFromGuid(guid: string): Buffer | undefined {
  const match = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i.exec(guid);
  if (!match) return undefined;
  const [, a, b, c, d, e] = match as unknown as [string, string, string, string, string, string];
  const little = (hex: string) => Buffer.from(hex, 'hex').reverse();
  return Buffer.concat([little(a), little(b), little(c), Buffer.from(d, 'hex'), Buffer.from(e, 'hex')]);
}

/**
 * The user filter narrowed to the entry with a stored unique identifier. A filter object, not
 * text: ldapts reads a `\9a` of filter text as the character U+009A and sends it as two UTF-8
 * bytes, so an objectGUID with any byte above 0x7f (nearly all of them) would match nothing.
 */
export function uniqueIdFilter(
  userFilter: string,
  attribute: string,
  externalId: string,
): Filter | undefined {
  let value: string | Buffer = externalId;
  if (BINARY_ID_ATTRIBUTES.has(attribute.toLowerCase())) {
    const bytes = bytesFromGuid(externalId);
    if (!bytes) return undefined;
    value = bytes;
  }
  return new AndFilter({
    filters: [FilterParser.parseString(userFilter), new EqualityFilter({ attribute, value })],
  });
}

/** Active Directory: bit 2 (ACCOUNTDISABLE) of userAccountControl. */
export const AD_ACCOUNT_DISABLED = 0x2;
