/**
 * PostgreSQL's own counters of a benchmark's database: transactions (each statement outside a
 * transaction is one), rows written and WAL bytes, with the server's background work taken off.
 */
import pg from 'pg';
import { sleep } from './server.ts';

export interface PgCounters {
  transactions: number;
  tup_inserted: number;
  tup_updated: number;
  tup_deleted: number;
  /** pg_current_wal_lsn() in bytes: the whole cluster's (scripts/with-postgres.sh gives each run its own). */
  wal: number;
  /** Connections to the database now, this reading's own included. */
  backends: number;
  at: number;
}

export async function pgCounters(url: string): Promise<PgCounters> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<Record<string, string>>(
      `select xact_commit + xact_rollback as transactions, tup_inserted, tup_updated, tup_deleted,
              pg_current_wal_lsn() - '0/0'::pg_lsn as wal,
              (select count(*) from pg_stat_activity where datname = current_database()) as backends
       from pg_stat_database where datname = current_database()`,
    );
    const row = rows[0] as Record<string, string>;
    return {
      transactions: Number(row.transactions),
      tup_inserted: Number(row.tup_inserted),
      tup_updated: Number(row.tup_updated),
      tup_deleted: Number(row.tup_deleted),
      wal: Number(row.wal),
      backends: Number(row.backends),
      at: Date.now(),
    };
  } finally {
    await client.end();
  }
}

export interface PgPerRequest {
  transactions: number;
  rowsInserted: number;
  rowsUpdated: number;
  rowsDeleted: number;
  walBytes: number;
}

/**
 * Counters around a phase. PostgreSQL 15 writes a backend's statistics out within about 10 s of its
 * last transaction, so `start` pauses 11 s, reads, pauses 10 s more and reads again (the idle rate
 * of the server's background work), and `stop` pauses 11 s before its reading; the idle rate over
 * the phase's time is taken off.
 */
export async function pgPhase(url: string) {
  await sleep(11_000);
  const idle = await pgCounters(url);
  await sleep(10_000);
  const before = await pgCounters(url);
  return {
    before,
    async stop(requests: number): Promise<PgPerRequest & { backends: number }> {
      await sleep(11_000);
      const after = await pgCounters(url);
      type Key = 'transactions' | 'tup_inserted' | 'tup_updated' | 'tup_deleted' | 'wal';
      const per = (key: Key) => {
        // The idle reading's own transaction is one of the idle rate's.
        const background = ((before[key] - idle[key]) / (before.at - idle.at)) * (after.at - before.at);
        return Math.max(0, after[key] - before[key] - background) / Math.max(1, requests);
      };
      return {
        transactions: per('transactions'),
        rowsInserted: per('tup_inserted'),
        rowsUpdated: per('tup_updated'),
        rowsDeleted: per('tup_deleted'),
        walBytes: per('wal'),
        backends: after.backends,
      };
    },
  };
}
