/**
 * Soak (issue 34, goal 4): BENCH_SOAK_MINUTES (30) of mixed traffic at a fixed arrival rate
 * (BENCH_SOAK_RATE flows per second, 10 by default), with syslog forwarding on, sampled every
 * BENCH_SOAK_SAMPLE_SECONDS (30). The flows, in a fixed shuffled deck of 100:
 * - 10 password sign-ins through the HTTP flow of an application (authorization request, sign-in
 *   form, redirects, the code redeemed at /oidc/token by the application);
 * - 20 refresh grants (console tokens, 16 chains, each refresh using the token the previous gave);
 * - 20 client-credentials grants of a programmatic access account;
 * - 25 decision API checks (`/api/v1/app/permission/check`, the application's client id and
 *   secret, a person by the `sub` the application received);
 * - 8 `user/list` and 7 sign-in log pages (the console, as the company's administrator);
 * - 10 RADIUS Access-Requests (PAP, Message-Authenticator, checked answers).
 * Every answer is checked; anything else is an error. Syslog goes over TCP to Debian's rsyslog
 * when `scripts/with-rsyslog.sh` provides it, else to a TCP sink in this process.
 *
 * Each sample: the server's RSS, errors so far, and backlogs (bench/lib/soak-sampler.ts): jobs
 * overdue and failed, provider rows (expired ones left), budgets (rate_hit's rate_windows),
 * console sessions, the syslog outbox and the forwarder's backlog, and the write-ahead log
 * (PGlite: the size of pg_wal, checkpointed every 5 minutes by the job `database.checkpoint`).
 * Verdict: RSS flat within 10 % after the warm-up (5 minutes, or a sixth of a shorter run), no
 * error answers, no backlog that keeps growing over the last 25 minutes (judgeTrend), WAL bounded.
 *
 *   node --conditions=source --import tsx bench/soak.bench.ts                       # PGlite
 *   bash scripts/with-postgres.sh bash scripts/with-rsyslog.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/soak.bench.ts'
 */
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppClient,
  basicAuthorization,
  codeGrant,
  idTokenClaims,
  tokenGrant,
} from './lib/app-client.ts';
import { type RelyingParty, redeemCode, refreshToken, signIn } from './lib/browser.ts';
import { openArrivals } from './lib/load.ts';
import {
  adminWithCompany,
  createApiAccount,
  createPeople,
  createRadiusClient,
  licenseUsers,
  openApp,
  percentile,
  runOn,
  startLicensableServer,
  type Tenant,
  tenantCall,
  turnMfaOff,
} from './lib/org.ts';
import { type Person, RadiusDevice, stationOf } from './lib/radius-nas.ts';
import { cpuMeter, describeCpu, postgresDatabaseOf, saveResult } from './lib/report.ts';
import { type BenchServer, envInt, fmt, freeUdpPort, sleep } from './lib/server.ts';
import { backlogReader, describeSample, judgeSoak, rssMiB, type Sample } from './lib/soak-sampler.ts';
import { syslogReceiver } from './lib/syslog-receiver.ts';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 10);
const SAMPLE_SECONDS = envInt('BENCH_SOAK_SAMPLE_SECONDS', 30);
const PEOPLE = envInt('BENCH_SOAK_PEOPLE', 100);
const CHAINS = 16;
const MAX_IN_FLIGHT = 64;
const PASSWORD = 'Soak-Bench-Password-9';
/** Never contacted: codes are read from the provider's redirect. */
const REDIRECT_URI = 'http://127.0.0.1:7001/callback';
if (!(MINUTES > 0) || !(RATE > 0)) throw new Error('BENCH_SOAK_MINUTES and BENCH_SOAK_RATE must be positive');

const MIX = {
  signin: 10,
  refresh: 20,
  clientCredentials: 20,
  decision: 25,
  userList: 8,
  signInLog: 7,
  radius: 10,
} as const;
type Flow = keyof typeof MIX;

/** The deck of flows: each flow as often as its weight, shuffled by a fixed seed (same order every run). */
function deck(): Flow[] {
  const cards = (Object.entries(MIX) as [Flow, number][]).flatMap(([flow, n]) => Array<Flow>(n).fill(flow));
  let seed = 34;
  for (let i = cards.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = seed % (i + 1);
    [cards[i], cards[j]] = [cards[j] as Flow, cards[i] as Flow];
  }
  return cards;
}

type Syslog = Awaited<ReturnType<typeof syslogReceiver>>;

/** The company, its people, application, access account, resource, RADIUS client and syslog. */
async function setUp(server: BenchServer, radiusPort: number, syslog: Syslog) {
  const tenant = await adminWithCompany(server, 'Soak Co');
  await licenseUsers(server, tenant, PEOPLE + 10);
  await turnMfaOff(server, tenant);
  const created = await createPeople(server, tenant, PEOPLE, (i) => `soak-${i}`, PASSWORD);
  const people: Person[] = created.map((p, i) => ({ ...p, callingStationId: stationOf(i) }));
  const { appId, clientId, clientSecret } = await openApp(server, tenant, 'Soak Wiki', REDIRECT_URI);
  const robot = await createApiAccount(server, tenant, appId, 'Soak robot');
  await tenantCall(server, tenant, '/api/v1/manage/permission/resource/create', {
    appId,
    name: 'reports',
    type: 'api',
    actions: ['read', 'write'],
  });
  const radius = await createRadiusClient(server, tenant, 'Soak NAS');
  await tenantCall(server, tenant, '/api/v1/manage/company/syslog/update', {
    enabled: true,
    protocol: 'tcp',
    host: syslog.host,
    port: syslog.port,
    tag: 'tessera-soak',
  });
  const device = new RadiusDevice(radiusPort, radius.secret);
  await device.open(2);
  await device.awaitKnown('tessera-soak');
  return {
    tenant,
    people,
    device,
    app: { clientId, secret: clientSecret } satisfies AppClient,
    party: { clientId, redirectUri: REDIRECT_URI } satisfies RelyingParty,
    robot,
  };
}

type World = Awaited<ReturnType<typeof setUp>>;

/** A flow the benchmark could not start (every refresh chain waiting): counted with the skipped. */
class NotStarted extends Error {}

/** A password sign-in of the person through the application's flow, its code redeemed by the application. */
async function appSignIn(server: BenchServer, world: World, person: Person) {
  const signedIn = await signIn(server, person, world.party);
  return codeGrant(server, world.app, REDIRECT_URI, signedIn.code, signedIn.verifier);
}

/** The flows, each throwing on any answer but the expected success. */
function flows(
  server: BenchServer,
  world: World,
  subs: string[],
  chains: { token: string; busy: boolean }[],
) {
  let turn = 0;
  const next = <T>(list: readonly T[]) => list[turn++ % list.length] as T;
  const tenantHeaders = (tenant: Tenant) => ({
    'content-type': 'application/json',
    access_token: tenant.token,
    company_id: tenant.companyId,
  });
  const console = async (path: string, body: unknown) => {
    const response = await fetch(`${server.base}${path}`, {
      method: 'POST',
      headers: tenantHeaders(world.tenant),
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200 || !text.startsWith('{"code":200'))
      throw new Error(`${path}: ${response.status} ${text.slice(0, 200)}`);
  };
  return {
    async signin() {
      const tokens = await appSignIn(server, world, next(world.people));
      if (!tokens.id_token) throw new Error('no ID token');
    },
    async refresh() {
      const chain = chains.find((c) => !c.busy);
      if (!chain) throw new NotStarted();
      chain.busy = true;
      try {
        chain.token = await refreshToken(server, chain.token);
      } finally {
        chain.busy = false;
      }
    },
    async clientCredentials() {
      await tokenGrant(server, world.robot, { grant_type: 'client_credentials' });
    },
    async decision() {
      const response = await fetch(`${server.base}/api/v1/app/permission/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: basicAuthorization(world.app) },
        body: JSON.stringify({ userId: next(subs), resource: 'reports', action: 'read' }),
      });
      const text = await response.text();
      if (response.status !== 200 || !text.includes('"allowed"'))
        throw new Error(`check: ${response.status} ${text.slice(0, 200)}`);
    },
    userList: () => console('/api/v1/manage/user/list', { page: 1, pageSize: 20 }),
    signInLog: () =>
      console('/api/v1/manage/log/sign-in/list', { range: 'month', page: 1, pageSize: 20, order: 'desc' }),
    async radius() {
      const outcome = await world.device.papRequest(next(world.people));
      if (!outcome.ok) throw new Error(`RADIUS: ${outcome.reason}`);
    },
  } satisfies Record<Flow, () => Promise<void>>;
}

/** What the flows need before the run: the application's `sub` of the first people, console refresh chains. */
async function prepareFlows(server: BenchServer, world: World) {
  // The application's `sub` of each of the first people, for the decision API.
  const subs: string[] = [];
  for (const person of world.people.slice(0, 10)) {
    const tokens = await appSignIn(server, world, person);
    subs.push(idTokenClaims(tokens.id_token ?? '').sub);
  }
  const chains: { token: string; busy: boolean }[] = [];
  for (let i = 0; i < CHAINS; i++) {
    const signedIn = await signIn(server);
    chains.push({ token: await redeemCode(server, signedIn.code, signedIn.verifier), busy: false });
  }
  return flows(server, world, subs, chains);
}

/**
 * The run: flows arrive at RATE per second for MINUTES (an open model), sampled every
 * SAMPLE_SECONDS and once more at the end; answers the counts, latencies, errors and samples.
 */
async function soak(server: BenchServer, world: World, syslog: Syslog, probeFile: string) {
  const reader = backlogReader(server, probeFile);
  const run = await prepareFlows(server, world);
  const cards = deck();
  const samples: Sample[] = [];
  const errors: Record<string, number> = {};
  const firstErrors: Record<string, string[]> = {};
  const latencies: Record<string, number[]> = {};
  let done = 0;
  let skipped = 0;
  const started = Date.now();
  const startedAt = performance.now();
  const endAt = started + MINUTES * 60_000;
  const errorCount = () => Object.values(errors).reduce((a, b) => a + b, 0);
  const meter = cpuMeter(server.pid, { postgresDatabase: postgresDatabaseOf(server.stored.database) });
  const syslogBacklog = async () =>
    (await tenantCall<{ backlog: number }>(server, world.tenant, '/api/v1/manage/company/syslog/status', {}))
      .backlog;
  const takeSample = async () => {
    const { backlog, walBytes, walWrittenBytes } = await reader.read();
    const sample: Sample = {
      minute: (Date.now() - started) / 60_000,
      rssMiB: rssMiB(server.pid),
      errors: errorCount(),
      skipped,
      flows: done,
      load1: loadavg()[0] as number,
      walBytes,
      ...(walWrittenBytes === undefined ? {} : { walWrittenBytes }),
      syslogReceived: syslog.received(),
      syslogBacklog: await syslogBacklog(),
      backlog,
    };
    samples.push(sample);
    console.log(describeSample(sample, done, skipped));
  };
  await takeSample();
  let nextSample = started + SAMPLE_SECONDS * 1000;
  const sampler = (async () => {
    while (Date.now() < endAt) {
      await sleep(Math.max(0, Math.min(nextSample, endAt) - Date.now()));
      if (Date.now() >= endAt) break;
      nextSample += SAMPLE_SECONDS * 1000;
      await takeSample().catch((error) => console.log(`  sample failed: ${error}`));
    }
  })();

  // Arrivals at a fixed rate, whatever the answers' times (an open model).
  const arrivals = {
    rate: RATE,
    started: startedAt,
    durationMs: MINUTES * 60_000,
    maxInFlight: MAX_IN_FLIGHT,
  };
  await openArrivals({ ...arrivals, onSkip: () => skipped++ }, async (i) => {
    const flow = cards[i % cards.length] as Flow;
    const began = performance.now();
    try {
      await run[flow]();
      latencies[flow] ??= [];
      latencies[flow].push(performance.now() - began);
    } catch (error) {
      if (error instanceof NotStarted) {
        skipped++;
        return;
      }
      errors[flow] = (errors[flow] ?? 0) + 1;
      firstErrors[flow] ??= [];
      const list = firstErrors[flow];
      if (list.length < 5)
        list.push(`${fmt((Date.now() - started) / 60_000, 1)} min: ${String(error).slice(0, 300)}`);
    } finally {
      done++;
    }
  });
  await sampler;
  const cpu = meter.stop();
  await takeSample();
  await reader.close();
  return { samples, errors, firstErrors, latencies, done, skipped, cpu, errorTotal: errorCount() };
}

/** Prints the run's flows, CPU, load and syslog, then the verdict; answers what is saved. */
function report(storage: string, syslog: Syslog, run: Awaited<ReturnType<typeof soak>>) {
  const { samples, errors, firstErrors, latencies, done, skipped, cpu } = run;
  const loads = samples.map((s) => s.load1);
  console.log(
    `\n${done} flows in ${MINUTES} min at ${RATE}/s (${skipped} not started: ${MAX_IN_FLIGHT} in flight, or every refresh chain waiting)`,
  );
  for (const flow of Object.keys(MIX) as Flow[]) {
    const list = latencies[flow] ?? [];
    console.log(
      `  ${flow.padEnd(18)} ${String(list.length).padStart(6)} ok, ${String(errors[flow] ?? 0).padStart(4)} errors;` +
        ` p50 ${fmt(percentile(list, 50))} ms, p99 ${fmt(percentile(list, 99))} ms`,
    );
    for (const line of firstErrors[flow] ?? []) console.log(`    ${line}`);
  }
  console.log(`  ${describeCpu(cpu)}`);
  console.log(
    `  load average (1 min) at the samples: ${fmt(Math.min(...loads), 2)}-${fmt(Math.max(...loads), 2)}`,
  );
  console.log(`  syslog: ${syslog.received()} messages received by ${syslog.name}`);
  const verdict = judgeSoak(samples, { minutes: MINUTES, errorTotal: run.errorTotal, skipped, storage });
  return {
    storage,
    minutes: MINUTES,
    rate: RATE,
    mix: MIX,
    syslog: syslog.name,
    flows: done,
    skipped,
    errors,
    firstErrors,
    latencyMs: Object.fromEntries(
      Object.entries(latencies).map(([flow, list]) => [
        flow,
        { n: list.length, p50: percentile(list, 50), p99: percentile(list, 99) },
      ]),
    ),
    cpu,
    verdict,
    samples,
  };
}

async function main() {
  const radiusPort = await freeUdpPort();
  const syslog = await syslogReceiver();
  const probeFile = join(tmpdir(), `tessera-soak-probe-${process.pid}.json`);
  const server = await startLicensableServer({
    probe: true,
    env: {
      TESSERA_RADIUS_PORT: String(radiusPort),
      TESSERA_RADIUS_HOST: '127.0.0.1',
      TESSERA_SYSLOG_ALLOW_LOCAL_TARGETS: 'true',
      BENCH_DB_PROBE_FILE: probeFile,
    },
  });
  console.log(
    `soak on ${server.storage}, server pid ${server.pid}, ${server.base}: ${MINUTES} min at ${RATE} flows/s, ` +
      `samples every ${SAMPLE_SECONDS} s, syslog to ${syslog.name}`,
  );
  let result: Record<string, unknown> = {};
  await runOn(server, async () => {
    const world = await setUp(server, radiusPort, syslog);
    const run = await soak(server, world, syslog, probeFile);
    await world.device.close();
    result = report(server.storage, syslog, run);
  });
  await syslog.close();
  const file = await saveResult('soak', server.storage, result);
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
