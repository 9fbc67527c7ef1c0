import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, type LogEvent, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';
import type { Database } from './schema.ts';
import { CACHED_PLAN_CHANGED, statementName } from './statement-names.ts';

export type Db = Kysely<Database>;

/** Sees every statement run (tests count the statements of a request with it). */
export type QueryObserver = (event: LogEvent) => void;

export interface DatabaseHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Subscribes to a NOTIFY channel; returns the unsubscribe function. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** Embedded database only: a snapshot of the data folder (tests start from it). */
  dump?: (options?: { compression: 'gzip' }) => Promise<Blob>;
  /** PostgreSQL only: the connection pool's state (metrics). */
  poolStats?: () => { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

// timestamptz and bigint as the application expects them from node-postgres.
pg.types.setTypeParser(20, (value) => Number(value));

/** What becomes of an error on a connection that no query is using (the server restarted, for one). */
const reportConnectionError = (error: Error) =>
  console.warn(`Tessera: a database connection was lost (${error.message}); a new one is opened on demand`);

export async function openPostgres(
  url: string,
  options: { onConnectionError?: (error: Error) => void; log?: QueryObserver } = {},
): Promise<DatabaseHandle> {
  const onConnectionError = options.onConnectionError ?? reportConnectionError;
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle connection that fails is dropped by the pool; without a listener its error would end
  // the process (a PostgreSQL restart, or a connection ended by the server while it closes).
  pool.on('error', onConnectionError);
  pool.on('connect', sendHotStatementsByName);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: options.log });
  let listener: pg.Client | undefined;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  return {
    db,
    kind: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async listen(channel, onMessage) {
      if (!listener) {
        listener = new pg.Client({ connectionString: url });
        listener.on('error', onConnectionError);
        await listener.connect();
        listener.on('notification', (message) => {
          for (const handler of handlers.get(message.channel) ?? []) handler(message.payload ?? '');
        });
      }
      if (!handlers.has(channel)) {
        handlers.set(channel, new Set());
        await listener.query(`listen ${pg.escapeIdentifier(channel)}`);
      }
      handlers.get(channel)?.add(onMessage);
      return async () => {
        handlers.get(channel)?.delete(onMessage);
      };
    },
    async notify(channel, payload) {
      await sql`select pg_notify(${channel}, ${payload})`.execute(db);
    },
    async close() {
      await listener?.end();
      await db.destroy();
    },
  };
}

/**
 * The hot statements (statement-names.ts) go by name: node-postgres prepares each once per
 * connection. A statement whose prepared plan a schema change made stale runs unnamed on that
 * connection from then on.
 */
function sendHotStatementsByName(client: pg.PoolClient) {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const stale = new Set<string>();
  const byName = (text: unknown, values?: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'string' && rest.length === 0 ? statementName(text) : undefined;
    if (!name || stale.has(name) || typeof values === 'function') return query(text, values, ...rest);
    return query({ name, text, values }).catch((error: { code?: string }) => {
      if (error?.code !== CACHED_PLAN_CHANGED) throw error;
      stale.add(name);
      return query(text, values);
    });
  };
  client.query = byName as typeof client.query;
}

/** Opens PGlite on a folder (reopened as it is on restart) or from a dump (tests). */
export async function openPglite(options: {
  dataDir?: string;
  loadDataDir?: Blob;
  log?: QueryObserver;
}): Promise<DatabaseHandle> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const client = await PGlite.create({
    dataDir: options.dataDir ? join(options.dataDir, 'pglite') : undefined,
    loadDataDir: options.loadDataDir,
    // The user search index (migration 6) is a trigram index.
    extensions: { pg_trgm },
  });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(client), log: options.log });
  return {
    db,
    kind: 'pglite',
    async listen(channel, onMessage) {
      const unsubscribe = await client.listen(channel, onMessage);
      return async () => unsubscribe();
    },
    async notify(channel, payload) {
      await sql`select pg_notify(${channel}, ${payload})`.execute(db);
    },
    async dump(options) {
      return (await client.dumpDataDir(options?.compression ?? 'none')) as Blob;
    },
    async close() {
      await db.destroy();
      await client.close();
    },
  };
}
