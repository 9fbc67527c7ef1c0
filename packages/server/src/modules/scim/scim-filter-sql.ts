import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { AttrPath, Filter, Value } from './scim-filter.ts';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from './scim-schemas.ts';

/**
 * Compiles a User filter to SQL when every attribute it names has a column, so that the
 * database answers it with its indexes (`userName eq` reads `accounts_username_key`, an index on
 * lower(username)); otherwise null, and the caller evaluates the filter over the resources.
 * Columns are of `company_members m` joined with `accounts a` and `scim_users s`.
 */

interface Column {
  expr: RawBuilder<unknown>;
  kind: 'text' | 'exact' | 'date' | 'boolean';
}

const columns: Record<string, Column> = {
  id: { expr: sql`a.id`, kind: 'exact' },
  username: { expr: sql`lower(a.username)`, kind: 'text' },
  externalid: { expr: sql`s.external_id`, kind: 'exact' },
  displayname: { expr: sql`lower(a.display_name)`, kind: 'text' },
  'name.formatted': { expr: sql`lower(a.display_name)`, kind: 'text' },
  nickname: { expr: sql`lower(a.nickname)`, kind: 'text' },
  emails: { expr: sql`lower(a.email)`, kind: 'text' },
  'emails.value': { expr: sql`lower(a.email)`, kind: 'text' },
  phonenumbers: { expr: sql`a.phone`, kind: 'exact' },
  'phonenumbers.value': { expr: sql`a.phone`, kind: 'exact' },
  active: { expr: sql`(m.status = 'enabled')`, kind: 'boolean' },
  // To the millisecond, as the resources say them: a client comparing with a value it read matches it.
  'meta.created': { expr: sql`date_trunc('milliseconds', m.created_at)`, kind: 'date' },
  'meta.lastmodified': {
    expr: sql`date_trunc('milliseconds', greatest(m.created_at, m.updated_at))`,
    kind: 'date',
  },
};

export function userColumnOf(path: AttrPath): Column | undefined {
  const schema = path.schema?.toLowerCase();
  if (schema && schema !== USER_SCHEMA.toLowerCase()) return undefined;
  return columns[path.sub ? `${path.attr}.${path.sub}`.toLowerCase() : path.attr.toLowerCase()];
}

const likeEscape = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

function comparison(
  column: Column,
  op: Exclude<Filter['op'], 'and' | 'or' | 'not' | 'has' | 'pr'>,
  value: Value,
) {
  const { expr, kind } = column;
  if (value === null)
    return op === 'eq'
      ? sql<SqlBool>`${expr} is null`
      : op === 'ne'
        ? sql<SqlBool>`${expr} is not null`
        : undefined;
  if (kind === 'boolean') {
    if (typeof value !== 'boolean' || (op !== 'eq' && op !== 'ne')) return undefined;
    return op === 'eq' ? sql<SqlBool>`${expr} = ${value}` : sql<SqlBool>`${expr} <> ${value}`;
  }
  if (typeof value !== 'string') return undefined;
  if (kind === 'date') {
    const at = Date.parse(value);
    if (Number.isNaN(at)) return undefined;
    const date = new Date(at);
    const ops = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' } as const;
    if (!(op in ops)) return undefined;
    return sql<SqlBool>`${expr} ${sql.raw(ops[op as keyof typeof ops])} ${date}`;
  }
  const v = kind === 'text' ? value.toLowerCase() : value;
  switch (op) {
    case 'eq':
      return sql<SqlBool>`${expr} = ${v}`;
    case 'ne':
      return sql<SqlBool>`(${expr} is null or ${expr} <> ${v})`;
    case 'co':
      return sql<SqlBool>`${expr} like ${`%${likeEscape(v)}%`}`;
    case 'sw':
      return sql<SqlBool>`${expr} like ${`${likeEscape(v)}%`}`;
    case 'ew':
      return sql<SqlBool>`${expr} like ${`%${likeEscape(v)}`}`;
    case 'gt':
      return sql<SqlBool>`${expr} > ${v}`;
    case 'ge':
      return sql<SqlBool>`${expr} >= ${v}`;
    case 'lt':
      return sql<SqlBool>`${expr} < ${v}`;
    case 'le':
      return sql<SqlBool>`${expr} <= ${v}`;
  }
}

export function userFilterSql(filter: Filter): RawBuilder<SqlBool> | undefined {
  switch (filter.op) {
    case 'and':
    case 'or': {
      const left = userFilterSql(filter.left);
      const right = userFilterSql(filter.right);
      if (!left || !right) return undefined;
      return filter.op === 'and' ? sql<SqlBool>`(${left} and ${right})` : sql<SqlBool>`(${left} or ${right})`;
    }
    case 'not': {
      const inner = userFilterSql(filter.filter);
      return inner ? sql<SqlBool>`not coalesce(${inner}, false)` : undefined;
    }
    case 'has':
      return undefined;
    case 'pr': {
      const column = userColumnOf(filter.path);
      if (!column) return undefined;
      return column.kind === 'text'
        ? sql<SqlBool>`coalesce(${column.expr}, '') <> ''`
        : sql<SqlBool>`${column.expr} is not null`;
    }
    default: {
      const column = userColumnOf(filter.path);
      return column ? comparison(column, filter.op, filter.value) : undefined;
    }
  }
}

/** sortBy with a column (else the caller sorts the resources). */
export const userSortColumn = (sortBy: string) => {
  if (sortBy.toLowerCase().startsWith(ENTERPRISE_SCHEMA.toLowerCase())) return undefined;
  const rest = sortBy.replace(/^urn:.*:User:/i, '');
  const [attr = '', sub] = rest.split('.');
  return userColumnOf({ attr, ...(sub ? { sub } : {}) });
};
