/**
 * Starts and stops a Tessera server for a benchmark, and drives the sign-in and token flows
 * the way a browser and the console would (cookies by hand, redirects followed by hand).
 * Everything talks to 127.0.0.1 only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
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

  let database = options.restartOf?.stored.database;
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
    if (database) await database.drop().catch((error) => console.warn(`dropping the database: ${error}`));
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
// Cookies

interface Cookie {
  name: string;
  value: string;
  path: string;
}

/** Just enough of a browser's cookie jar for one host: names, paths, deletion. */
export class CookieJar {
  #cookies = new Map<string, Cookie>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const cookie: Cookie = { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), path: '/' };
      let expired = false;
      for (const attribute of attributes) {
        const [key = '', ...rest] = attribute.split('=');
        const value = rest.join('=').trim();
        switch (key.trim().toLowerCase()) {
          case 'path':
            cookie.path = value || '/';
            break;
          case 'expires':
            if (Date.parse(value) <= Date.now()) expired = true;
            break;
          case 'max-age':
            if (Number(value) <= 0) expired = true;
            break;
        }
      }
      const key = `${cookie.path}\t${cookie.name}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, cookie);
    }
  }

  /** The Cookie header for a request to `path`. */
  header(path: string): string {
    const matching = [...this.#cookies.values()].filter(
      (c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
    );
    // Longer paths first, as browsers send them.
    matching.sort((a, b) => b.path.length - a.path.length);
    return matching.map((c) => `${c.name}=${c.value}`).join('; ');
  }
}

// ---------------------------------------------------------------------------------------------
// The sign-in and authorization flow

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** GET with the jar's cookies, no redirect following; stores the answer's cookies. */
async function getWithJar(server: BenchServer, jar: CookieJar, url: string): Promise<Response> {
  const target = new URL(url, server.base);
  // Whatever host a redirect names, the request goes to 127.0.0.1 (localhost is the public URL).
  const path = target.pathname + target.search;
  const response = await fetch(`${server.base}${path}`, {
    redirect: 'manual',
    headers: { cookie: jar.header(target.pathname) },
  });
  jar.store(response);
  return response;
}

/** The relying party an authorization flow is for: the developer console unless told otherwise. */
export interface RelyingParty {
  clientId: string;
  redirectUri: string;
}

const consoleParty = (server: BenchServer): RelyingParty => ({
  clientId: CLIENT_ID,
  redirectUri: server.redirectUri,
});

export function authorizationUrl(
  server: BenchServer,
  challenge: string,
  party: RelyingParty = consoleParty(server),
): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: party.clientId,
    redirect_uri: party.redirectUri,
    scope: 'openid',
    state: randomBytes(8).toString('base64url'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `/oidc/auth?${query}`;
}

export interface PendingInteraction {
  uid: string;
  csrf: string;
  jar: CookieJar;
  pkce: Pkce;
  party: RelyingParty;
}

const codeFrom = (redirectUri: string, location: string): string | undefined => {
  if (!location.startsWith(redirectUri)) return undefined;
  const url = new URL(location);
  const error = url.searchParams.get('error');
  if (error) throw new Error(`authorization failed: ${error} ${url.searchParams.get('error_description')}`);
  return url.searchParams.get('code') ?? undefined;
};

/**
 * Follows redirects from `url` (at most 8) until the client's redirect URI (returns the code) or a
 * page (returns the response, e.g. the sign-in form).
 */
async function follow(
  server: BenchServer,
  jar: CookieJar,
  url: string,
  redirectUri = server.redirectUri,
): Promise<{ code: string } | { page: Response; url: string }> {
  let current = url;
  for (let hop = 0; hop < 8; hop++) {
    const response = await getWithJar(server, jar, current);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.arrayBuffer();
      const code = codeFrom(redirectUri, location);
      if (code) return { code };
      current = location;
      continue;
    }
    return { page: response, url: current };
  }
  throw new Error(`too many redirects from ${url}`);
}

/** Starts an authorization request in a new browser and loads the sign-in form. */
export async function beginInteraction(
  server: BenchServer,
  party: RelyingParty = consoleParty(server),
): Promise<PendingInteraction> {
  const jar = new CookieJar();
  const codes = pkce();
  const result = await follow(
    server,
    jar,
    authorizationUrl(server, codes.challenge, party),
    party.redirectUri,
  );
  if ('code' in result) throw new Error('a new browser got a code without signing in');
  const html = await result.page.text();
  const uid = /\/interaction\/([^/?#]+)/.exec(result.url)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (result.page.status !== 200 || !uid || !csrf) {
    throw new Error(`no sign-in form (status ${result.page.status} at ${result.url})`);
  }
  return { uid, csrf, jar, pkce: codes, party };
}

/**
 * Keep-alive connections for the timed requests of the benchmarks. node:http costs the load
 * generator about a third of what fetch does per request, and this process shares the machine's
 * cores with the server it measures.
 */
const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

/** A POST through node:http, answered as a fetch Response (status, headers, body), no redirects. */
export function postForm(url: string, body: string, headers: Record<string, string>): Promise<Response> {
  return new Promise((done, fail) => {
    const payload = Buffer.from(body);
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: {
          ...headers,
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': String(payload.length),
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', fail);
        incoming.on('end', () => {
          const answer = new Headers();
          for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
            answer.append(incoming.rawHeaders[i] as string, incoming.rawHeaders[i + 1] as string);
          }
          const status = incoming.statusCode ?? 500;
          const content = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          done(new Response(content, { status, headers: answer }));
        });
      },
    );
    outgoing.on('error', fail);
    outgoing.end(payload);
  });
}

/** POSTs the sign-in form; a right password answers 303 to /oidc/auth/<uid>. */
export async function submitLogin(
  server: BenchServer,
  interaction: PendingInteraction,
  credentials: { username: string; password: string } = ADMIN,
): Promise<Response> {
  const path = `/interaction/${interaction.uid}/login`;
  const response = await postForm(
    `${server.base}${path}`,
    new URLSearchParams({
      csrf: interaction.csrf,
      identifier: credentials.username,
      password: credentials.password,
    }).toString(),
    { cookie: interaction.jar.header(path) },
  );
  interaction.jar.store(response);
  return response;
}

/** After a successful login POST: follows the provider back to the redirect URI. */
export async function finishAuthorization(
  server: BenchServer,
  interaction: PendingInteraction,
  loginResponse: Response,
): Promise<string> {
  const location = loginResponse.headers.get('location');
  if (loginResponse.status !== 303 || !location) {
    throw new Error(`sign-in was refused (status ${loginResponse.status})`);
  }
  const result = await follow(server, interaction.jar, location, interaction.party.redirectUri);
  if (!('code' in result)) throw new Error(`no code after sign-in (status ${result.page.status})`);
  return result.code;
}

export interface SignedIn {
  code: string;
  verifier: string;
  /** The browser, now holding the provider's `_session` cookie. */
  jar: CookieJar;
}

/** A full password sign-in; returns an authorization code and the signed-in browser. */
export async function signIn(
  server: BenchServer,
  credentials: { username: string; password: string } = ADMIN,
  party: RelyingParty = consoleParty(server),
): Promise<SignedIn> {
  const interaction = await beginInteraction(server, party);
  const response = await submitLogin(server, interaction, credentials);
  await response.arrayBuffer();
  const code = await finishAuthorization(server, interaction, response);
  return { code, verifier: interaction.pkce.verifier, jar: interaction.jar };
}

/** A further code for a browser that is signed in already (single sign-on, no password). */
export async function authorizeSilently(
  server: BenchServer,
  jar: CookieJar,
  party: RelyingParty = consoleParty(server),
): Promise<{ code: string; verifier: string }> {
  const codes = pkce();
  const result = await follow(
    server,
    jar,
    authorizationUrl(server, codes.challenge, party),
    party.redirectUri,
  );
  if (!('code' in result)) throw new Error(`the session did not give a code (status ${result.page.status})`);
  return { code: result.code, verifier: codes.verifier };
}

// ---------------------------------------------------------------------------------------------
// Console API

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

export async function callApi<T>(
  server: BenchServer,
  path: string,
  body: unknown,
  token?: string,
): Promise<Envelope<T>> {
  const response = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { access_token: token } : {}) },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Envelope<T>;
}

export const TOKEN_PATH = '/api/v1/dev/oidc/token';
export const REFRESH_PATH = '/api/v1/dev/oidc/refresh';

/** Redeems a code for a console token (authorization code grant inside the server). */
export async function redeemCode(server: BenchServer, code: string, verifier: string): Promise<string> {
  const answer = await callApi<{ token: string }>(server, TOKEN_PATH, { code, codeVerifier: verifier });
  if (answer.code !== 200) throw new Error(`code redemption failed: ${answer.code} ${answer.msg}`);
  return answer.data.token;
}

/** Refreshes a console token (refresh-token grant inside); the old token stops working. */
export async function refreshToken(server: BenchServer, token: string): Promise<string> {
  const answer = await callApi<{ token: string }>(server, REFRESH_PATH, {}, token);
  if (answer.code !== 200) throw new Error(`refresh failed: ${answer.code} ${answer.msg}`);
  return answer.data.token;
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
