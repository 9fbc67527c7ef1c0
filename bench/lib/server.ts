/**
 * Starts and stops a Tessera server for a benchmark (browser.ts drives its sign-in and token
 * flows). Everything talks to 127.0.0.1 only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const ADMIN = { username: 'admin', password: 'Bench-Password-2024' } as const;
export const CLIENT_ID = 'tessera-console-dev';

export type Storage = 'pglite' | 'postgres';

/**
 * How the server runs: `compiled` is what `npm start` runs (packages/server/dist, built by
 * `npm run build:server`, checked to be there, with the node flags of the start script),
 * `source` runs the TypeScript through tsx as `npm run dev` does. BENCH_SERVER picks one;
 * compiled by default.
 */
export type ServerBuild = 'compiled' | 'source';

export const serverBuildFromEnv = (): ServerBuild => {
  const value = process.env.BENCH_SERVER ?? 'compiled';
  if (value !== 'compiled' && value !== 'source') throw new Error('BENCH_SERVER must be compiled or source');
  return value;
};

const compiledEntry = 'packages/server/dist/main.js';

/** The node flags `npm start` gives the compiled server, read from its script in package.json. */
export function startFlags(): string[] {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const flags = new RegExp(`node((?: --[\\w=.-]+)*) ${compiledEntry}`).exec(
    manifest.scripts.start ?? '',
  )?.[1];
  if (flags === undefined) throw new Error(`the start script of package.json does not run ${compiledEntry}`);
  return flags.split(' ').filter(Boolean);
}

/** The node arguments that start the server (before any instrumentation is added). */
export function serverCommand(build: ServerBuild): { entry: string; args: string[] } {
  if (build === 'source') {
    return { entry: 'packages/server/src/main.ts', args: ['--conditions=source', '--import', 'tsx'] };
  }
  if (!existsSync(join(repoRoot, compiledEntry))) {
    throw new Error(
      'packages/server/dist is missing: run "npm run build:server" first (or BENCH_SERVER=source)',
    );
  }
  return { entry: compiledEntry, args: startFlags() };
}

export interface BenchServer {
  /** http://127.0.0.1:PORT: where requests go. */
  base: string;
  /** http://localhost:PORT: the configured public URL (issuer and redirect URI are built on it). */
  publicUrl: string;
  port: number;
  pid: number;
  storage: Storage;
  /** Compiled JavaScript or TypeScript through tsx. */
  build: ServerBuild;
  redirectUri: string;
  /** Milliseconds from spawn to the first successful request to the ready path (discovery by default). */
  startupMs: number;
  /** The last lines the server printed. */
  logTail(lines?: number): string;
  /** Stops the server; with `keepData` the data stay for a restart (`startServer({ restartOf })`). */
  stop(options?: { keepData?: boolean }): Promise<void>;
  /**
   * With BENCH_PROFILE=phases: starts (true) or ends (false) a CPU profile of the server's main
   * thread, written to bench/results/profiles; otherwise nothing.
   */
  profilePhase(start: boolean): Promise<void>;
  /** With `probe: true`: the server's process.memoryUsage(), in MiB. */
  memoryUsage(): Promise<Record<string, number>>;
  /** Where the data live (for a restart on the same data). */
  readonly stored: StoredData;
}

/** A run's temp dir (master key, PGlite data, log) and its PostgreSQL database, if any. */
export interface StoredData {
  dir: string;
  database: { url: string; drop(): Promise<void> } | undefined;
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') done(address.port);
        else fail(new Error('no port'));
      });
    });
  });
}

/** A free UDP port on 127.0.0.1 (the server's RADIUS port: 1812 may be taken by another server). */
export function freeUdpPort(): Promise<number> {
  return new Promise((done, fail) => {
    const socket = createSocket('udp4');
    socket.once('error', fail);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => done(port));
    });
  });
}

/** The storage a run uses: PostgreSQL when BENCH_DATABASE_URL is set, else embedded PGlite. */
export const storageFromEnv = (): Storage => (process.env.BENCH_DATABASE_URL ? 'postgres' : 'pglite');

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A fresh database on the server of `adminUrl`, dropped again by `drop()`. */
async function freshDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tessera_bench_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await withClient(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

const running = new Set<ChildProcess>();
let exitHooksInstalled = false;
function installExitHooks() {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  // A benchmark that dies or is interrupted takes its server with it.
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of running) child.kill('SIGKILL');
      process.exit(130);
    });
  }
}

export interface StartOptions {
  storage?: Storage;
  /** Extra environment for the server. */
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Starts on the data of a server stopped with `keepData` (a restart), instead of new data. */
  restartOf?: BenchServer;
  /**
   * Another running server's PostgreSQL database, shared (a second instance on one database): this
   * server gets a data dir of its own and leaves the database to its owner when it stops.
   */
  sharedDatabase?: StoredData['database'];
  /** Loads bench/lib/probe.js into the server, for memoryUsage(). */
  probe?: boolean;
  /** Compiled (the default, or BENCH_SERVER) or from source. */
  build?: ServerBuild;
  /** The GET whose first 200 means "ready" (default: the provider's discovery document). */
  readyPath?: string;
  /** How often the ready path is asked while the server starts (default 100 ms). */
  pollMs?: number;
}

export async function startServer(options: StartOptions = {}): Promise<BenchServer> {
  installExitHooks();
  const storage = options.restartOf?.storage ?? options.storage ?? storageFromEnv();
  const build = options.restartOf?.build ?? options.build ?? serverBuildFromEnv();
  const command = serverCommand(build);
  const port = await freePort();
  const dataDir = options.restartOf?.stored.dir ?? (await mkdtemp(join(tmpdir(), 'tessera-bench-')));
  const logPath = join(dataDir, 'server.log');
  const publicUrl = `http://localhost:${port}`;
  const base = `http://127.0.0.1:${port}`;

  let database = options.restartOf?.stored.database ?? options.sharedDatabase;
  if (storage === 'postgres' && !database) {
    const adminUrl = process.env.BENCH_DATABASE_URL;
    if (!adminUrl) throw new Error('storage postgres needs BENCH_DATABASE_URL');
    database = await freshDatabase(adminUrl);
  }

  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    TESSERA_PUBLIC_URL: publicUrl,
    TESSERA_DATA_DIR: join(dataDir, 'data'),
    TESSERA_BOOTSTRAP_ADMIN_USERNAME: ADMIN.username,
    TESSERA_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    DATABASE_URL: database?.url,
    TESSERA_RADIUS_PORT: process.env.TESSERA_RADIUS_PORT ?? String(await freeUdpPort()),
    TESSERA_MASTER_KEY: undefined,
    NODE_OPTIONS: undefined,
    ...options.env,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];

  const log = openSync(logPath, 'a');
  const spawnedAt = performance.now();
  // BENCH_PROFILE=1: the server writes a V8 CPU profile when it stops (see bench/profile.ts).
  const profileArgs =
    process.env.BENCH_PROFILE && process.env.BENCH_PROFILE !== 'phases'
      ? ['--cpu-prof', '--cpu-prof-dir', join(repoRoot, 'bench', 'results', 'profiles')]
      : [];
  const probeFile = join(dataDir, 'probe.json');
  if (options.probe) env.BENCH_PROBE_FILE = probeFile;
  // BENCH_PROFILE=phases: profiles of the timed phases only (BenchServer.profilePhase).
  const phaseProfiles = process.env.BENCH_PROFILE === 'phases';
  if (phaseProfiles) env.BENCH_PROFILE_DIR = join(repoRoot, 'bench', 'results', 'profiles');
  if (phaseProfiles) await mkdir(env.BENCH_PROFILE_DIR as string, { recursive: true });
  const probeArgs =
    options.probe || phaseProfiles
      ? ['--expose-gc', '--import', pathToFileURL(join(repoRoot, 'bench', 'lib', 'probe.js')).href]
      : [];
  // BENCH_SERVER_NODE_ARGS: further node flags for the server (space-separated), for experiments.
  const extraArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const child = spawn(
    process.execPath,
    [...profileArgs, ...command.args, ...extraArgs, ...probeArgs, command.entry],
    {
      cwd: repoRoot,
      env,
      stdio: ['ignore', log, log],
    },
  );
  running.add(child);
  let exited = false;
  const exitedPromise = new Promise<void>((done) =>
    child.once('exit', () => {
      exited = true;
      running.delete(child);
      done();
    }),
  );

  const logTail = (lines = 20) => {
    try {
      return readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };

  let stopped = false;
  const stop = async (stopOptions: { keepData?: boolean } = {}) => {
    if (stopped) return;
    stopped = true;
    if (!exited) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exitedPromise;
      clearTimeout(timer);
    }
    if (stopOptions.keepData) return;
    if (database && !options.sharedDatabase)
      await database.drop().catch((error) => console.warn(`dropping the database: ${error}`));
    await rm(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 180_000);
  let startupMs = 0;
  for (;;) {
    if (exited) {
      const tail = logTail();
      await stop();
      throw new Error(`the server exited during start-up:\n${tail}`);
    }
    if (Date.now() > deadline) {
      const tail = logTail();
      await stop();
      throw new Error(`the server was not ready in time:\n${tail}`);
    }
    try {
      const response = await fetch(`${base}${options.readyPath ?? '/oidc/.well-known/openid-configuration'}`);
      await response.arrayBuffer();
      if (response.ok) {
        startupMs = performance.now() - spawnedAt;
        break;
      }
    } catch {
      // not listening yet
    }
    await sleep(options.pollMs ?? 100);
  }

  return {
    base,
    publicUrl,
    port,
    pid: child.pid as number,
    storage,
    build,
    redirectUri: `${publicUrl}/dev/`,
    startupMs,
    logTail,
    stop,
    stored: { dir: dataDir, database },
    async profilePhase(start: boolean) {
      if (!phaseProfiles) return;
      child.kill('SIGUSR2');
      // The profiler starts or writes its file on the server's event loop.
      await sleep(start ? 50 : 500);
    },
    async memoryUsage() {
      if (!options.probe) throw new Error('start the server with probe: true');
      const sentAt = Date.now();
      child.kill('SIGUSR2');
      for (let i = 0; i < 50; i++) {
        await sleep(100);
        try {
          const data = JSON.parse(readFileSync(probeFile, 'utf8')) as Record<string, number>;
          if ((data.at ?? 0) < sentAt) continue;
          const { at: _at, ...usage } = data;
          return Object.fromEntries(Object.entries(usage).map(([k, v]) => [k, v / 1024 / 1024]));
        } catch {
          // not written yet
        }
      }
      throw new Error('the memory probe did not answer');
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers for the benchmarks

/** Runs `task(i)` for i < count with at most `concurrency` at once; stops starting new ones after `timeMs`. */
export async function pool<T>(
  count: number,
  concurrency: number,
  timeMs: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  const deadline = Date.now() + timeMs;
  let next = 0;
  const worker = async () => {
    while (next < count && Date.now() < deadline) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results.filter((r) => r !== undefined);
}

export const envInt = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number`);
  return value;
};

/** VmRSS and VmHWM of a process, in MiB (Linux). */
export function memoryOf(pid: number): { rssMiB: number; hwmMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, hwmMiB: kib('VmHWM') / 1024 };
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
