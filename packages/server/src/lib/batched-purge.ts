import { type Expression, type SelectQueryBuilder, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';

/**
 * How the maintenance purges delete: at most `batch` rows per statement (each its own short
 * transaction, so locks and WAL come in small pieces), at most `maxBatches` statements per run
 * (what is left waits for the next run), stopping early when `signal` is aborted (shutdown).
 */
export interface PurgeLimits {
  batch: number;
  maxBatches: number;
  signal?: AbortSignal;
}

/** 5 000 rows a statement, up to 500 000 rows of a table per run (the 10-minute job). */
export const defaultPurgeLimits: PurgeLimits = { batch: 5_000, maxBatches: 100 };

/**
 * Deletes the rows `expired(limit)` selects (a `select ctid from <table> where … limit n` of the
 * same table), batch after batch, until a batch deletes fewer than its size; answers how many.
 * Rows are named by `ctid`: a row updated meanwhile (a session or budget touched while the purge
 * runs) has a new `ctid` and is not deleted, as the single statement's re-check would have done.
 */
export async function deleteInBatches(
  db: Db,
  table: string,
  expired: (limit: number) => Expression<unknown>,
  limits: PurgeLimits = defaultPurgeLimits,
): Promise<number> {
  let deleted = 0;
  for (let run = 0; run < limits.maxBatches && !limits.signal?.aborted; run++) {
    const result =
      await sql`delete from ${sql.table(table)} where ctid = any(array(${expired(limits.batch)}))`.execute(
        db,
      );
    const count = Number(result.numAffectedRows ?? 0);
    deleted += count;
    if (count < limits.batch) break;
  }
  return deleted;
}

type Rows<T extends keyof Database> = SelectQueryBuilder<Database, T, { ctid: unknown }>;

/**
 * deleteInBatches for the rows of `table` that `where` keeps, e.g.
 * `purgeWhere(db, 'saml_sessions', (rows) => rows.where('ended_at', '<', hourAgo), limits)`.
 */
export function purgeWhere<T extends keyof Database & string>(
  db: Db,
  table: T,
  where: (rows: Rows<T>) => Rows<T>,
  limits?: PurgeLimits,
): Promise<number> {
  // A generic table name is past what Kysely's types can follow: the callers' are concrete.
  const rows = (db.selectFrom(table) as unknown as Rows<T>).select(sql`ctid`.as('ctid')) as Rows<T>;
  return deleteInBatches(db, table, (limit) => where(rows).limit(limit), limits);
}

/** purgeWhere for the common case: the rows whose `column` is before `before` (default now). */
export function purgeBefore<T extends keyof Database & string>(
  db: Db,
  table: T,
  column: keyof Database[T] & string,
  before: Date | Expression<Date> = sql<Date>`now()`,
  limits?: PurgeLimits,
): Promise<number> {
  return purgeWhere(db, table, (rows) => rows.where(sql.ref(column), '<', before), limits);
}
