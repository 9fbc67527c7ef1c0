/**
 * What bench/soak.bench.ts samples every half minute, and how it judges the samples: the
 * server's resident memory, its database's backlogs (read through node-postgres on PostgreSQL,
 * through the probe in the server on PGlite: bench/lib/probe.js), the write-ahead log, and
 * least-squares trends over the end of the run that make the soak's verdict.
 */
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { verdict } from './report.ts';
import { type BenchServer, fmt, memoryOf, sleep } from './server.ts';

/**
 * Backlog rows, one statement (one row of JSON): queued jobs overdue by a minute, failed and all
 * jobs; provider rows (sessions, grants, codes, tokens, interactions) in all, by model, and those
 * past their expiry that the purge has not removed; sliding-window budgets (rate_hit); console
 * sessions in all and those that can no longer be used; undelivered syslog events; sign-in
 * throttling rows; and the event tables, which grow by design until their retention.
 */
export const BACKLOG_SQL = `select json_build_object(
  'jobsOverdue', (select count(*) from jobs where status = 'queued' and run_after < now() - interval '1 minute'),
  'jobsRunning', (select count(*) from jobs where status = 'running'),
  'jobsFailed', (select count(*) from jobs where status = 'failed'),
  'jobsRows', (select count(*) from jobs),
  'oidcRows', (select count(*) from oidc_payloads),
  'oidcExpired', (select count(*) from oidc_payloads where expires_at < now()),
  'oidcByModel', (select coalesce(json_object_agg(model, n), '{}') from
     (select model, count(*) as n from oidc_payloads group by model) m),
  'rateWindows', (select count(*) from rate_windows),
  'consoleSessions', (select count(*) from console_sessions),
  'consoleSessionsDead', (select count(*) from console_sessions
     where revoked_at is not null or idle_expires_at < now() or absolute_expires_at < now()),
  'syslogOutbox', (select count(*) from syslog_outbox),
  'signInUnknown', (select count(*) from sign_in_unknown),
  'loginEvents', (select count(*) from login_events),
  'auditEvents', (select count(*) from audit_events)
) as sample`;

export type Backlog = Record<string, number | Record<string, number>>;

/** Asks the probe in the server (PGlite) one question and waits (bounded) for its answer. */
async function askProbe(file: string, sql: string): Promise<unknown[]> {
  const id = `${Date.now()}-${Math.random()}`;
  if (existsSync(file)) unlinkSync(file);
  writeFileSync(`${file}.ask`, JSON.stringify({ id, sql }));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    await sleep(200);
    try {
      const answer = JSON.parse(readFileSync(file, 'utf8')) as {
        id: string;
        rows?: unknown[];
        error?: string;
      };
      if (answer.id !== id) continue;
      if (answer.error) throw new Error(`probe: ${answer.error}`);
      return answer.rows ?? [];
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('probe:')) throw error;
      // not written yet
    }
  }
  throw new Error('the database probe in the server did not answer within 60 s');
}

/** Bytes in a folder (not following links), 0 when it is missing. */
export function folderBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let sum = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sum += folderBytes(path);
    else if (entry.isFile()) sum += statSync(path).size;
  }
  return sum;
}

/** Reads the backlog and write-ahead log figures of the server's database. */
export function backlogReader(server: BenchServer, probeFile: string) {
  const url = server.stored.database?.url;
  const client = url ? new pg.Client({ connectionString: url }) : undefined;
  // The database is dropped when the server stops, perhaps before close() (a failed run).
  client?.on('error', () => {});
  let connected: Promise<unknown> | undefined;
  return {
    async read(): Promise<{ backlog: Backlog; walBytes: number; walWrittenBytes?: number }> {
      if (!client) {
        const rows = (await askProbe(probeFile, BACKLOG_SQL)) as { sample: Backlog | string }[];
        const sample = rows[0]?.sample;
        const backlog = typeof sample === 'string' ? (JSON.parse(sample) as Backlog) : (sample as Backlog);
        // PGlite keeps its files in the server's data folder: TESSERA_DATA_DIR/pglite.
        return { backlog, walBytes: folderBytes(join(server.stored.dir, 'data', 'pglite', 'pg_wal')) };
      }
      connected ??= client.connect();
      await connected;
      const { rows } = await client.query<{ sample: Backlog }>(BACKLOG_SQL);
      const wal = await client
        .query<{ bytes: string; lsn: string }>(
          `select (select coalesce(sum(size), 0) from pg_ls_waldir()) as bytes,
                  pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') as lsn`,
        )
        .catch(() => ({ rows: [{ bytes: 'NaN', lsn: 'NaN' }] }));
      return {
        backlog: rows[0]?.sample ?? {},
        walBytes: Number(wal.rows[0]?.bytes),
        walWrittenBytes: Number(wal.rows[0]?.lsn),
      };
    },
    async close() {
      if (connected) await client?.end();
    },
  };
}

export const rssMiB = (pid: number) => memoryOf(pid).rssMiB;

/** Least-squares slope of y over x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    sxx += ((xs[i] as number) - mx) ** 2;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}

export interface Trend {
  name: string;
  first: number;
  last: number;
  min: number;
  max: number;
  /** Least-squares slope over the judged window, per minute. */
  perMinute: number;
  /** perMinute times the window's length: how much the fitted line rises over it. */
  growth: number;
  growing: boolean;
}

/** Rows a series may gain over the judged window and still count as flat (a job or two queued). */
export const GROWTH_FLOOR = 10;
/** Share of its own range over the window that a series' fitted rise may reach (see judgeTrend). */
export const GROWTH_SHARE = 0.5;

/**
 * Whether a series keeps growing over the judged window. The purges run every 10 minutes
 * (provider rows, budgets) and the embedded database checkpoints every 5, so a bounded backlog is
 * a saw-tooth: over a 25-minute window, the least-squares line of a saw-tooth of period 10
 * minutes rises by at most 0.11 of its range (0.42 over 20 minutes, 0.20 over 15), whatever its
 * phase, while a series that grows steadily rises by its whole range. A series keeps growing when
 * its fitted rise is over half its range and over GROWTH_FLOOR rows: that flags any steady growth
 * that outweighs the saw-tooth of one purge period, and lets a job or two waiting pass.
 */
export function judgeTrend(
  name: string,
  minutes: readonly number[],
  values: readonly number[],
  floor = GROWTH_FLOOR,
): Trend {
  const perMinute = slope(minutes, values);
  const span = (minutes.at(-1) ?? 0) - (minutes[0] ?? 0);
  const growth = perMinute * span;
  const min = Math.min(...values);
  const max = Math.max(...values);
  return {
    name,
    first: values[0] ?? Number.NaN,
    last: values.at(-1) ?? Number.NaN,
    min,
    max,
    perMinute,
    growth,
    growing: growth > floor && growth > GROWTH_SHARE * (max - min),
  };
}

// ---------------------------------------------------------------------------------------------
// The soak's samples and its verdict

export interface Sample {
  minute: number;
  rssMiB: number;
  errors: number;
  skipped: number;
  flows: number;
  load1: number;
  walBytes: number;
  walWrittenBytes?: number;
  syslogReceived: number;
  syslogBacklog: number;
  backlog: Backlog;
}

/** The line printed for a sample; `flows` and `skipped` as they are when it is printed. */
export function describeSample(sample: Sample, flows: number, skipped: number): string {
  const b = sample.backlog as Record<string, number>;
  return (
    `${fmt(sample.minute, 1).padStart(5)} min  RSS ${fmt(sample.rssMiB)} MiB  flows ${flows}  errors ${sample.errors}` +
    `${skipped ? ` skipped ${skipped}` : ''}  jobs overdue/failed ${b.jobsOverdue}/${b.jobsFailed}` +
    `  provider rows ${b.oidcRows} (expired ${b.oidcExpired})  budgets ${b.rateWindows}` +
    `  console sessions ${b.consoleSessions} (dead ${b.consoleSessionsDead})  syslog outbox ${b.syslogOutbox}` +
    ` backlog ${sample.syslogBacklog} received ${sample.syslogReceived}  WAL ${fmt(sample.walBytes / 2 ** 20)} MiB  load ${fmt(sample.load1, 2)}`
  );
}

/** RSS after the warm-up must stay within this share of its least value. */
const RSS_BAND = 0.1;
/** Trends are judged over the run's last minutes (after the warm-up). */
const JUDGED_MINUTES = 25;

/** The series judged for growth: name, how to read it from a sample, the rise that is still flat. */
const JUDGED: [string, (s: Sample) => number, number?][] = [
  ['jobs overdue', (s) => Number(s.backlog.jobsOverdue)],
  ['jobs failed', (s) => Number(s.backlog.jobsFailed), 0],
  ['jobs rows', (s) => Number(s.backlog.jobsRows)],
  ['provider rows past expiry', (s) => Number(s.backlog.oidcExpired)],
  ['budgets (rate_windows)', (s) => Number(s.backlog.rateWindows)],
  ['console sessions no longer usable', (s) => Number(s.backlog.consoleSessionsDead)],
  ['syslog outbox rows', (s) => Number(s.backlog.syslogOutbox)],
  ['syslog backlog (syslog/status)', (s) => s.syslogBacklog],
  ['failures of unknown names', (s) => Number(s.backlog.signInUnknown)],
  // One WAL segment (16 MiB) of rise is no trend.
  ['write-ahead log bytes', (s) => s.walBytes, 16 * 2 ** 20],
];

/**
 * Judges a soak of `minutes` from its samples and prints the verdict: RSS flat after the warm-up
 * (5 minutes, or a sixth of a shorter run), no error answers, every flow started, no backlog that
 * keeps growing over the last JUDGED_MINUTES, the PGlite WAL bounded. Answers the verdict as saved.
 */
export function judgeSoak(
  samples: Sample[],
  run: { minutes: number; errorTotal: number; skipped: number; storage: string },
) {
  const { minutes, errorTotal, skipped } = run;
  const warmUp = Math.min(5, minutes / 6);
  const judgedFrom = Math.max(warmUp, minutes - JUDGED_MINUTES);
  const afterWarmUp = samples.filter((s) => s.minute >= warmUp);
  const judged = samples.filter((s) => s.minute >= judgedFrom);
  const rss = afterWarmUp.map((s) => s.rssMiB);
  const rssSpread = (Math.max(...rss) - Math.min(...rss)) / Math.min(...rss);
  const rssFlat = rssSpread <= RSS_BAND;
  const rssTrend = judgeTrend(
    'RSS',
    afterWarmUp.map((s) => s.minute),
    rss,
  );
  const trends: Trend[] = JUDGED.map(([name, read, floor]) =>
    judgeTrend(
      name,
      judged.map((s) => s.minute),
      judged.map(read),
      floor,
    ),
  ).filter((t) => Number.isFinite(t.first));
  const growing = trends.filter((t) => t.growing);
  const wal = samples.map((s) => s.walBytes);
  const walTrend = trends.find((t) => t.name === 'write-ahead log bytes');

  console.log(
    `\nVerdict (warm-up ${fmt(warmUp, 1)} min; trends over minutes ${fmt(judgedFrom, 1)}-${minutes}):`,
  );
  console.log(
    `  RSS after warm-up ${fmt(Math.min(...rss))}-${fmt(Math.max(...rss))} MiB, spread ${fmt(100 * rssSpread)} % (flat within ${100 * RSS_BAND} %): ${verdict(rssFlat)}`,
  );
  // The spread includes the garbage collector's saw-tooth; the fitted line shows a drift apart from it.
  const rssMean = rss.reduce((a, b) => a + b, 0) / rss.length;
  console.log(
    `  RSS least-squares rise after warm-up: ${fmt(rssTrend.growth)} MiB (${fmt((100 * rssTrend.growth) / rssMean)} % of its mean ${fmt(rssMean)} MiB)`,
  );
  console.log(`  error answers: ${errorTotal} (zero): ${verdict(errorTotal === 0)}`);
  console.log(`  flows not started (arrival rate not held): ${skipped} (zero): ${verdict(skipped === 0)}`);
  for (const t of trends) {
    console.log(
      `  ${t.name.padEnd(34)} ${fmt(t.first, 0)} -> ${fmt(t.last, 0)} (min ${fmt(t.min, 0)}, max ${fmt(t.max, 0)}), ` +
        `slope ${fmt(t.perMinute, 2)}/min, fitted rise ${fmt(t.growth, 0)}: ${t.growing ? 'GROWING' : 'bounded'}`,
    );
  }
  console.log(`  no backlog that keeps growing: ${verdict(growing.length === 0)}`);
  if (run.storage === 'pglite')
    console.log(
      `  PGlite WAL ${fmt(Math.min(...wal) / 2 ** 20)}-${fmt(Math.max(...wal) / 2 ** 20)} MiB: ${verdict(!walTrend?.growing)} (bounded)`,
    );
  if (minutes < 15)
    console.log(
      '  (a run under 15 minutes sees no purge, which runs every 10 minutes: its trends are for checking only)',
    );
  return { rssSpread, rssFlat, rssTrend, errorTotal, growing: growing.map((t) => t.name), trends };
}
