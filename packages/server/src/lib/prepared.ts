import { type Compilable, CompiledQuery, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import { keepPrepared } from '../db/statement-names.ts';

const MARKER = '\u0000tessera-parameter:';

/** A query builder, or a query in `sql` (compiled against a database handle). */
type Statement<R> = Compilable<R> | RawBuilder<R>;

/**
 * A statement whose SQL is compiled once. Building and compiling a Kysely query costs more CPU
 * than sending it: the statements of every sign-in and token request are built once, with
 * markers in place of their values, and each call puts its values in the markers' places.
 *
 * `build` must use each value of `params` as it is, as a value of the statement (not in a
 * computation, a condition or a list that changes the SQL); a statement whose text depends on
 * its values is not prepared. Both are checked when the statement is first compiled. The
 * database keeps the statement prepared too (db/statement-names.ts).
 */
export function preparedStatement<P extends Record<string, unknown>, R = unknown>(
  build: (db: Db, params: P) => Statement<R>,
): (db: Db, params: P) => CompiledQuery<R> {
  // Per database handle (a handle with plugins compiles through them).
  const templates = new WeakMap<Db, Template<P>>();
  return (db, params) => {
    let template = templates.get(db);
    if (!template) {
      template = compileTemplate(db, build, Object.keys(params));
      templates.set(db, template);
    }
    const parameters = [...template.parameters];
    for (const [index, key] of template.slots) parameters[index] = params[key];
    return CompiledQuery.raw(template.sql, parameters) as CompiledQuery<R>;
  };
}

interface Template<P> {
  sql: string;
  parameters: unknown[];
  slots: [number, keyof P][];
}

function compileTemplate<P extends Record<string, unknown>, R>(
  db: Db,
  build: (db: Db, params: P) => Statement<R>,
  keys: string[],
): Template<P> {
  const markers = Object.fromEntries(keys.map((key) => [key, `${MARKER}${key}`])) as P;
  // A query builder's compile takes no argument; a query in `sql` compiles against the handle.
  const compiled = (build(db, markers) as RawBuilder<R>).compile(db);
  const slots: [number, keyof P][] = [];
  compiled.parameters.forEach((value, index) => {
    if (typeof value === 'string' && value.startsWith(MARKER))
      slots.push([index, value.slice(MARKER.length)]);
  });
  const missing = keys.filter((key) => !slots.some(([, slot]) => slot === key));
  if (missing.length || compiled.sql.includes(MARKER))
    throw new Error(
      `a prepared statement does not pass ${missing.join(', ') || 'a value'} on as a parameter`,
    );
  keepPrepared(compiled.sql);
  return { sql: compiled.sql, parameters: [...compiled.parameters], slots };
}

/**
 * Runs a statement of a fixed shape that is built each time (its parts vary by case, a few
 * cases in all): the database keeps each shape prepared (db/statement-names.ts).
 */
export async function executeHot<R>(db: Db, statement: Statement<R>) {
  const compiled = (statement as RawBuilder<R>).compile(db);
  keepPrepared(compiled.sql);
  return db.executeQuery(compiled);
}
