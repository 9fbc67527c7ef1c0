import { createHash } from 'node:crypto';
import { invalidValue, ScimError } from './scim-errors.ts';
import { prop } from './scim-filter.ts';

/** Helpers every SCIM resource shares: versions (ETags), attribute selection, lenient values. */

/** meta.version: a weak ETag of everything the resource says (RFC 7644 §3.14). */
export function versionOf(resource: Record<string, unknown>): string {
  const { meta, ...rest } = resource;
  const hash = createHash('sha256').update(JSON.stringify(rest)).digest('base64url').slice(0, 22);
  return `W/"${hash}"`;
}

/** If-Match: the resource must still be at one of the versions given (or `*`), else 412. */
export function assertIfMatch(header: string | string[] | undefined, current: string) {
  if (header === undefined) return;
  const given = (Array.isArray(header) ? header.join(',') : header).split(',').map((v) => v.trim());
  const bare = (tag: string) => tag.replace(/^W\//, '');
  if (given.includes('*') || given.some((tag) => bare(tag) === bare(current))) return;
  throw new ScimError('scim.precondition_failed');
}

/** Entra ID sends booleans as strings ("True", "False"); so do some HR systems. */
export function booleanOf(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim()))
    return value.trim().toLowerCase() === 'true';
  throw invalidValue(`${attribute} must be true or false`);
}

export function stringOf(value: unknown, attribute: string, max = 256): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw invalidValue(`${attribute} must be a string`);
  if (value.length > max) throw invalidValue(`${attribute} is longer than ${max}`);
  return value;
}

/**
 * attributes / excludedAttributes (RFC 7644 §3.4.2.5): `id` and `schemas` always stay. Names
 * may carry a schema URN (`urn:…:User:userName`) and a sub-attribute (`name.givenName`).
 */
export function selectAttributes(
  resource: Record<string, unknown>,
  options: { attributes?: string; excludedAttributes?: string },
  coreSchema: string,
): Record<string, unknown> {
  const parse = (list: string) =>
    list
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
      .slice(0, 100)
      .map((name) => {
        let rest = name;
        let schema = coreSchema;
        if (/^urn:/i.test(name)) {
          const colon = name.lastIndexOf(':');
          schema = name.slice(0, colon);
          rest = name.slice(colon + 1);
        }
        const [attr = '', sub] = rest.split('.');
        return { schema: schema.toLowerCase(), attr: attr.toLowerCase(), sub: sub?.toLowerCase() };
      });
  const always = new Set(['id', 'schemas']);
  const keyIn = (schema: string) => (key: string) => key.toLowerCase() === schema;
  if (options.attributes) {
    const wanted = parse(options.attributes);
    const out: Record<string, unknown> = {};
    const pick = (source: Record<string, unknown>, schema: string) => {
      const picked: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(source)) {
        if (key.startsWith('urn:')) continue;
        if (schema === coreSchema.toLowerCase() && always.has(key)) {
          picked[key] = value;
          continue;
        }
        const asked = wanted.filter((w) => w.schema === schema && w.attr === key.toLowerCase());
        if (!asked.length) continue;
        if (asked.some((w) => !w.sub) || !value || typeof value !== 'object') picked[key] = value;
        else
          picked[key] = subset(
            value,
            asked.map((w) => w.sub as string),
          );
      }
      return picked;
    };
    Object.assign(out, pick(resource, coreSchema.toLowerCase()));
    for (const [key, value] of Object.entries(resource)) {
      if (!key.startsWith('urn:') || !value || typeof value !== 'object') continue;
      const whole = wanted.some((w) => `${w.schema}:${w.attr}` === key.toLowerCase());
      const part = pick(value as Record<string, unknown>, key.toLowerCase());
      if (whole) out[key] = value;
      else if (Object.keys(part).length) out[key] = part;
    }
    return out;
  }
  if (options.excludedAttributes) {
    const excluded = parse(options.excludedAttributes);
    const drop = (source: Record<string, unknown>, schema: string) => {
      const kept: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(source)) {
        const hits = excluded.filter((w) => w.schema === schema && w.attr === key.toLowerCase());
        if (always.has(key) || !hits.length) kept[key] = value;
        else if (hits.every((w) => w.sub) && value && typeof value === 'object')
          kept[key] = without(
            value,
            hits.map((w) => w.sub as string),
          );
      }
      return kept;
    };
    const out = drop(resource, coreSchema.toLowerCase());
    for (const key of Object.keys(out)) {
      if (!key.startsWith('urn:')) continue;
      if (excluded.some((w) => keyIn(key)(`${w.schema}:${w.attr}`))) delete out[key];
      else out[key] = drop(out[key] as Record<string, unknown>, key.toLowerCase());
    }
    return out;
  }
  return resource;
}

const subset = (value: unknown, subs: string[]): unknown =>
  Array.isArray(value)
    ? value.map((item) => subset(item, subs))
    : Object.fromEntries(Object.entries(value as object).filter(([k]) => subs.includes(k.toLowerCase())));

const without = (value: unknown, subs: string[]): unknown =>
  Array.isArray(value)
    ? value.map((item) => without(item, subs))
    : Object.fromEntries(Object.entries(value as object).filter(([k]) => !subs.includes(k.toLowerCase())));

/** startIndex and count of a list (RFC 7644 §3.4.2.4): 1-based, count 0 answers only the total. */
export function pageOf(query: { startIndex?: unknown; count?: unknown }, max: number) {
  const number = (value: unknown, fallback: number) => {
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (!Number.isFinite(n)) throw invalidValue('startIndex and count must be numbers');
    return Math.trunc(n);
  };
  const startIndex = Math.max(1, number(query.startIndex, 1));
  const count = Math.min(max, Math.max(0, number(query.count, 100)));
  return { startIndex, count };
}

/** The value of a query parameter read case-insensitively (clients differ in `startIndex` / `startindex`). */
export const queryParam = (query: Record<string, unknown>, name: string): string | undefined => {
  const value = prop(query, name);
  return typeof value === 'string' ? value : undefined;
};
