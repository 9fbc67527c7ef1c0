import { type RawBuilder, sql } from 'kysely';
import type { LdapFilter } from './ldap-wire.ts';

/**
 * An LDAP filter as a SQL condition, evaluated by the database with its indexes: the values are
 * parameters, never text of the statement. LDAP's three values map onto SQL's: a filter on an
 * attribute this directory does not serve is Undefined (SQL null), which `not` keeps Undefined,
 * so it matches nothing (RFC 4511 4.5.1.7); an attribute an entry lacks is FALSE.
 */

export type Condition = RawBuilder<boolean | null>;

/** How an attribute is found on an entry: a column expression, constant values, or a DN-valued relation. */
export type AttributeSource =
  | { kind: 'text'; exprs: RawBuilder<string | null>[]; exact?: boolean }
  | { kind: 'const'; values: readonly string[] }
  | {
      /** An attribute whose values are found through a relation (DNs, or memberUid's usernames). */
      kind: 'dn';
      /** The entry has the attribute at all. */
      present: Condition;
      /** The entry has this DN (or value) among the attribute's values (null: it names nothing here). */
      equals(dn: string): Condition | null;
    }
  | {
      /** An INTEGER attribute (integerMatch, integerOrderingMatch: uidNumber, gidNumber). */
      kind: 'integer';
      present: Condition;
      compare(op: '=' | '>=' | '<=', value: number): Condition;
    };

const TRUE: Condition = sql<boolean>`true`;
const FALSE: Condition = sql<boolean>`false`;
const UNDEFINED: Condition = sql<null>`null::boolean`;
/** Deeper filters are Undefined: no client needs them, and the statement stays small. */
const MAX_DEPTH = 32;
/** Nor more clauses than this in one and/or. */
const MAX_CLAUSES = 256;

/**
 * A filter value as the person meant it. @ldapjs/filter hands values over in their RFC 4515
 * string form (`\2a` for a star), whatever the wire carried: the escapes become their bytes,
 * read as UTF-8. PostgreSQL text refuses NUL: it becomes U+FFFD, which matches nothing.
 */
function clean(value: unknown): string {
  const text = String(value ?? '');
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === '\\' ? text.slice(i + 1, i + 3) : '';
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      const code = text.codePointAt(i) as number;
      if (code > 0xffff) i++;
      bytes.push(...Buffer.from(String.fromCodePoint(code), 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8').replaceAll('\u0000', '\ufffd');
}
const likeEscape = (value: string) => clean(value).replace(/[\\%_]/g, (c) => `\\${c}`);

const anyOf = (conditions: Condition[]): Condition =>
  conditions.length === 1 ? (conditions[0] as Condition) : sql`(${sql.join(conditions, sql` or `)})`;

function textCompare(source: Extract<AttributeSource, { kind: 'text' }>, op: string, value: string) {
  return anyOf(
    source.exprs.map((expr) =>
      source.exact
        ? sql<boolean>`(${expr} is not null and ${expr} ${sql.raw(op)} ${value})`
        : sql<boolean>`(${expr} is not null and lower(${expr}) ${sql.raw(op)} lower(${value}))`,
    ),
  );
}

function constCompare(values: readonly string[], test: (value: string) => boolean): Condition {
  return values.some((value) => test(value.toLowerCase())) ? TRUE : FALSE;
}

function substringPattern(filter: LdapFilter) {
  return `${likeEscape(filter.initial ?? '')}%${(filter.any ?? []).map((part) => `${likeEscape(part)}%`).join('')}${likeEscape(filter.final ?? '')}`;
}

function substringRegExp(filter: LdapFilter) {
  const quote = (part: string) =>
    clean(part)
      .toLowerCase()
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^${quote(filter.initial ?? '')}.*${(filter.any ?? []).map((part) => `${quote(part)}.*`).join('')}${quote(filter.final ?? '')}$`,
    's',
  );
}

/** An integer filter: a value that is not an integer (or out of range) is Undefined. */
function integerLeaf(filter: LdapFilter, source: Extract<AttributeSource, { kind: 'integer' }>): Condition {
  if (filter.type === 'PresenceFilter') return source.present;
  const value = clean(filter.value).trim();
  const number = /^-?[0-9]{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || Math.abs(number) > 2 ** 31 - 1) return UNDEFINED;
  if (filter.type === 'EqualityFilter' || filter.type === 'ApproximateFilter')
    return source.compare('=', number);
  if (filter.type === 'GreaterThanEqualsFilter') return source.compare('>=', number);
  if (filter.type === 'LessThanEqualsFilter') return source.compare('<=', number);
  // No substring matching rule for integers.
  return UNDEFINED;
}

function leaf(filter: LdapFilter, source: AttributeSource | undefined): Condition {
  if (!source) return UNDEFINED;
  if (source.kind === 'integer') return integerLeaf(filter, source);
  const value = clean(filter.value);
  switch (filter.type) {
    case 'PresenceFilter':
      if (source.kind === 'const') return TRUE;
      if (source.kind === 'dn') return source.present;
      return anyOf(source.exprs.map((expr) => sql<boolean>`${expr} is not null`));
    case 'EqualityFilter':
    case 'ApproximateFilter':
      if (source.kind === 'const') return constCompare(source.values, (v) => v === value.toLowerCase());
      if (source.kind === 'dn') return source.equals(value) ?? FALSE;
      return textCompare(source, '=', source.exact ? value.toLowerCase() : value);
    case 'SubstringFilter': {
      if (source.kind === 'const') {
        const pattern = substringRegExp(filter);
        return constCompare(source.values, (v) => pattern.test(v));
      }
      if (source.kind === 'dn') return UNDEFINED;
      const pattern = substringPattern(filter);
      return anyOf(
        source.exprs.map(
          (expr) => sql<boolean>`(${expr} is not null and lower(${expr}) like lower(${pattern}))`,
        ),
      );
    }
    case 'GreaterThanEqualsFilter':
    case 'LessThanEqualsFilter': {
      const op = filter.type === 'GreaterThanEqualsFilter' ? '>=' : '<=';
      if (source.kind === 'const')
        return constCompare(source.values, (v) =>
          op === '>=' ? v >= value.toLowerCase() : v <= value.toLowerCase(),
        );
      if (source.kind === 'dn') return UNDEFINED;
      return textCompare(source, op, value);
    }
    default:
      // Extensible matching: no matching rules are served.
      return UNDEFINED;
  }
}

/**
 * The condition of a filter over entries whose attributes `attributeOf` finds (by lower-case
 * name; undefined: not served). A WHERE keeps the rows where it is true: Undefined (null) and
 * false leave alike. A served attribute's test is never null (`x is not null and …`), so that
 * `not` of an absent attribute's test is true, and the planner sees plain comparisons such as
 * `lower(a.username) = lower($1)`, which the indexes serve.
 */
export function filterToSql(
  filter: LdapFilter,
  attributeOf: (name: string) => AttributeSource | undefined,
  depth = 0,
): Condition {
  if (depth > MAX_DEPTH) return UNDEFINED;
  switch (filter.type) {
    case 'AndFilter':
    case 'OrFilter': {
      const clauses = filter.clauses ?? [];
      if (clauses.length > MAX_CLAUSES) return UNDEFINED;
      // RFC 4526: the absolute true (&) and false (|).
      if (clauses.length === 0) return filter.type === 'AndFilter' ? TRUE : FALSE;
      const parts = clauses.map((clause) => filterToSql(clause, attributeOf, depth + 1));
      return sql`(${sql.join(parts, filter.type === 'AndFilter' ? sql` and ` : sql` or `)})`;
    }
    case 'NotFilter':
      return filter.filter ? sql`(not ${filterToSql(filter.filter, attributeOf, depth + 1)})` : UNDEFINED;
    default: {
      // An attribute description with options (cn;lang-en) names nothing served.
      const name = filter.attribute.toLowerCase();
      return leaf(filter, name.includes(';') ? undefined : attributeOf(name));
    }
  }
}

/** The same evaluation in memory, for the few fixed entries (the OUs and the company's entry). */
export function filterMatches(
  filter: LdapFilter,
  entry: Record<string, readonly string[]>,
  depth = 0,
): boolean | null {
  if (depth > MAX_DEPTH) return null;
  const values = (name: string) => {
    const key = Object.keys(entry).find((k) => k.toLowerCase() === name.toLowerCase());
    return key === undefined ? undefined : (entry[key] ?? []).map((v) => v.toLowerCase());
  };
  switch (filter.type) {
    case 'AndFilter':
    case 'OrFilter': {
      const results = (filter.clauses ?? []).map((clause) => filterMatches(clause, entry, depth + 1));
      if (filter.type === 'AndFilter')
        return results.includes(false) ? false : results.includes(null) ? null : true;
      return results.includes(true) ? true : results.includes(null) ? null : false;
    }
    case 'NotFilter': {
      const result = filter.filter ? filterMatches(filter.filter, entry, depth + 1) : null;
      return result === null ? null : !result;
    }
    default: {
      const name = filter.attribute.toLowerCase();
      const known = ['objectclass', 'dc', 'ou', 'cn', 'description'];
      if (!known.includes(name)) return null;
      const have = values(name);
      if (!have) return false;
      const value = clean(filter.value).toLowerCase();
      switch (filter.type) {
        case 'PresenceFilter':
          return true;
        case 'EqualityFilter':
        case 'ApproximateFilter':
          return have.includes(value);
        case 'SubstringFilter': {
          const pattern = substringRegExp(filter);
          return have.some((v) => pattern.test(v));
        }
        case 'GreaterThanEqualsFilter':
          return have.some((v) => v >= value);
        case 'LessThanEqualsFilter':
          return have.some((v) => v <= value);
        default:
          return null;
      }
    }
  }
}
