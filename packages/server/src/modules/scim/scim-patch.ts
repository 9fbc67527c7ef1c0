import { invalidPath, invalidSyntax, invalidValue, ScimError } from './scim-errors.ts';
import { type Filter, matches, type PatchPath, parsePatchPath } from './scim-filter.ts';
import { PATCH_SCHEMA } from './scim-schemas.ts';

/**
 * RFC 7644 §3.5.2 PATCH over a resource's JSON: add, replace and remove, with and without a
 * path, value filters in paths (`emails[type eq "work"].value`, `members[value eq "…"]`). Op
 * names are read case-insensitively (Entra ID sends "Replace"). The result is then stored as a
 * whole by the resource's service, through the same rules as a PUT.
 */

type Doc = Record<string, unknown>;
export const patchLimits = { operations: 1000 } as const;

interface Operation {
  op: 'add' | 'replace' | 'remove';
  path?: PatchPath;
  value?: unknown;
}

export function readPatch(body: unknown): Operation[] {
  if (!body || typeof body !== 'object') throw invalidSyntax('a PatchOp object is expected');
  const schemas = (body as Doc).schemas;
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_SCHEMA))
    throw invalidSyntax(`schemas must hold ${PATCH_SCHEMA}`);
  const operations = (body as Doc).Operations ?? (body as Doc).operations;
  if (!Array.isArray(operations) || !operations.length) throw invalidSyntax('Operations is missing');
  if (operations.length > patchLimits.operations)
    throw new ScimError('scim.too_many', 'tooMany', {
      why: `more than ${patchLimits.operations} operations`,
    });
  return operations.map((raw) => {
    const op = String((raw as Doc)?.op ?? '').toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove')
      throw invalidSyntax(`unknown op "${String((raw as Doc)?.op)}"`);
    const path = (raw as Doc).path;
    if (path !== undefined && typeof path !== 'string') throw invalidPath('path must be a string');
    return { op, ...(path ? { path: parsePatchPath(path) } : {}), value: (raw as Doc).value };
  });
}

/** The key of `name` in `doc` whatever its case, or the canonical spelling for a new one. */
function keyOf(doc: Doc, name: string, canonical: (name: string) => string): string {
  const lower = name.toLowerCase();
  return Object.keys(doc).find((k) => k.toLowerCase() === lower) ?? canonical(name);
}

const isObject = (value: unknown): value is Doc =>
  !!value && typeof value === 'object' && !Array.isArray(value);

/** The object a path's attribute lives in (the resource, or its extension's object). */
function holderOf(
  doc: Doc,
  schema: string | undefined,
  canonical: (name: string) => string,
  create: boolean,
): Doc | undefined {
  if (!schema) return doc;
  const key = keyOf(doc, schema, () => schema);
  if (!isObject(doc[key])) {
    if (!create) return undefined;
    doc[key] = {};
  }
  void canonical;
  return doc[key] as Doc;
}

/** Same element of a multi-valued attribute: by `value` when both have one, else deep equality. */
const sameElement = (a: unknown, b: unknown) =>
  isObject(a) && isObject(b) && a.value !== undefined && b.value !== undefined
    ? String(a.value) === String(b.value)
    : JSON.stringify(a) === JSON.stringify(b);

function addValue(holder: Doc, key: string, value: unknown, multi: boolean) {
  const current = holder[key];
  if (multi || Array.isArray(current)) {
    const list = Array.isArray(current) ? [...current] : [];
    for (const item of Array.isArray(value) ? value : [value]) {
      const at = list.findIndex((existing) => sameElement(existing, item));
      if (at >= 0) list[at] = isObject(list[at]) && isObject(item) ? { ...list[at], ...item } : item;
      else list.push(item);
    }
    holder[key] = list;
  } else if (isObject(current) && isObject(value)) {
    holder[key] = { ...current, ...value };
  } else {
    holder[key] = value;
  }
}

/** A value filter with only `type eq "x"` (and maybe `primary eq true`) names the element to create when none matches. */
function elementOfFilter(filter: Filter): Doc | undefined {
  if (filter.op === 'eq' && !filter.path.sub && typeof filter.value !== 'object')
    return { [filter.path.attr]: filter.value };
  if (filter.op === 'and') {
    const left = elementOfFilter(filter.left);
    const right = elementOfFilter(filter.right);
    return left && right ? { ...left, ...right } : undefined;
  }
  return undefined;
}

export interface PatchShape {
  /** Whether an attribute (by lower-case name, `urn:…:name` for an extension) is multi-valued. */
  isMulti(name: string): boolean;
  canonical(name: string): string;
  /** Attributes a client may not change (e.g. `id`, `meta`, `groups` of a User). */
  readOnly: Set<string>;
}

export function applyPatch(resource: Doc, operations: Operation[], shape: PatchShape): Doc {
  const doc = structuredClone(resource) as Doc;
  for (const operation of operations) {
    if (!operation.path) {
      applyWithoutPath(doc, operation, shape);
      continue;
    }
    const { path, filter, sub } = operation.path;
    const name = path.attr.toLowerCase();
    const fullName = path.schema ? `${path.schema.toLowerCase()}:${name}` : name;
    if (shape.readOnly.has(name) && !path.schema)
      throw new ScimError('scim.mutability', 'mutability', { attribute: path.attr });
    const holder = holderOf(doc, path.schema, shape.canonical, operation.op !== 'remove');
    if (!holder) continue;
    const key = keyOf(holder, path.attr, shape.canonical);
    if (filter) {
      applyFiltered(holder, key, filter, sub ?? path.sub, operation);
      continue;
    }
    if (path.sub) {
      if (operation.op === 'remove') {
        if (isObject(holder[key])) delete (holder[key] as Doc)[keyOf(holder[key] as Doc, path.sub, (n) => n)];
        else if (Array.isArray(holder[key]))
          for (const item of holder[key] as unknown[])
            if (isObject(item)) delete item[keyOf(item, path.sub, (n) => n)];
        continue;
      }
      if (Array.isArray(holder[key])) {
        // `emails.value` on a multi-valued attribute: every element's sub-attribute.
        for (const item of holder[key] as unknown[])
          if (isObject(item)) item[keyOf(item, path.sub, (n) => n)] = operation.value;
        continue;
      }
      const inner = isObject(holder[key]) ? (holder[key] as Doc) : {};
      inner[keyOf(inner, path.sub, (n) => n)] = operation.value;
      holder[key] = inner;
      continue;
    }
    const multi = shape.isMulti(fullName);
    if (operation.op === 'remove') {
      // Entra ID removes members by listing them in `value`.
      if (operation.value !== undefined && Array.isArray(holder[key])) {
        const gone = Array.isArray(operation.value) ? operation.value : [operation.value];
        holder[key] = (holder[key] as unknown[]).filter((item) => !gone.some((g) => sameElement(item, g)));
      } else delete holder[key];
    } else if (operation.op === 'add') addValue(holder, key, operation.value, multi);
    else
      holder[key] =
        multi && !Array.isArray(operation.value) && operation.value !== null
          ? [operation.value]
          : operation.value;
  }
  return doc;
}

function applyWithoutPath(doc: Doc, operation: Operation, shape: PatchShape) {
  if (operation.op === 'remove') throw new ScimError('scim.no_target', 'noTarget');
  if (!isObject(operation.value)) throw invalidValue('an operation without a path takes an object');
  for (const [name, value] of Object.entries(operation.value)) {
    if (name.toLowerCase() === 'schemas') continue;
    if (name.startsWith('urn:') && isObject(value) && !name.includes(':User:') && !name.includes(':Group:')) {
      // An extension object: its attributes one by one.
      applyWithoutPath(
        doc,
        {
          op: operation.op,
          value: Object.fromEntries(Object.entries(value).map(([k, v]) => [`${name}:${k}`, v])),
        },
        shape,
      );
      continue;
    }
    // Entra ID also sends dotted and URN-prefixed names here ("name.givenName", "urn:…:User:department").
    const path = parsePatchPath(name);
    applyPatchPathValue(doc, path, operation, value, shape);
  }
}

function applyPatchPathValue(
  doc: Doc,
  path: PatchPath,
  operation: Operation,
  value: unknown,
  shape: PatchShape,
) {
  const name = path.path.attr.toLowerCase();
  if (shape.readOnly.has(name) && !path.path.schema) return;
  const patched = applyPatch(doc, [{ op: operation.op, path, value }], shape);
  for (const key of Object.keys(doc)) delete doc[key];
  Object.assign(doc, patched);
}

function applyFiltered(
  holder: Doc,
  key: string,
  filter: Filter,
  sub: string | undefined,
  operation: Operation,
) {
  const list = Array.isArray(holder[key]) ? (holder[key] as unknown[]) : [];
  const hit = list.map((item) => matches(item, filter));
  if (operation.op === 'remove') {
    if (sub) {
      for (const [i, item] of list.entries())
        if (hit[i] && isObject(item)) delete item[keyOf(item, sub, (n) => n)];
      holder[key] = list;
    } else holder[key] = list.filter((_, i) => !hit[i]);
    return;
  }
  if (!hit.some(Boolean)) {
    // Lenient as Entra ID expects: `emails[type eq "work"].value` creates the work email.
    const element = elementOfFilter(filter);
    if (!element) throw new ScimError('scim.no_target', 'noTarget');
    holder[key] = [
      ...list,
      sub
        ? { ...element, [sub]: operation.value }
        : { ...element, ...(isObject(operation.value) ? operation.value : {}) },
    ];
    return;
  }
  holder[key] = list.map((item, i) => {
    if (!hit[i] || !isObject(item)) return item;
    if (sub) return { ...item, [keyOf(item, sub, (n) => n)]: operation.value };
    if (!isObject(operation.value))
      throw invalidValue('a filtered path without a sub-attribute takes an object');
    return operation.op === 'add' ? { ...item, ...operation.value } : { ...operation.value };
  });
}
