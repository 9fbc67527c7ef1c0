import { type PGlite, parse, protocol } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { CACHED_PLAN_CHANGED, statementName } from './statement-names.ts';

/**
 * Kysely driver for PGlite. PGlite is a single connection, so a transaction must own it
 * exclusively: connections are handed out one at a time behind a queue.
 */
class PGliteDriver implements Driver {
  #queue: Promise<void> = Promise.resolve();
  readonly #connection: PGliteConnection;

  constructor(readonly client: PGlite) {
    this.#connection = new PGliteConnection(client);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const previous = this.#queue;
    this.#queue = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    this.#connection.release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PGliteConnection).release?.();
  }

  async destroy(): Promise<void> {}
}

/** The statements prepared on each database (its one session): name → parameter types; and those gone stale. */
const preparedOn = new WeakMap<PGlite, { prepared: Map<string, number[]>; stale: Set<string> }>();

class PGliteConnection implements DatabaseConnection {
  release?: () => void;
  readonly #prepared: Map<string, number[]>;
  readonly #stale: Set<string>;
  constructor(readonly client: PGlite) {
    const state = preparedOn.get(client) ?? { prepared: new Map(), stale: new Set<string>() };
    preparedOn.set(client, state);
    this.#prepared = state.prepared;
    this.#stale = state.stale;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // Several statements in one text (migrations) need the simple protocol.
    if (compiledQuery.parameters.length === 0 && /;\s*\S/.test(compiledQuery.sql)) {
      const results = await this.client.exec(compiledQuery.sql);
      return { rows: (results.at(-1)?.rows ?? []) as R[] };
    }
    const name = statementName(compiledQuery.sql);
    const result =
      name && !this.#stale.has(name)
        ? await this.#executePrepared<R>(name, compiledQuery).catch((error: { code?: string }) => {
            // Prepared before a schema change that changed its result: unnamed from now on.
            if (error?.code !== CACHED_PLAN_CHANGED) throw error;
            this.#stale.add(name);
            return this.client.query<R>(compiledQuery.sql, compiledQuery.parameters as unknown[]);
          })
        : await this.client.query<R>(compiledQuery.sql, compiledQuery.parameters as unknown[]);
    return {
      rows: result.rows,
      numAffectedRows: result.affectedRows !== undefined ? BigInt(result.affectedRows) : undefined,
    };
  }

  /**
   * A statement the database keeps prepared (statement-names.ts): parsed and described once,
   * then bound and executed by name. Bind, describe, execute and sync go to PGlite as one
   * buffer, which it runs in one call (each call into PGlite has a cost of its own): after an
   * error the backend skips to the sync, and PGlite throws the error once all has run.
   */
  async #executePrepared<R>(name: string, compiledQuery: CompiledQuery) {
    const { client } = this;
    const { serialize } = protocol;
    const run = async (...messages: Uint8Array[]) => {
      const buffer = new Uint8Array(messages.reduce((length, m) => length + m.length, 0));
      let offset = 0;
      for (const message of messages) {
        buffer.set(message, offset);
        offset += message.length;
      }
      return (await client.execProtocol(buffer, { syncToFs: false })).messages;
    };
    const results = await client.runExclusive(async () => {
      let types = this.#prepared.get(name);
      if (!types) {
        const described = await run(
          serialize.parse({ name, text: compiledQuery.sql }),
          serialize.describe({ type: 'S', name }),
          serialize.sync(),
        );
        types = parse.parseDescribeStatementResults(described);
        this.#prepared.set(name, types);
      }
      const values = compiledQuery.parameters.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serializer = client.serializers[types[i] as number];
        return serializer ? serializer(value) : String(value);
      });
      const messages = await run(
        serialize.bind({ statement: name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      );
      return parse.parseResults(messages, client.parsers);
    });
    await client.syncToFs();
    return (results[0] ?? { rows: [] }) as unknown as { rows: R[]; affectedRows?: number };
  }

  // biome-ignore lint/correctness/useYield: streaming is not used with PGlite; the interface requires the method.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on the embedded database');
  }
}

export class PGliteDialect implements Dialect {
  constructor(readonly client: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.client);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
