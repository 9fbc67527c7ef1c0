import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, type LogEvent, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';
import type { Database } from './schema.ts';
import { CACHED_PLAN_CHANGED, statementName } from './statement-names.ts';

export type Db = Kysely<Database>;

/** Sees every statement run (tests count the statements of a request with it). */
export type QueryObserver = (event: LogEvent) => void;

export interface DatabaseHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /**
   * Subscribes to a NOTIFY channel; returns the unsubscribe function. A notice sent by this
   * process reaches `onMessage` before the statement that committed it returns (so a cache that
   * forgets on it is already right for the request that made the change); notices of other
   * instances come on the listening connection as soon as PostgreSQL delivers them. A notice of
   * this process may come twice (at its commit, then on the listener).
   */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** Embedded database only: a snapshot of the data folder (tests start from it). */
  dump?: (options?: { compression: 'gzip' }) => Promise<Blob>;
  /** PostgreSQL only: the connection pool's state (metrics). */
  poolStats?: () => { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/** What becomes of an error on a connection that no query is using (the server restarted, for one). */
const reportConnectionError = (error: Error) =>
  console.warn(`Tessera: a database connection was lost (${error.message}); a new one is opened on demand`);

/** How long an idle PostgreSQL connection is kept open (see openPostgres). */
const POOL_IDLE_MS = 5 * 60_000;

export async function openPostgres(
  url: string,
  options: { onConnectionError?: (error: Error) => void; log?: QueryObserver } = {},
): Promise<DatabaseHandle> {
  // node-postgres is loaded only for PostgreSQL storage: an installation on the embedded database
  // never needs it (about 45 ms of CPU at every start).
  const { default: pg } = await import('pg');
  // timestamptz and bigint as the application expects them from node-postgres.
  pg.types.setTypeParser(20, (value) => Number(value));
  const onConnectionError = options.onConnectionError ?? reportConnectionError;
  // A connection idle for pg's default 10 s is closed, and the next statement waits for a new
  // PostgreSQL backend (a fork, authentication, the hot statements prepared again). Sparse
  // traffic (an LDAP bind every 15 s, a RADIUS request now and then) would pay that on every
  // request: idle connections are kept 5 minutes instead. (pg-pool's `min` would keep some
  // forever; not needed for that.) close() ends the pool and its idle timers with it.
  const pool = new pg.Pool({ connectionString: url, max: 10, idleTimeoutMillis: POOL_IDLE_MS });
  // An idle connection that fails is dropped by the pool; without a listener its error would end
  // the process (a PostgreSQL restart, or a connection ended by the server while it closes).
  pool.on('error', onConnectionError);
  const handlers = new Map<string, Set<(payload: string) => void>>();
  const deliver = (message: pg.Notification) => {
    for (const handler of handlers.get(message.channel) ?? []) handler(message.payload ?? '');
  };
  pool.on('connect', (client) => {
    sendHotStatementsByName(client);
    followOwnNotices(client, handlers, deliver);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: options.log });
  let listener: pg.Client | undefined;
  return {
    db,
    kind: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async listen(channel, onMessage) {
      if (!listener) {
        listener = new pg.Client({ connectionString: url });
        listener.on('error', onConnectionError);
        await listener.connect();
        listener.on('notification', deliver);
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
 * PostgreSQL delivers a notice to every session listening on its channel once the transaction
 * that sent it commits, and to the sending session itself before that commit's answer (the
 * protocol's ReadyForQuery). The dedicated listener hears it only later, on its own connection.
 * So every pooled connection listens too, and hands on the notices it sent itself: a change
 * made by this process is acted on before the statement that committed it returns, whatever
 * code path made it (database triggers send most notices). Notices of other sessions are left to
 * the listener. A connection starts listening on a channel subscribed since its last statement
 * before its next one (a pooled connection runs one statement at a time).
 */
function followOwnNotices(
  client: pg.PoolClient,
  /** The subscribed channels (only ever added to). */
  channels: ReadonlyMap<string, unknown>,
  deliver: (message: pg.Notification) => void,
) {
  client.on('notification', (message) => {
    if (message.processId === (client as { processID?: number }).processID) deliver(message);
  });
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const heard = new Set<string>();
  const listenFirst = (...args: unknown[]) => {
    // Every statement passes here: the common case (nothing new subscribed) compares two sizes.
    if (heard.size === channels.size) return query(...args);
    const missing = [...channels.keys()].filter((channel) => !heard.has(channel));
    for (const channel of missing) heard.add(channel);
    const listen = missing.map((channel) => `listen ${client.escapeIdentifier(channel)}`).join('; ');
    return query(listen).then(
      () => query(...args),
      (error: unknown) => {
        for (const channel of missing) heard.delete(channel);
        throw error;
      },
    );
  };
  client.query = listenFirst as typeof client.query;
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

/**
 * How the embedded database (PGlite) is run.
 *
 * The database: PGlite 0.3 (before 0.4) kept everything in `template1`, its default then; 0.4
 * made `postgres` the default. Tessera's data folders, backups and test dumps all have their tables
 * in `template1`, so it stays the database opened: a folder written by PGlite 0.3 opens with its
 * data (same PostgreSQL 17.5, same on-disk format). PGlite 0.5 embeds PostgreSQL 18, which
 * cannot open these folders.
 *
 * Memory, for a small installation on one process: PGlite runs PostgreSQL in WebAssembly memory,
 * which grows and never shrinks, so every allowance becomes resident memory of the server once
 * used. PostgreSQL's own default (what initdb writes into a new folder's postgresql.conf) is
 * `shared_buffers` 128 MB; 16 MB holds the hot pages of a small installation (the whole database
 * of a new one is about 30 MB on disk, and pages not in the buffer are read from the operating
 * system's file cache). `maintenance_work_mem` (index builds in migrations, VACUUM) goes from 64
 * to 16 MB; `work_mem` stays 4 MB per sort or hash. These come on the command line, which wins
 * over the folder's postgresql.conf, so existing folders get them too.
 */
const pgliteOptions: PGliteOptions = {
  database: 'template1',
  startParams: [
    ...PGlite.defaultStartParams,
    '-c',
    'shared_buffers=16MB',
    '-c',
    'maintenance_work_mem=16MB',
    '-c',
    'work_mem=4MB',
  ],
};

/**
 * PGlite's PostgreSQL is 9.9 MB of WebAssembly. V8 compiles it with its baseline compiler (Liftoff)
 * and then recompiles the functions that run often with its optimising compiler (TurboFan): on
 * Node 20 that second compilation cost about 1.2 s of CPU at every start and some 60 MB of
 * resident memory (cold start 3.15 → 1.94 s of server CPU, RSS when ready 268 → 192 MiB), while
 * sign-ins and grants took the same CPU per request either way (their time is in JavaScript).
 * Only queries that compute a lot in PostgreSQL itself (big sorts, trigram scans over tens of
 * thousands of rows) run about 1.6 times longer on baseline code, which a small installation does
 * not notice. So the embedded database runs on baseline code only. The flag is read when a
 * WebAssembly module is compiled, so it has to be set before the first PGlite opens; it applies to
 * the whole process, which on PostgreSQL storage never sets it.
 */
const wasmBaselineOnly = '--liftoff-only';

/**
 * Makes a new database folder in a short-lived child process. PGlite's initdb takes a few seconds
 * (it runs initdb and a second PostgreSQL instance in WebAssembly, then copies their files into
 * the first) and leaves the process that ran it well over 100 MB larger than a restart on the
 * same folder (PGlite alone: 330 against 190 MB), memory the process does not give back. Done
 * apart, the server then opens the folder as on any restart. The child writes into a folder of
 * its own, renamed into place once the database is complete and closed, so an interrupted first
 * start leaves no half-made database behind.
 */
async function initialisePgliteFolder(target: string): Promise<void> {
  const library = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const making = `${target}.new`;
  await rm(making, { recursive: true, force: true });
  const child = `
    const [library, dataDir, options] = JSON.parse(process.argv[1]);
    require(library).PGlite.create({ dataDir, ...options })
      .then((db) => db.close())
      .then(() => process.exit(0), (error) => { console.error(error?.stack ?? String(error)); process.exit(1); });
  `;
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [wasmBaselineOnly, '-e', child, JSON.stringify([library, making, pgliteOptions])],
      { env: { ...process.env, NODE_OPTIONS: '' }, maxBuffer: 4 * 1024 * 1024 },
      (error, _stdout, stderr) =>
        error
          ? reject(
              new Error(
                `the embedded database could not be created in ${target}: ${stderr.trim() || error.message}`,
              ),
            )
          : resolve(),
    );
  });
  // Onto nothing or an empty folder (openPglite refuses a folder holding anything else).
  await rename(making, target);
}

/** Opens PGlite on a folder (reopened as it is on restart) or from a dump (tests). */
export async function openPglite(options: {
  dataDir?: string;
  loadDataDir?: Blob;
  log?: QueryObserver;
}): Promise<DatabaseHandle> {
  setFlagsFromString(wasmBaselineOnly);
  const folder = options.dataDir ? join(options.dataDir, 'pglite') : undefined;
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  if (folder && !options.loadDataDir && !existsSync(join(folder, 'PG_VERSION'))) {
    if ((await readdir(folder).catch(() => [])).length) {
      throw new Error(
        `${folder} holds files but no database (no PG_VERSION): move them away to start a new installation`,
      );
    }
    await initialisePgliteFolder(folder);
  }
  const client = await PGlite.create({
    ...pgliteOptions,
    dataDir: folder,
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
