/** Machine facts, CPU accounting (a server, a cluster, per request of a phase) and result files for the benchmarks. */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, totalmem } from 'node:os';
import { join } from 'node:path';
import { type PgPerRequest, pgPhase } from './pg-stats.ts';
import { type BenchServer, fmt, pool, repoRoot } from './server.ts';

export interface MachineInfo {
  date: string;
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  commit: string;
  dirty: boolean;
}

export function machineInfo(): MachineInfo {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  return {
    date: new Date().toISOString(),
    cores: availableParallelism(),
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    commit: git('rev-parse', '--short', 'HEAD'),
    dirty: git('status', '--porcelain', '--', 'packages/server').length > 0,
  };
}

/** Busy and total CPU seconds of the whole machine so far (all cores, /proc/stat). */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: (total - idle) / 100, total: total / 100 };
}

/**
 * CPU seconds of all processes whose command name is `comm` (e.g. postgres backends), or only of
 * those whose command line holds `argument` (a backend names its database there).
 */
export function cpuOfCommand(comm: string, argument?: string): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (name !== comm) continue;
      if (argument && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(argument)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // the process ended meanwhile
    }
  }
  return sum;
}

/**
 * Nanoseconds on CPU of each thread of a process (schedstat), read when BENCH_THREADS is set:
 * `cpuMeter` then prints each thread's CPU over the phase, by its id's distance from the main
 * thread's (0). On Node 20, +2 to +5 are V8's platform workers (garbage collection, the optimising
 * compiler) and the last four threads libuv's pool, where argon2id runs.
 */
function threadsOf(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        threads.set(
          Number(tid),
          Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]),
        );
      } catch {}
    }
  } catch {}
  return threads;
}

/** CPU seconds of a process (all its threads), or of its main thread only. */
export function cpuOfPid(pid: number, mainThread = false): number {
  try {
    const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

export interface CpuSplit {
  /** Wall-clock seconds of the phase. */
  seconds: number;
  /** Share of all cores busy, 0-1. */
  machineBusy: number;
  /** Cores' worth of CPU used by each party (1.0 = one core fully). */
  server: number;
  /** Of `server`, its main thread (the event loop); the rest is hashing threads, GC and I/O. */
  serverMain: number;
  bench: number;
  postgres: number;
  /** Everything else on the machine (other work running at the same time skews results). */
  other: number;
}

/**
 * Measures who used the CPU between start() and stop(). Postgres backends exit, so it under-counts
 * them slightly. `postgresDatabase`: only the backends of that database count as PostgreSQL (other
 * work on a shared machine may run PostgreSQL too), null: none do (the server runs on PGlite);
 * without it every postgres process does.
 */
export function cpuMeter(serverPid: number, options: { postgresDatabase?: string | null } = {}) {
  const take = () => ({
    at: performance.now(),
    machine: machineCpu(),
    server: cpuOfPid(serverPid),
    serverMain: cpuOfPid(serverPid, true),
    bench: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    postgres: options.postgresDatabase === null ? 0 : cpuOfCommand('postgres', options.postgresDatabase),
    threads: process.env.BENCH_THREADS ? threadsOf(serverPid) : new Map<number, number>(),
  });
  const start = take();
  return {
    stop(): CpuSplit {
      const end = take();
      const seconds = (end.at - start.at) / 1000;
      const busy = end.machine.busy - start.machine.busy;
      const total = end.machine.total - start.machine.total;
      const server = (end.server - start.server) / seconds;
      const serverMain = (end.serverMain - start.serverMain) / seconds;
      const bench = (end.bench - start.bench) / seconds;
      const postgres = Math.max(0, end.postgres - start.postgres) / seconds;
      const busyCores = busy / seconds;
      if (end.threads.size) {
        const line = [...end.threads].map(
          ([tid, ns]) => `${tid - serverPid}:${((ns - (start.threads.get(tid) ?? 0)) / 1e6).toFixed(0)}`,
        );
        console.log(`  threads ms: ${line.join(' ')}`);
      }
      return {
        seconds,
        machineBusy: total > 0 ? busy / total : 0,
        server,
        serverMain,
        bench,
        postgres,
        other: Math.max(0, busyCores - server - bench - postgres),
      };
    },
  };
}

/**
 * CPU seconds used between its start and stop() by each of several server instances (instanceA,
 * instanceB, ..., with their main threads apart: instanceAMain, ...), the PostgreSQL backends of
 * `database`, nginx, this load generator, and the rest of the machine (`other`), for a cluster
 * behind a proxy (bench/storm.bench.ts); with the wall-clock seconds between.
 */
export function clusterCpuMeter(instances: number[], database: string) {
  const take = () => ({
    at: performance.now(),
    machine: machineCpu(),
    instances: instances.map((pid) => cpuOfPid(pid)),
    mains: instances.map((pid) => cpuOfPid(pid, true)),
    postgres: cpuOfCommand('postgres', database),
    nginx: cpuOfCommand('nginx'),
    bench: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
  });
  const before = take();
  return {
    stop(): { seconds: number; used: Record<string, number> } {
      const after = take();
      const used: Record<string, number> = {};
      instances.forEach((_, i) => {
        const name = `instance${String.fromCharCode(65 + i)}`;
        used[name] = (after.instances[i] ?? 0) - (before.instances[i] ?? 0);
        used[`${name}Main`] = (after.mains[i] ?? 0) - (before.mains[i] ?? 0);
      });
      used.postgres = Math.max(0, after.postgres - before.postgres);
      used.nginx = Math.max(0, after.nginx - before.nginx);
      used.loadGenerator = after.bench - before.bench;
      const busy = after.machine.busy - before.machine.busy;
      const ours = Object.entries(used)
        .filter(([name]) => !name.endsWith('Main'))
        .reduce((sum, [, seconds]) => sum + seconds, 0);
      used.other = Math.max(0, busy - ours);
      return { seconds: (after.at - before.at) / 1000, used };
    },
  };
}

/** Two phases' CPU splits as one, each weighed by its length. */
export const addCpu = (a: CpuSplit | undefined, b: CpuSplit): CpuSplit => {
  if (!a) return b;
  const seconds = a.seconds + b.seconds;
  const mix = (x: number, y: number) => (x * a.seconds + y * b.seconds) / seconds;
  return {
    seconds,
    machineBusy: mix(a.machineBusy, b.machineBusy),
    server: mix(a.server, b.server),
    serverMain: mix(a.serverMain, b.serverMain),
    bench: mix(a.bench, b.bench),
    postgres: mix(a.postgres, b.postgres),
    other: mix(a.other, b.other),
  };
};

export const describeCpu = (cpu: CpuSplit) =>
  `CPU (cores): server ${cpu.server.toFixed(2)} (main thread ${cpu.serverMain.toFixed(2)}), postgres ${cpu.postgres.toFixed(2)}, ` +
  `load generator ${cpu.bench.toFixed(2)}, other ${cpu.other.toFixed(2)}; machine ${(cpu.machineBusy * 100).toFixed(0)} % busy`;

/** Writes bench/results/<name>-<storage>-<time>.json (ignored by git and biome). */
export async function saveResult(name: string, storage: string, data: unknown): Promise<string> {
  const dir = join(repoRoot, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}-${storage}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify({ machine: machineInfo(), ...(data as object) }, null, 2)}\n`);
  return file;
}

export const verdict = (met: boolean) => (met ? 'MET' : 'MISSED');

/**
 * Waits (at most `maxMs`) until the machine has been nearly idle for two seconds in a row, so
 * that other work on a shared machine weighs less on a measurement. Returns false on time-out.
 */
export async function waitForQuiet(maxMs = 60_000, maxBusyCores = 0.3): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  let quietSeconds = 0;
  let last = machineCpu();
  while (Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 1000));
    const now = machineCpu();
    const busyCores = now.busy - last.busy;
    last = now;
    quietSeconds = busyCores <= maxBusyCores ? quietSeconds + 1 : 0;
    if (quietSeconds >= 2) return true;
  }
  console.log(`  (the machine did not become idle within ${maxMs / 1000} s: other load may skew this phase)`);
  return false;
}

/**
 * The database whose backends count as PostgreSQL in `cpuMeter` for a server: its own fresh
 * database, or null on PGlite (the database runs inside the server).
 */
export const postgresDatabaseOf = (database: { url: string } | undefined): string | null =>
  database ? new URL(database.url).pathname.slice(1) : null;

export interface HashCost {
  /** CPU of a request: the server (all threads) and its PostgreSQL backends, ms. */
  msCpu: number;
  /** That in raw argon2id hashes of the same run (issue 34's measure; the load generator is not in it). */
  hashes: number;
  goal: number | null;
  met: boolean | null;
}

/**
 * Issue 34's measure of a request that hashes a password: what it costs the server and its
 * database together, in raw hashes measured in the same run. `goal` null: none for this storage.
 */
export function hashCost(
  serverMs: number,
  postgresMs: number,
  rawHashMs: number,
  goal: number | null,
): HashCost {
  const msCpu = serverMs + postgresMs;
  const hashes = msCpu / rawHashMs;
  return { msCpu, hashes, goal, met: goal === null ? null : hashes <= goal };
}

export const describeHashCost = (what: string, cost: HashCost) =>
  `  ${what} costs the server and PostgreSQL ${cost.msCpu.toFixed(1)} ms of CPU = ${cost.hashes.toFixed(2)} raw hashes ` +
  (cost.goal === null
    ? '(no goal on this storage)'
    : `(goal <= ${cost.goal.toFixed(2)}: ${verdict(cost.met === true)})`);

// ---------------------------------------------------------------------------------------------
// Per-request cost of a kind of request, measured alone (bench/sizing.bench.ts)

export interface PerRequestRow {
  kind: string;
  requests: number;
  perSecond: number;
  serverMs: number;
  serverMainMs: number;
  postgresMs: number;
  loadGeneratorMs: number;
  perVcpu: number;
  postgres?: PgPerRequest & { backends: number };
  cpu: CpuSplit;
}

/**
 * Times `count` tasks, `concurrency` at once (no new one after `limitMs`), alone on a quiet
 * machine: the CPU per request of the server (its main thread apart), its PostgreSQL backends and
 * the load generator, hence requests per second per vCPU, and PostgreSQL's transactions, rows
 * written and WAL per request (bench/sizing.bench.ts). Prints them and answers them as a row.
 */
export async function measurePerRequest(
  server: BenchServer,
  kind: string,
  count: number,
  task: (i: number) => Promise<unknown>,
  options: { concurrency: number; limitMs: number; quietMs?: number },
): Promise<PerRequestRow> {
  const { concurrency } = options;
  const url = server.stored.database?.url;
  const counters = url ? await pgPhase(url) : undefined;
  await waitForQuiet(options.quietMs ?? 30_000);
  const meter = cpuMeter(server.pid, { postgresDatabase: postgresDatabaseOf(server.stored.database) });
  const started = performance.now();
  const done = await pool(count, concurrency, options.limitMs, async (i) => {
    await task(i);
    return true;
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = meter.stop();
  const postgres = await counters?.stop(done.length);
  const per = (cores: number) => (cores * seconds * 1000) / Math.max(1, done.length);
  const serverMs = per(cpu.server);
  const postgresMs = per(cpu.postgres);
  const row: PerRequestRow = {
    kind,
    requests: done.length,
    perSecond: done.length / seconds,
    serverMs,
    serverMainMs: per(cpu.serverMain),
    postgresMs,
    loadGeneratorMs: per(cpu.bench),
    perVcpu: 1000 / (serverMs + postgresMs),
    postgres,
    cpu,
  };
  console.log(
    `${kind}: ${done.length} in ${fmt(seconds, 2)} s (${fmt(row.perSecond)}/s); CPU per request: server ${fmt(serverMs, 2)} ms ` +
      `(main thread ${fmt(row.serverMainMs, 2)}), PostgreSQL ${fmt(postgresMs, 2)} ms, load generator ${fmt(row.loadGeneratorMs, 2)} ms ` +
      `= ${fmt(row.perVcpu)} per second per vCPU` +
      (postgres
        ? `; PostgreSQL per request: ${fmt(postgres.transactions, 2)} transactions, rows ${fmt(postgres.rowsInserted, 2)} inserted / ` +
          `${fmt(postgres.rowsUpdated, 2)} updated / ${fmt(postgres.rowsDeleted, 2)} deleted, WAL ${fmt(postgres.walBytes, 0)} bytes`
        : ''),
  );
  console.log(`  ${describeCpu(cpu)}`);
  return row;
}

/** The rows as a markdown table (PostgreSQL's columns only on PostgreSQL). */
export function perVcpuTable(rows: PerRequestRow[], storage: string) {
  const pgCols = storage === 'postgres';
  const head = `| request | per vCPU (/s) | server CPU (ms) | of it main thread | PostgreSQL CPU (ms) |${pgCols ? ' transactions | rows written | WAL bytes |' : ''}`;
  const rule = `| --- | ---: | ---: | ---: | ---: |${pgCols ? ' ---: | ---: | ---: |' : ''}`;
  const lines = rows.map((r) => {
    const p = r.postgres;
    const written = p ? p.rowsInserted + p.rowsUpdated + p.rowsDeleted : 0;
    return (
      `| ${r.kind} | ${fmt(r.perVcpu)} | ${fmt(r.serverMs, 2)} | ${fmt(r.serverMainMs, 2)} | ${fmt(r.postgresMs, 2)} |` +
      (pgCols && p ? ` ${fmt(p.transactions, 2)} | ${fmt(written, 2)} | ${fmt(p.walBytes, 0)} |` : '')
    );
  });
  return [head, rule, ...lines].join('\n');
}
