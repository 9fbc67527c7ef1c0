/**
 * The sign-in log as it grows (issue 34: "the sign-in log at hundreds of millions of events"),
 * PostgreSQL only. One company's events are loaded in BENCH_RETENTION_STEPS steps up to
 * BENCH_RETENTION_ROWS (10 000 000), each step spread over the last 90 days, with every index and
 * trigger of login_events in place (as a live installation writes them). After each step:
 * - the size of the table and of each index, in bytes per event;
 * - the cost of writing one event: BENCH_RETENTION_WRITES single-row inserts, each its own
 *   statement and transaction, as a sign-in writes them (p50, p95);
 * - three log pages (`log/sign-in/list`: last month newest first, failures, the deepest page),
 *   5 times each.
 * At the full size, the retention purge of the server itself (`purgeExpiredLogs`, the hourly job
 * `log.purge`, run here through Kysely on node-postgres with a clock moved forward): first the
 * steady state (the oldest hour), then a month at once (retention shortened by 30 days), then a
 * VACUUM of the table; each with its time, the WAL it wrote and the blocks PostgreSQL read and
 * wrote. For comparison, dropping a monthly partition of BENCH_RETENTION_PARTITION_ROWS events
 * with the same indexes (what partitioned retention would do instead).
 *
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/log-retention.bench.ts'
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Db } from '../packages/server/src/db/database.ts';
import { purgeExpiredLogs } from '../packages/server/src/modules/log/log-jobs.ts';
import { insertEvents, PEOPLE } from './lib/login-events.ts';
import { adminWithCompany, percentile, runOn, type Tenant, tenantCall } from './lib/org.ts';
import { saveResult } from './lib/report.ts';
import { type BenchServer, envInt, fmt, startServer } from './lib/server.ts';

const ROWS = envInt('BENCH_RETENTION_ROWS', 10_000_000);
const STEPS = envInt('BENCH_RETENTION_STEPS', 5);
const WRITES = envInt('BENCH_RETENTION_WRITES', 500);
const PARTITION_ROWS = envInt('BENCH_RETENTION_PARTITION_ROWS', 1_000_000);
const DAYS = 90;
const DAY_MS = 86_400_000;
/** The default retention of a company (logLimits.retentionDays.default). */
const RETENTION_DAYS = 180;
const MiB = 2 ** 20;

/** The byte counts of PostgreSQL's processes (read_bytes, write_bytes of /proc/<pid>/io). */
function postgresIo(): { read: number; write: number } {
  let read = 0;
  let write = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const io = readFileSync(`/proc/${entry}/io`, 'utf8');
      read += Number(/^read_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
      write += Number(/^write_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
    } catch {
      // ended meanwhile, or not ours to read
    }
  }
  return { read, write };
}

/** Time, WAL bytes, blocks read and hit, and process I/O of one piece of database work. */
async function measured<T>(client: pg.Client, work: () => Promise<T>) {
  const stats = async () =>
    (
      await client.query<{ lsn: string; read: string; hit: string; deleted: string }>(
        `select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') as lsn, blks_read as read, blks_hit as hit,
                tup_deleted as deleted from pg_stat_database where datname = current_database()`,
      )
    ).rows[0] as { lsn: string; read: string; hit: string; deleted: string };
  const before = await stats();
  const ioBefore = postgresIo();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  const ioAfter = postgresIo();
  // Backends report their block counts when idle (within ~1 s on PostgreSQL 15).
  await new Promise((done) => setTimeout(done, 1500));
  const after = await stats();
  return {
    value,
    ms,
    walBytes: Number(after.lsn) - Number(before.lsn),
    blocksRead: Number(after.read) - Number(before.read),
    blocksHit: Number(after.hit) - Number(before.hit),
    rowsDeleted: Number(after.deleted) - Number(before.deleted),
    ioReadBytes: ioAfter.read - ioBefore.read,
    ioWriteBytes: ioAfter.write - ioBefore.write,
  };
}

async function sizes(client: pg.Client) {
  const { rows } = await client.query<{ name: string; bytes: string }>(
    `select 'table' as name, pg_relation_size('login_events') as bytes
     union all
     select indexrelname, pg_relation_size(indexrelid) from pg_stat_user_indexes where relname = 'login_events'
     order by 1`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.bytes)]));
}

async function writeCost(client: pg.Client, tenant: Tenant, step: number) {
  const timings: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const started = performance.now();
    await client.query({
      name: 'write-event',
      text: `insert into login_events (id, company_id, account_id, identifier, client_id, ip, result, failure_cause, country, region)
             values ($1, $2, $3, 'writer', 'tessera-console-dev', '203.0.113.7', $4, $5, 'CN', 'Beijing')`,
      values: [
        `lw-${step}-${i}`,
        tenant.companyId,
        `lr0-u-${i % PEOPLE}`,
        i % 10 === 1 ? 'failure' : 'success',
        i % 10 === 1 ? 'wrong_password' : null,
      ],
    });
    timings.push(performance.now() - started);
  }
  return { p50: percentile(timings, 50), p95: percentile(timings, 95) };
}

const PAGES = [
  { name: 'last month, newest first', body: {} },
  { name: 'failures, three months', body: { range: 'three_months', result: 'failure' } },
  { name: 'deepest page (500 x 20)', body: { range: 'three_months', page: 500 } },
];

async function pageTimes(server: BenchServer, tenant: Tenant) {
  const result: Record<string, { p50: number; max: number }> = {};
  for (const page of PAGES) {
    const timings: number[] = [];
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      await tenantCall(server, tenant, '/api/v1/manage/log/sign-in/list', page.body);
      if (i > 0) timings.push(performance.now() - started);
    }
    result[page.name] = { p50: percentile(timings, 50), max: Math.max(...timings) };
  }
  return result;
}

async function seedStep(client: pg.Client, tenant: Tenant, step: number, rows: number, clientIds: string[]) {
  const prefix = `lr${step}`;
  await client.query(
    `insert into accounts (id, username, password_hash, status, must_change_password, home_company_id)
     select $1 || '-u-' || i, $1 || '.person' || i, '!', 'enabled', false, $2 from generate_series(0, ${PEOPLE - 1}) i`,
    [prefix, tenant.companyId],
  );
  await client.query(
    `insert into company_members (company_id, account_id, role, status)
     select $2, $1 || '-u-' || i, 'member', 'enabled' from generate_series(0, ${PEOPLE - 1}) i`,
    [prefix, tenant.companyId],
  );
  const started = performance.now();
  await client.query(insertEvents('login_events'), [prefix, tenant.companyId, rows, ...clientIds, DAYS]);
  const loadMs = performance.now() - started;
  await client.query('analyze login_events');
  return loadMs;
}

/** The server's own purge with its clock at `now` (a JobContext that never loses its lease). */
const purgeAt = (db: Db, now: Date) =>
  purgeExpiredLogs(db, { heartbeat: async () => true, signal: new AbortController().signal }, now);

async function partitionDrop(client: pg.Client) {
  await client.query(
    `create table lr_part (like login_events including defaults) partition by range (created_at)`,
  );
  await client.query(
    `create table lr_part_month partition of lr_part for values from (now() - interval '31 days') to (now() + interval '1 day')`,
  );
  const loaded = await measured(client, () =>
    client.query(
      `insert into lr_part select * from login_events where created_at > now() - interval '30 days' limit $1`,
      [PARTITION_ROWS],
    ),
  );
  const { rows: indexes } = await client.query<{ indexdef: string; indexname: string }>(
    // The primary key is left out: a unique index of a partitioned table must hold created_at.
    `select indexname, indexdef from pg_indexes where tablename = 'login_events' and indexdef not like 'CREATE UNIQUE%'`,
  );
  for (const { indexdef, indexname } of indexes)
    await client.query(
      indexdef
        .replace(/^CREATE INDEX \S+/, `CREATE INDEX lr_part_${indexname}`)
        .replace(/ ON (public\.)?login_events /, ' ON lr_part '),
    );
  const rows = Number(loaded.value.rowCount);
  const dropped = await measured(client, () => client.query('drop table lr_part_month'));
  await client.query('drop table lr_part');
  return { rows, ms: dropped.ms, walBytes: dropped.walBytes, indexes: indexes.length };
}

async function main() {
  const server = await startServer();
  if (server.storage !== 'postgres' || !server.stored.database) {
    await server.stop();
    throw new Error('the retention benchmark seeds by SQL: run it with BENCH_DATABASE_URL (PostgreSQL)');
  }
  const url = server.stored.database.url;
  console.log(
    `sign-in log retention benchmark on PostgreSQL, server pid ${server.pid}: ${ROWS} events in ${STEPS} steps`,
  );
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => {});
  const db = new Kysely<never>({ dialect: new PostgresDialect({ pool }) }) as unknown as Db;
  const result: Record<string, unknown> = { rows: ROWS, steps: STEPS };
  try {
    await runOn(server, async () => {
      const tenant = await adminWithCompany(server, 'Retention Bench Co');
      const clientIds: string[] = [];
      for (const name of ['Mail', 'Wiki', 'CRM']) {
        const created = await tenantCall<{ app: { clientId: string } }>(
          server,
          tenant,
          '/api/v1/manage/app/create',
          {
            name,
          },
        );
        clientIds.push(created.app.clientId);
      }
      const growth: Record<string, unknown>[] = [];
      for (let step = 0; step < STEPS; step++) {
        const rows = Math.floor(ROWS / STEPS);
        const loadMs = await seedStep(client, tenant, step, rows, clientIds);
        const total = Number((await client.query('select count(*) as n from login_events')).rows[0]?.n);
        const bytes = await sizes(client);
        const indexBytes = Object.entries(bytes)
          .filter(([name]) => name !== 'table')
          .reduce((sum, [, n]) => sum + n, 0);
        const writes = await writeCost(client, tenant, step);
        const pages = await pageTimes(server, tenant);
        growth.push({ events: total, loadMs, bytes, indexBytes, writes, pages });
        console.log(
          `${total} events: loaded ${rows} in ${fmt(loadMs / 1000)} s (${fmt(rows / (loadMs / 1000), 0)}/s with indexes);` +
            ` table ${fmt((bytes.table ?? 0) / MiB, 0)} MiB (${fmt((bytes.table ?? 0) / total, 0)} B/event), indexes ${fmt(indexBytes / MiB, 0)} MiB` +
            ` (${fmt(indexBytes / total, 0)} B/event); one event written p50 ${fmt(writes.p50, 3)} ms p95 ${fmt(writes.p95, 3)} ms;` +
            ` pages p50 ${Object.entries(pages)
              .map(([name, t]) => `${name} ${fmt(t.p50, 0)} ms`)
              .join(', ')}`,
        );
      }
      result.growth = growth;
      const last = growth.at(-1) as { bytes: Record<string, number> };
      console.log(
        `index sizes at ${ROWS} events (MiB): ${Object.entries(last.bytes)
          .map(([name, n]) => `${name} ${fmt(n / MiB, 0)}`)
          .join(', ')}`,
      );

      // The purge as the hourly job runs it: the oldest hour, then a month at once, then VACUUM.
      const realNow = Date.now();
      const clockFor = (olderThanMs: number) => new Date(realNow + RETENTION_DAYS * DAY_MS - olderThanMs);
      const events = async () =>
        Number((await client.query('select count(*) as n from login_events')).rows[0]?.n);
      const before = await events();
      const hour = await measured(client, () => purgeAt(db, clockFor(DAYS * DAY_MS - 3_600_000)));
      const afterHour = await events();
      const month = await measured(client, () => purgeAt(db, clockFor((DAYS - 30) * DAY_MS)));
      const afterMonth = await events();
      const vacuum = await measured(client, () => client.query('vacuum (analyze) login_events'));
      const describe = (label: string, m: Awaited<ReturnType<typeof measured>>, rows?: number) =>
        console.log(
          `${label}: ${rows === undefined ? '' : `${rows} rows, `}${fmt(m.ms / 1000, 2)} s, WAL ${fmt(m.walBytes / MiB, 1)} MiB` +
            `${rows ? ` (${fmt(m.walBytes / rows, 0)} B/row, ${fmt((1000 * m.ms) / rows, 1)} µs/row)` : ''}, blocks read ${m.blocksRead}, hit ${m.blocksHit},` +
            ` process I/O read ${fmt(m.ioReadBytes / MiB, 1)} MiB, written ${fmt(m.ioWriteBytes / MiB, 1)} MiB`,
        );
      // The purge also deletes the dashboard's counts of those days: rows below are events only.
      describe('purge of the oldest hour (the hourly job at steady state)', hour, before - afterHour);
      describe('purge of a month at once (retention shortened by 30 days)', month, afterHour - afterMonth);
      describe('VACUUM (ANALYZE) login_events after it', vacuum);
      result.purge = { hour, month, vacuum, events: { before, afterHour, afterMonth } };
      const partition = await partitionDrop(client);
      console.log(
        `dropping a monthly partition of ${partition.rows} events with its ${partition.indexes} indexes: ${fmt(partition.ms, 1)} ms, WAL ${fmt(partition.walBytes / 1024, 1)} KiB`,
      );
      result.partition = partition;
    });
  } finally {
    await db.destroy().catch(() => {});
    await client.end().catch(() => {});
  }
  const file = await saveResult('log-retention', 'postgres', result);
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
