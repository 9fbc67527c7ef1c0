import { invalidFilter, invalidPath } from './scim-errors.ts';

/**
 * RFC 7644 §3.4.2.2 filters and §3.5.2 PATCH paths: a hand-written parser with bounds (length,
 * nesting, terms), so a hostile filter costs at most a few thousand steps, and an evaluator over
 * a resource's JSON for the attributes that have no column (scim-filter-sql.ts compiles the rest).
 */

export const filterLimits = { length: 2000, depth: 8, terms: 64 } as const;

export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
export type Value = string | number | boolean | null;

/** An attribute path: optional schema URN, attribute, optional sub-attribute (names as written). */
export interface AttrPath {
  schema?: string;
  attr: string;
  sub?: string;
}

export type Filter =
  | { op: 'pr'; path: AttrPath }
  | { op: CompareOp; path: AttrPath; value: Value }
  | { op: 'and' | 'or'; left: Filter; right: Filter }
  | { op: 'not'; filter: Filter }
  /** attr[filter]: some value of the multi-valued attribute matches the inner filter. */
  | { op: 'has'; path: AttrPath; filter: Filter };

const compareOps = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);

type Token =
  | { kind: 'word'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'punct'; text: '(' | ')' | '[' | ']' };

function tokenize(input: string, fail: (why: string) => Error): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '(' || c === ')' || c === '[' || c === ']') {
      tokens.push({ kind: 'punct', text: c });
      i++;
    } else if (c === '"') {
      // A JSON string: escapes as JSON has them.
      let j = i + 1;
      while (j < input.length && input[j] !== '"') j += input[j] === '\\' ? 2 : 1;
      if (j >= input.length) throw fail('unterminated string');
      try {
        tokens.push({ kind: 'string', text: JSON.parse(input.slice(i, j + 1)) as string });
      } catch {
        throw fail('bad string escape');
      }
      i = j + 1;
    } else {
      const match = /^[A-Za-z0-9:._$+\-@]+/.exec(input.slice(i, i + 600));
      if (!match) throw fail(`unexpected "${c}"`);
      tokens.push({ kind: 'word', text: match[0] });
      i += match[0].length;
    }
    if (tokens.length > filterLimits.terms * 4) throw fail('too many terms');
  }
  return tokens;
}

/** `urn:…:User:emails.value` → schema, attr, sub; `name.givenName` → attr, sub. */
export function parseAttrPath(text: string, fail: (why: string) => Error = invalidPath): AttrPath {
  let schema: string | undefined;
  let rest = text;
  if (/^urn:/i.test(text)) {
    const colon = text.lastIndexOf(':');
    schema = text.slice(0, colon);
    rest = text.slice(colon + 1);
  }
  const parts = rest.split('.');
  const name = /^[A-Za-z$][A-Za-z0-9_$-]*$/;
  if (parts.length > 2 || !parts.every((p) => name.test(p))) throw fail(`bad attribute "${text}"`);
  return { ...(schema ? { schema } : {}), attr: parts[0] as string, ...(parts[1] ? { sub: parts[1] } : {}) };
}

function literalOf(token: Token | undefined): Value {
  if (!token) throw invalidFilter('missing value');
  if (token.kind === 'string') return token.text;
  if (token.kind === 'word') {
    const lower = token.text.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    if (lower === 'null') return null;
    if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(token.text)) return Number(token.text);
  }
  throw invalidFilter('bad value');
}

class Parser {
  private at = 0;
  private terms = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek() {
    return this.tokens[this.at];
  }
  private next() {
    return this.tokens[this.at++];
  }
  private isWord(token: Token | undefined, word: string) {
    return token?.kind === 'word' && token.text.toLowerCase() === word;
  }
  private expect(text: string) {
    const token = this.next();
    if (token?.kind !== 'punct' || token.text !== text) throw invalidFilter(`expected "${text}"`);
  }

  done() {
    return this.at >= this.tokens.length;
  }

  /** FILTER = term *("or" term), term = factor *("and" factor): "and" binds tighter. */
  filter(depth: number): Filter {
    if (depth > filterLimits.depth) throw invalidFilter('nested too deeply');
    let left = this.conjunction(depth);
    while (this.isWord(this.peek(), 'or')) {
      this.next();
      left = { op: 'or', left, right: this.conjunction(depth) };
    }
    return left;
  }

  private conjunction(depth: number): Filter {
    let left = this.factor(depth);
    while (this.isWord(this.peek(), 'and')) {
      this.next();
      left = { op: 'and', left, right: this.factor(depth) };
    }
    return left;
  }

  private factor(depth: number): Filter {
    if (++this.terms > filterLimits.terms) throw invalidFilter('too many terms');
    const token = this.peek();
    if (this.isWord(token, 'not') && this.tokens[this.at + 1]?.text === '(') {
      this.next();
      this.expect('(');
      const inner = this.filter(depth + 1);
      this.expect(')');
      return { op: 'not', filter: inner };
    }
    if (token?.kind === 'punct' && token.text === '(') {
      this.next();
      const inner = this.filter(depth + 1);
      this.expect(')');
      return inner;
    }
    if (token?.kind !== 'word') throw invalidFilter('expected an attribute');
    this.next();
    const path = parseAttrPath(token.text, invalidFilter);
    const after = this.peek();
    if (after?.kind === 'punct' && after.text === '[') {
      if (path.sub) throw invalidFilter('a value filter follows an attribute, not a sub-attribute');
      this.next();
      const inner = this.filter(depth + 1);
      this.expect(']');
      // emails[type eq "work"].value eq "x": the sub-attribute's comparison joins the inner filter.
      const dotted = this.peek();
      if (dotted?.kind === 'word' && dotted.text.startsWith('.')) {
        this.next();
        const sub = parseAttrPath(dotted.text.slice(1), invalidFilter);
        return { op: 'has', path, filter: { op: 'and', left: inner, right: this.comparison(sub) } };
      }
      return { op: 'has', path, filter: inner };
    }
    return this.comparison(path);
  }

  private comparison(path: AttrPath): Filter {
    const opToken = this.next();
    const op = opToken?.kind === 'word' ? opToken.text.toLowerCase() : '';
    if (op === 'pr') return { op: 'pr', path };
    if (!compareOps.has(op)) throw invalidFilter(`unknown operator "${opToken?.text ?? ''}"`);
    return { op: op as CompareOp, path, value: literalOf(this.next()) };
  }
}

export function parseFilter(text: string): Filter {
  if (text.length > filterLimits.length) throw invalidFilter('too long');
  const parser = new Parser(tokenize(text, invalidFilter));
  const filter = parser.filter(0);
  if (!parser.done()) throw invalidFilter('unexpected text after the filter');
  return filter;
}

/** A PATCH path: `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`, each optionally URN-prefixed. */
export interface PatchPath {
  path: AttrPath;
  filter?: Filter;
  /** The sub-attribute after a value filter. */
  sub?: string;
}

export function parsePatchPath(text: string): PatchPath {
  if (text.length > filterLimits.length) throw invalidPath('too long');
  const open = text.indexOf('[');
  if (open < 0) return { path: parseAttrPath(text.trim()) };
  const close = text.lastIndexOf(']');
  if (close < open) throw invalidPath('unbalanced brackets');
  const path = parseAttrPath(text.slice(0, open).trim());
  if (path.sub) throw invalidPath('a value filter follows an attribute');
  const filter = parseFilter(text.slice(open + 1, close));
  const tail = text.slice(close + 1).trim();
  if (tail && !/^\.[A-Za-z$][A-Za-z0-9_$-]*$/.test(tail)) throw invalidPath('bad sub-attribute');
  return { path, filter, ...(tail ? { sub: tail.slice(1) } : {}) };
}

// ---- evaluation over a resource's JSON

/** Attributes compared case-exactly (RFC 7643: id, externalId, meta.version, $ref). */
const caseExact = new Set(['id', 'externalid', 'version', '$ref']);

/** A property of an object by case-insensitive name. */
export function prop(object: unknown, name: string): unknown {
  if (!object || typeof object !== 'object' || Array.isArray(object)) return undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(object)) if (key.toLowerCase() === lower) return value;
  return undefined;
}

/** The values a path reaches in a resource (flattening multi-valued attributes). */
function valuesAt(resource: unknown, path: AttrPath): unknown[] {
  const base = path.schema ? prop(resource, path.schema) : resource;
  const top = prop(base, path.attr);
  const list = Array.isArray(top) ? top : top === undefined ? [] : [top];
  if (!path.sub) {
    // A complex multi-valued attribute without a sub-attribute compares its `value`.
    return list.map((item) => (item && typeof item === 'object' ? prop(item, 'value') : item));
  }
  const sub = path.sub;
  return list.flatMap((item) => {
    const value = prop(item, sub);
    return Array.isArray(value) ? value : value === undefined ? [] : [value];
  });
}

const isDate = (value: string) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));

function compare(op: CompareOp, actual: unknown, expected: Value, exact: boolean): boolean {
  if (actual === null || actual === undefined)
    return op === 'ne' ? expected !== null : expected === null && op === 'eq';
  if (typeof actual === 'boolean' || typeof expected === 'boolean') {
    if (op === 'eq') return actual === expected;
    if (op === 'ne') return actual !== expected;
    throw invalidFilter(`"${op}" does not apply to booleans`);
  }
  if (typeof actual === 'number' && typeof expected === 'number') {
    const order = {
      eq: actual === expected,
      ne: actual !== expected,
      gt: actual > expected,
      ge: actual >= expected,
      lt: actual < expected,
      le: actual <= expected,
    };
    if (op in order) return order[op as keyof typeof order];
    throw invalidFilter(`"${op}" does not apply to numbers`);
  }
  if (typeof actual !== 'string' || typeof expected !== 'string') return op === 'ne';
  if ((op === 'gt' || op === 'ge' || op === 'lt' || op === 'le') && isDate(actual) && isDate(expected)) {
    const a = Date.parse(actual);
    const b = Date.parse(expected);
    return op === 'gt' ? a > b : op === 'ge' ? a >= b : op === 'lt' ? a < b : a <= b;
  }
  const a = exact ? actual : actual.toLowerCase();
  const b = exact ? expected : expected.toLowerCase();
  switch (op) {
    case 'eq':
      return a === b;
    case 'ne':
      return a !== b;
    case 'co':
      return a.includes(b);
    case 'sw':
      return a.startsWith(b);
    case 'ew':
      return a.endsWith(b);
    case 'gt':
      return a > b;
    case 'ge':
      return a >= b;
    case 'lt':
      return a < b;
    case 'le':
      return a <= b;
  }
}

const present = (value: unknown) =>
  value !== null &&
  value !== undefined &&
  value !== '' &&
  !(Array.isArray(value) && value.length === 0) &&
  !(typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);

export function matches(resource: unknown, filter: Filter): boolean {
  switch (filter.op) {
    case 'and':
      return matches(resource, filter.left) && matches(resource, filter.right);
    case 'or':
      return matches(resource, filter.left) || matches(resource, filter.right);
    case 'not':
      return !matches(resource, filter.filter);
    case 'has': {
      const base = filter.path.schema ? prop(resource, filter.path.schema) : resource;
      const top = prop(base, filter.path.attr);
      const list = Array.isArray(top) ? top : top === undefined ? [] : [top];
      return list.some((item) => matches(item, filter.filter));
    }
    case 'pr': {
      const base = filter.path.schema ? prop(resource, filter.path.schema) : resource;
      const top = prop(base, filter.path.attr);
      if (!filter.path.sub) return present(top);
      return valuesAt(resource, filter.path).some(present);
    }
    default: {
      const exact = caseExact.has((filter.path.sub ?? filter.path.attr).toLowerCase());
      const values = valuesAt(resource, filter.path);
      if (!values.length) return compare(filter.op, null, filter.value, exact);
      if (filter.op === 'ne') return values.every((v) => compare('ne', v, filter.value, exact));
      return values.some((v) => compare(filter.op, v, filter.value, exact));
    }
  }
}
