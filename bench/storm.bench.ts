/**
 * Login storm (issue 34, goal 3): two compiled server instances on one PostgreSQL behind a
 * round-robin nginx; BENCH_STORM_PEOPLE (1 000) people of one company sign in to its OIDC
 * application through the browser-equivalent HTTP flow:
 *   authorize  GET /oidc/auth (PKCE) and its redirects to the sign-in form,
 *   password   POST of the sign-in form and the redirects after it,
 *   otp        for every second person: POST of the second-factor step with a TOTP code, redirects,
 *   token      POST /oidc/token at the provider (authorization_code, client_secret_basic, PKCE).
 * Arrivals follow an open model: person i starts at i / BENCH_STORM_RATE seconds, whether or not the
 * earlier ones are done. Prints p50/p95/p99 of each step and of the whole flow, the errors, the CPU
 * per flow of each process (both instances, PostgreSQL, nginx, this load generator), PostgreSQL's
 * transactions, rows written and WAL bytes per flow; then counts the company's successful sign-ins
 * in its sign-in log (must be exactly one per flow).
 *
 * BENCH_STORM_SEARCH=1: steps the arrival rate through BENCH_STORM_RATES with BENCH_STORM_STEP_PEOPLE
 * flows each and reports the highest rate whose whole flow keeps p99 < 2 s without errors.
 *
 *   npm run build:server
 *   bash scripts/with-postgres.sh bash scripts/with-nginx.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/storm.bench.ts'
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createSealer } from '../packages/server/src/lib/crypto.ts';
import { generateTotp } from '../packages/server/src/lib/otp/totp.ts';
import { beginInteraction, follow, postForm, type RelyingParty, signIn, submitLogin } from './lib/browser.ts';
import {
  adminWithCompany,
  licenseUsers,
  openAppWithOptionalOtp,
  percentile,
  startLicensableServer,
  tenantCall,
} from './lib/org.ts';
import { pgPhase } from './lib/pg-stats.ts';
import {
  cpuOfCommand,
  cpuOfPid,
  machineCpu,
  postgresDatabaseOf,
  saveResult,
  verdict,
  waitForQuiet,
} from './lib/report.ts';
import { type BenchServer, envInt, fmt, freePort, memoryOf, pool, sleep } from './lib/server.ts';

const PEOPLE = envInt('BENCH_STORM_PEOPLE', 1000);
/** Arrivals per second; 17 puts 1 000 arrivals within 60 s (the goal). */
const RATE = Number(process.env.BENCH_STORM_RATE ?? 17);
const SEARCH = process.env.BENCH_STORM_SEARCH === '1';
const SEARCH_RATES = (process.env.BENCH_STORM_RATES ?? '10,15,20,25,30,35,40,50').split(',').map(Number);
const STEP_PEOPLE = envInt('BENCH_STORM_STEP_PEOPLE', 300);
const P99_GOAL_MS = 2000;
const PASSWORD = 'Storm-Bench-Password-2024';
/** Never contacted: the codes are read from the provider's redirect. */
const REDIRECT_URI = 'http://127.0.0.1:7002/callback';
const STEPS = ['authorize', 'password', 'otp', 'token', 'flow'] as const;
type Step = (typeof STEPS)[number];

interface Person {
  username: string;
  password: string;
  /** Every second person has a bound TOTP factor (the company asks it of those who have one). */
  totp?: { factorId: string; seed: Buffer };
}

interface Client {
  clientId: string;
  secret: string;
}

const basic = (client: Client) =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;

// ---------------------------------------------------------------------------------------------
// The proxy: Debian's nginx (scripts/with-nginx.sh), its own process, round robin, keep-alive upstream.

async function startNginx(ports: number[], port: number): Promise<{ stop(): Promise<void> }> {
  const binary = process.env.TESSERA_TEST_NGINX;
  const dir = process.env.TESSERA_TEST_NGINX_DIR;
  if (!binary || !dir) throw new Error('nginx is needed: run this under scripts/with-nginx.sh');
  const config = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
${process.getuid?.() === 0 ? 'user root;' : ''}
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream tessera {
${ports.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    # The console API names its headers access_token and company_id.
    underscores_in_headers on;
    location / {
      proxy_pass http://tessera;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto http;
      proxy_buffer_size 16k;
      proxy_buffers 8 16k;
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), config);
  const child = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  for (let i = 0; ; i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/oidc/.well-known/openid-configuration`);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (i === 100) throw new Error(`nginx did not answer on ${port} (${dir}/error.log)`);
    await sleep(50);
  }
  return {
    async stop() {
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Set-up: the company, its application, MFA for people with a factor, the people.

async function setUp(proxy: BenchServer, databaseUrl: string, masterKey: Buffer) {
  const tenant = await adminWithCompany(proxy, 'Storm Co');
  await licenseUsers(proxy, tenant, PEOPLE + 100);
  const created = await openAppWithOptionalOtp(proxy, tenant, 'Storm Wiki', REDIRECT_URI);
  const { clientId } = created;

  const people: Person[] = [];
  const started = performance.now();
  await pool(PEOPLE, 4, 600_000, async (i) => {
    const username = `storm-${String(i).padStart(5, '0')}`;
    await tenantCall(proxy, tenant, '/api/v1/manage/company/user/create', {
      username,
      role: 'member',
      password: PASSWORD,
    });
    people[i] = { username, password: PASSWORD };
  });
  // Every second person's TOTP factor, bound as the binding step would leave it (sealed seed).
  const sealer = createSealer(masterKey);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const ids = await client.query<{ id: string; username: string }>(
      `select id, username from accounts where username like 'storm-%'`,
    );
    const idOf = new Map(ids.rows.map((r) => [r.username, r.id]));
    for (let i = 1; i < people.length; i += 2) {
      const person = people[i] as Person;
      const factorId = `storm-factor-${i}`;
      const seed = randomBytes(20);
      await client.query(
        `insert into mfa_factors (id, account_id, type, name, status, secret_sealed, bound_at)
         values ($1, $2, 'otp', 'OTP', 'bound', $3, now())`,
        [
          factorId,
          idOf.get(person.username),
          sealer.seal(seed.toString('base64'), `mfa-otp-seed:${factorId}`),
        ],
      );
      person.totp = { factorId, seed };
    }
  } finally {
    await client.end();
  }
  console.log(
    `set up ${people.length} people (half with TOTP) in ${fmt((performance.now() - started) / 1000)} s`,
  );
  return {
    tenant,
    people,
    app: { clientId, secret: created.clientSecret } satisfies Client,
    party: { clientId, redirectUri: REDIRECT_URI } satisfies RelyingParty,
  };
}

// ---------------------------------------------------------------------------------------------
// One person's flow.

type Timings = Partial<Record<Step, number>>;

const claimsOf = (idToken: string) =>
  JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { amr?: string[] };

async function signInFlow(
  proxy: BenchServer,
  person: Person,
  party: RelyingParty,
  app: Client,
): Promise<Timings> {
  const times: Timings = {};
  let step: Step = 'authorize';
  const began = performance.now();
  let at = began;
  const lap = (name: Step) => {
    const now = performance.now();
    times[name] = now - at;
    at = now;
  };
  try {
    const interaction = await beginInteraction(proxy, party);
    lap('authorize');
    step = 'password';
    const answer = await submitLogin(proxy, interaction, person);
    await answer.arrayBuffer();
    const location = answer.headers.get('location');
    if (answer.status !== 303 || !location) throw new Error(`the password was refused (${answer.status})`);
    let result = await follow(proxy, interaction.jar, location, party.redirectUri);
    lap('password');
    if (person.totp) {
      step = 'otp';
      if ('code' in result) throw new Error('no second factor was asked');
      const html = await result.page.text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
      if (!csrf || !html.includes('/step/second_factor'))
        throw new Error(`no second-factor form (${result.page.status})`);
      const path = `${new URL(result.url, proxy.base).pathname}/step/second_factor`;
      const posted = await postForm(
        `${proxy.base}${path}`,
        new URLSearchParams({
          csrf,
          factorId: person.totp.factorId,
          code: generateTotp(person.totp.seed, Date.now()),
        }).toString(),
        { cookie: interaction.jar.header(path) },
      );
      interaction.jar.store(posted);
      await posted.arrayBuffer();
      const next = posted.headers.get('location');
      if (posted.status !== 303 || !next) throw new Error(`the code was refused (${posted.status})`);
      result = await follow(proxy, interaction.jar, next, party.redirectUri);
      lap('otp');
    }
    step = 'token';
    if (!('code' in result)) throw new Error(`no code (${result.page.status} at ${result.url})`);
    const token = await postForm(
      `${proxy.base}/oidc/token`,
      new URLSearchParams({
        grant_type: 'authorization_code',
        code: result.code,
        redirect_uri: party.redirectUri,
        code_verifier: interaction.pkce.verifier,
      }).toString(),
      { authorization: basic(app) },
    );
    const body = (await token.json()) as { access_token?: string; id_token?: string };
    if (token.status !== 200 || !body.access_token || !body.id_token)
      throw new Error(`token ${token.status}`);
    const amr = claimsOf(body.id_token).amr ?? [];
    if (Boolean(person.totp) !== amr.includes('otp')) throw new Error(`amr ${amr.join(',')}`);
    lap('token');
    times.flow = performance.now() - began;
    return times;
  } catch (error) {
    throw new Error(`${step}: ${(error as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Measures of a storm: CPU per process, PostgreSQL's counters.

interface Processes {
  instances: number[];
  database: string;
}

function cpuReading(p: Processes) {
  return {
    at: performance.now(),
    machine: machineCpu(),
    instances: p.instances.map((pid) => cpuOfPid(pid)),
    mains: p.instances.map((pid) => cpuOfPid(pid, true)),
    postgres: cpuOfCommand('postgres', p.database),
    nginx: cpuOfCommand('nginx'),
    bench: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
  };
}

interface StormResult {
  rate: number;
  flows: number;
  errors: number;
  errorSamples: Record<string, number>;
  seconds: number;
  maxLatenessMs: number;
  percentiles: Record<string, { p50: number; p95: number; p99: number; n: number }>;
  cpuMsPerFlow: Record<string, number>;
  cpuCores: Record<string, number>;
  postgresPerFlow: Record<string, number>;
  p99Met: boolean;
}

async function storm(
  proxy: BenchServer,
  processes: Processes,
  databaseUrl: string,
  people: Person[],
  party: RelyingParty,
  app: Client,
  rate: number,
): Promise<StormResult> {
  // PostgreSQL's counters around the storm (pgPhase pauses for its statistics to be written out).
  const counters = await pgPhase(databaseUrl);
  await waitForQuiet(30_000);
  const cpuBefore = cpuReading(processes);
  const timings: Timings[] = [];
  const errors: Record<string, number> = {};
  let maxLateness = 0;
  const started = performance.now();
  await Promise.all(
    people.map(async (person, i) => {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      maxLateness = Math.max(maxLateness, performance.now() - due);
      try {
        timings.push(await signInFlow(proxy, person, party, app));
      } catch (error) {
        const reason = (error as Error).message.slice(0, 120);
        errors[reason] = (errors[reason] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuReading(processes);
  const postgres = await counters.stop(people.length);

  const flows = people.length;
  const errorCount = Object.values(errors).reduce((a, b) => a + b, 0);
  const percentiles: StormResult['percentiles'] = {};
  for (const step of STEPS) {
    const values = timings.map((t) => t[step]).filter((v): v is number => v !== undefined);
    percentiles[step] = {
      p50: percentile(values, 50),
      p95: percentile(values, 95),
      p99: percentile(values, 99),
      n: values.length,
    };
  }
  const wall = (cpuAfter.at - cpuBefore.at) / 1000;
  const used = {
    instanceA: (cpuAfter.instances[0] ?? 0) - (cpuBefore.instances[0] ?? 0),
    instanceAMain: (cpuAfter.mains[0] ?? 0) - (cpuBefore.mains[0] ?? 0),
    instanceB: (cpuAfter.instances[1] ?? 0) - (cpuBefore.instances[1] ?? 0),
    instanceBMain: (cpuAfter.mains[1] ?? 0) - (cpuBefore.mains[1] ?? 0),
    postgres: Math.max(0, cpuAfter.postgres - cpuBefore.postgres),
    nginx: Math.max(0, cpuAfter.nginx - cpuBefore.nginx),
    loadGenerator: cpuAfter.bench - cpuBefore.bench,
  };
  const busy = cpuAfter.machine.busy - cpuBefore.machine.busy;
  const ours = used.instanceA + used.instanceB + used.postgres + used.nginx + used.loadGenerator;
  const cpuMsPerFlow = Object.fromEntries(
    Object.entries({ ...used, other: Math.max(0, busy - ours) }).map(([k, v]) => [
      k,
      Number(fmt((v * 1000) / flows, 2)),
    ]),
  );
  const cpuCores = Object.fromEntries(
    Object.entries({ ...used, other: Math.max(0, busy - ours) }).map(([k, v]) => [
      k,
      Number(fmt(v / wall, 2)),
    ]),
  );
  const postgresPerFlow = {
    transactions: Number(fmt(postgres.transactions, 2)),
    rowsInserted: Number(fmt(postgres.rowsInserted, 2)),
    rowsUpdated: Number(fmt(postgres.rowsUpdated, 2)),
    rowsDeleted: Number(fmt(postgres.rowsDeleted, 2)),
    walBytes: Number(fmt(postgres.walBytes, 0)),
    backendsAfter: postgres.backends,
  };
  const flow = percentiles.flow as { p99: number };
  return {
    rate,
    flows,
    errors: errorCount,
    errorSamples: errors,
    seconds,
    maxLatenessMs: maxLateness,
    percentiles,
    cpuMsPerFlow,
    cpuCores,
    postgresPerFlow,
    p99Met: errorCount === 0 && flow.p99 < P99_GOAL_MS,
  };
}

function describe(result: StormResult) {
  const lines = [
    `rate ${result.rate}/s: ${result.flows} flows in ${fmt(result.seconds, 1)} s, ${result.errors} errors` +
      ` (latest start ${fmt(result.maxLatenessMs, 0)} ms behind schedule)`,
  ];
  for (const [reason, n] of Object.entries(result.errorSamples)) lines.push(`  error x${n}: ${reason}`);
  for (const step of STEPS) {
    const p = result.percentiles[step] as { p50: number; p95: number; p99: number; n: number };
    lines.push(
      `  ${step.padEnd(9)} n=${String(p.n).padStart(4)}  p50 ${fmt(p.p50, 0).padStart(5)} ms  p95 ${fmt(p.p95, 0).padStart(5)} ms  p99 ${fmt(p.p99, 0).padStart(5)} ms`,
    );
  }
  const c = result.cpuMsPerFlow;
  lines.push(
    `  CPU per flow (ms): instance A ${c.instanceA} (main ${c.instanceAMain}), instance B ${c.instanceB} (main ${c.instanceBMain}), ` +
      `PostgreSQL ${c.postgres}, nginx ${c.nginx}, load generator ${c.loadGenerator}, other ${c.other}`,
  );
  const k = result.cpuCores;
  lines.push(
    `  CPU (cores): instances ${k.instanceA} + ${k.instanceB}, PostgreSQL ${k.postgres}, nginx ${k.nginx}, load generator ${k.loadGenerator}, other ${k.other}`,
  );
  const d = result.postgresPerFlow;
  lines.push(
    `  PostgreSQL per flow: ${d.transactions} transactions, rows ${d.rowsInserted} inserted / ${d.rowsUpdated} updated / ${d.rowsDeleted} deleted, ` +
      `WAL ${fmt(d.walBytes ?? 0, 0)} bytes (the instances' idle rate taken off); ${d.backendsAfter} backends on the database`,
  );
  lines.push(`  whole flow p99 < ${P99_GOAL_MS} ms without errors: ${verdict(result.p99Met)}`);
  return lines.join('\n');
}

async function successesOf(databaseUrl: string, companyId: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `select count(*) as n from login_events where company_id = $1 and result = 'success'`,
      [companyId],
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  if (!process.env.BENCH_DATABASE_URL)
    throw new Error('the storm runs on PostgreSQL: set BENCH_DATABASE_URL');
  const masterKey = randomBytes(32);
  const proxyPort = await freePort();
  const publicUrl = `http://localhost:${proxyPort}`;
  // Both instances: one public URL (the proxy's), one master key, one database.
  const env = { TESSERA_PUBLIC_URL: publicUrl, TESSERA_MASTER_KEY: masterKey.toString('hex') };
  const first = await startLicensableServer({ env });
  const servers: BenchServer[] = [first];
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  const result: Record<string, unknown> = { people: PEOPLE };
  try {
    servers.push(await startLicensableServer({ env, sharedDatabase: first.stored.database }));
    const databaseUrl = first.stored.database?.url as string;
    nginx = await startNginx(
      servers.map((s) => s.port),
      proxyPort,
    );
    const proxy: BenchServer = {
      ...first,
      base: `http://127.0.0.1:${proxyPort}`,
      publicUrl,
      redirectUri: `${publicUrl}/dev/`,
    };
    console.log(
      `login storm: instances pid ${servers.map((s) => `${s.pid} (:${s.port})`).join(', ')} behind nginx :${proxyPort}, PostgreSQL`,
    );
    const { tenant, people, app, party } = await setUp(proxy, databaseUrl, masterKey);
    // Warm-up through both instances (the console, not the company: its sign-in log stays the storm's).
    for (let i = 0; i < 6; i++) await signIn(proxy);
    const processes = {
      instances: servers.map((s) => s.pid),
      database: postgresDatabaseOf(first.stored.database) as string,
    };
    const memoryBefore = servers.map((s) => memoryOf(s.pid).rssMiB);
    let expected = 0;
    if (!SEARCH) {
      const run = await storm(proxy, processes, databaseUrl, people, party, app, RATE);
      expected += run.flows - run.errors;
      console.log(describe(run));
      result.storm = run;
    } else {
      const steps: StormResult[] = [];
      let offset = 0;
      for (const rate of SEARCH_RATES) {
        // Each step takes the next people: a person's TOTP code must be of a later time step than their last.
        const slice = Array.from(
          { length: STEP_PEOPLE },
          (_, i) => people[(offset + i) % people.length] as Person,
        );
        offset += STEP_PEOPLE;
        const run = await storm(proxy, processes, databaseUrl, slice, party, app, rate);
        expected += run.flows - run.errors;
        console.log(describe(run));
        steps.push(run);
        if (!run.p99Met) break;
      }
      const best = steps.filter((s) => s.p99Met).at(-1);
      console.log(
        best
          ? `highest arrival rate with the whole flow's p99 < ${P99_GOAL_MS} ms and no errors: ${best.rate}/s (of ${SEARCH_RATES.join(', ')})`
          : `no rate of ${SEARCH_RATES.join(', ')} kept the whole flow's p99 < ${P99_GOAL_MS} ms`,
      );
      result.search = { steps, highestRate: best?.rate ?? null };
    }
    const memoryAfter = servers.map((s) => memoryOf(s.pid).rssMiB);
    console.log(
      `RSS of the instances (MiB): before ${memoryBefore.map((m) => fmt(m)).join(' / ')}, after ${memoryAfter.map((m) => fmt(m)).join(' / ')}`,
    );
    const successes = await successesOf(databaseUrl, tenant.companyId);
    const logOk = successes === expected && (SEARCH || successes === PEOPLE);
    console.log(
      `the company's sign-in log holds ${successes} successful sign-ins (${expected} flows succeeded${SEARCH ? '' : `, ${PEOPLE} people`}): ${verdict(logOk)}`,
    );
    Object.assign(result, { memoryBefore, memoryAfter, successes, expected, logOk });
  } catch (error) {
    for (const server of servers) console.error(server.logTail(20));
    throw error;
  } finally {
    await nginx?.stop();
    // The second instance first: the first one owns (and drops) the database.
    for (const server of servers.reverse()) await server.stop();
  }
  const file = await saveResult(SEARCH ? 'storm-search' : 'storm', 'postgres', result);
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
