import type { Entry } from 'ldapts';
import type { LdapSettings } from '../identity-source.repo.ts';
import { BINARY_ID_ATTRIBUTES, guidFromBytes } from './ldap-escape.ts';

/** Reading the attributes of a directory entry as ldapts answers it, and comparing DNs. */

/** A DN compared the way directories do for our purposes: lower case, no spaces around separators. */
export const normaliseDn = (dn: string) =>
  dn
    .trim()
    .replace(/\s*([,=+])\s*/g, '$1')
    .toLowerCase();

/** The DN of the entry holding this one (an escaped comma, `\,`, is part of a value, not a separator). */
export function parentDn(dn: string): string {
  for (let i = 0; i < dn.length; i++) {
    if (dn[i] === '\\') i++;
    else if (dn[i] === ',') return dn.slice(i + 1);
  }
  return '';
}

function first(entry: Entry, attribute: string): string | Buffer | undefined {
  const key = Object.keys(entry).find((name) => name.toLowerCase() === attribute.toLowerCase());
  const value = key ? entry[key] : undefined;
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined ? undefined : (one as string | Buffer);
}

export function all(entry: Entry, attribute: string): string[] {
  const key = Object.keys(entry).find((name) => name.toLowerCase() === attribute.toLowerCase());
  const value = key ? entry[key] : undefined;
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
}

export const text = (entry: Entry, attribute: string): string | undefined => {
  const value = first(entry, attribute);
  return value === undefined ? undefined : Buffer.isBuffer(value) ? value.toString('utf8') : value;
};

/** The unique identifier of an entry as stored: a GUID string for objectGUID, else the text. */
export function externalIdOf(entry: Entry, attribute: string): string | undefined {
  const value = first(entry, attribute);
  if (value === undefined) return undefined;
  if (BINARY_ID_ATTRIBUTES.has(attribute.toLowerCase()))
    return Buffer.isBuffer(value) ? guidFromBytes(value) : guidFromBytes(Buffer.from(value, 'binary'));
  return (Buffer.isBuffer(value) ? value.toString('utf8') : value).trim() || undefined;
}

/** The attributes to be read as bytes (a binary unique identifier). */
export const bufferAttributes = (settings: LdapSettings) =>
  BINARY_ID_ATTRIBUTES.has(settings.uniqueIdAttribute.toLowerCase()) ? [settings.uniqueIdAttribute] : [];
