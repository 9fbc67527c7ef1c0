/**
 * Statements the database keeps prepared, per connection: the hot statements of sign-ins and
 * token requests, whose text is the same on every call. Sent by name, they are parsed and planned
 * once per connection instead of on every call (on PGlite this is most of their cost). Only
 * registered texts are named, so the set stays small whatever else runs.
 */
const NAMES_KEPT = 256;
const names = new Map<string, string>();

/** Registers a statement's text (see lib/prepared.ts); beyond the bound, texts run unnamed. */
export function keepPrepared(sql: string): void {
  if (!names.has(sql) && names.size < NAMES_KEPT) names.set(sql, `tessera_${names.size + 1}`);
}

/** The name a registered statement text is prepared under, if it is registered. */
export const statementName = (sql: string): string | undefined => names.get(sql);

/**
 * SQLSTATE of "cached plan must not change result type": a statement prepared before a schema
 * change (another instance migrated) whose result changed. The connection runs it unnamed then.
 */
export const CACHED_PLAN_CHANGED = '0A000';
