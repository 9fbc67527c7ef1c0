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
import { readFileSync, statSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { type CookieJar, type RelyingParty, redeemCode, refreshToken, signIn } from './lib/browser.ts';
import {
  adminWithCompany,
  licenseUsers,
  percentile,
  runOn,
  startLicensableServer,
  type Tenant,
  tenantCall,
} from './lib/org.ts';
import { type Person, RadiusDevice } from './lib/radius-nas.ts';
import { cpuMeter, describeCpu, saveResult, verdict } from './lib/report.ts';
import { type BenchServer, envInt, fmt, freeUdpPort, pool, sleep } from './lib/server.ts';
import { backlogReader, judgeTrend, rssMiB, type Trend } from './lib/soak-sampler.ts';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 10);
const SAMPLE_SECONDS = envInt('BENCH_SOAK_SAMPLE_SECONDS', 30);
const PEOPLE = envInt('BENCH_SOAK_PEOPLE', 100);
const CHAINS = 16;
const MAX_IN_FLIGHT = 64;
const RSS_BAND = 0.1;
const JUDGED_MINUTES = 25;
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

interface Client {
  clientId: string;
  secret: string;
}
const basic = (client: Client) =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;

/** A syslog receiver: Debian's rsyslog (scripts/with-rsyslog.sh) or a TCP sink counting frames. */
async function syslogReceiver() {
  const rsyslog = process.env.TESSERA_TEST_RSYSLOG_TCP;
  const file = process.env.TESSERA_TEST_RSYSLOG_FILE;
  if (rsyslog && file) {
    const [host, port] = rsyslog.split(':');
    return {
      name: `rsyslog (TCP ${rsyslog})`,
      host: host as string,
      port: Number(port),
      received: () => readFileSync(file, 'utf8').split('\n').length - 1,
      bytes: () => statSync(file).size,
      close: async () => {},
    };
  }
  let frames = 0;
  let bytes = 0;
  const sink = createTcpServer((socket) => {
    // Octet counting (RFC 6587): "LEN SP MSG", counted as they come.
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const space = pending.indexOf(0x20);
        if (space < 0) break;
        const length = Number(pending.subarray(0, space).toString());
        if (!Number.isInteger(length) || pending.length < space + 1 + length) break;
        pending = pending.subarray(space + 1 + length);
        frames++;
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((done) => sink.listen(0, '127.0.0.1', done));
  const address = sink.address();
  if (!address || typeof address !== 'object') throw new Error('no syslog sink port');
  return {
    name: `a TCP sink in the benchmark (127.0.0.1:${address.port})`,
    host: '127.0.0.1',
    port: address.port,
    received: () => frames,
    bytes: () => bytes,
    close: () => new Promise<void>((done) => sink.close(() => done())),
  };
}

/** The company, its people, application, access account, resource, RADIUS client and syslog. */
async function setUp(server: BenchServer, radiusPort: number, syslog: { host: string; port: number }) {
  const tenant = await adminWithCompany(server, 'Soak Co');
  await licenseUsers(server, tenant, PEOPLE + 10);
  await tenantCall(server, tenant, '/api/v1/manage/safety/mfa/update', {
    mode: 'off',
    types: ['otp'],
    lockout: { maxFailures: 5, lockMinutes: 15 },
  });
  const people: Person[] = await pool(PEOPLE, 4, 600_000, async (i) => {
    const username = `soak-${i}`;
    await tenantCall(server, tenant, '/api/v1/manage/company/user/create', {
      username,
      role: 'member',
      password: PASSWORD,
    });
    const station = (0x020000000000 + i).toString(16).padStart(12, '0');
    return { username, password: PASSWORD, callingStationId: station.replace(/(..)(?!$)/g, '$1-') };
  });
  const created = await tenantCall<{ app: { appId: string; clientId: string }; clientSecret: string }>(
    server,
    tenant,
    '/api/v1/manage/app/create',
    { name: 'Soak Wiki' },
  );
  const { appId, clientId } = created.app;
  await tenantCall(server, tenant, '/api/v1/manage/app/update', { appId, redirectUris: [REDIRECT_URI] });
  await tenantCall(server, tenant, '/api/v1/manage/app/status', { appId, status: 'opened' });
  const robot = await tenantCall<{ account: { clientId: string }; secret: string }>(
    server,
    tenant,
    '/api/v1/manage/app/api-account/create',
    { appId, name: 'Soak robot', expiresAt: null },
  );
  await tenantCall(server, tenant, '/api/v1/manage/permission/resource/create', {
    appId,
    name: 'reports',
    type: 'api',
    actions: ['read', 'write'],
  });
  const radius = await tenantCall<{ secret: string }>(server, tenant, '/api/v1/manage/radius/client/create', {
    name: 'Soak NAS',
    source: '127.0.0.1',
    enabled: true,
    access: 'all',
    otpMode: 'challenge',
  });
  await tenantCall(server, tenant, '/api/v1/manage/company/syslog/update', {
    enabled: true,
    protocol: 'tcp',
    host: syslog.host,
    port: syslog.port,
    tag: 'tessera-soak',
  });
  const device = new RadiusDevice(radiusPort, radius.secret);
  await device.open(2);
  // The RADIUS server learns of the new client by a notification: Status-Server until it answers.
  const known = Date.now() + 70_000;
  for (;;) {
    const status = await Promise.race([
      device.send('Status-Server', [['NAS-Identifier', 'tessera-soak']]),
      sleep(1000).then(() => ({ ok: false as const, reason: 'waiting' })),
    ]);
    if (status.ok) break;
    if (Date.now() > known) throw new Error('the RADIUS server does not know the new client');
  }
  return {
    tenant,
    people,
    device,
    app: { clientId, secret: created.clientSecret } satisfies Client,
    party: { clientId, redirectUri: REDIRECT_URI } satisfies RelyingParty,
    robot: { clientId: robot.account.clientId, secret: robot.secret } satisfies Client,
  };
}

type World = Awaited<ReturnType<typeof setUp>>;

/** A flow the benchmark could not start (every refresh chain waiting): counted with the skipped. */
class NotStarted extends Error {}

async function tokenRequest(server: BenchServer, client: Client, form: Record<string, string>) {
  const response = await fetch(`${server.base}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client) },
    body: new URLSearchParams(form).toString(),
  });
  const body = await response.text();
  if (response.status !== 200)
    throw new Error(`token ${form.grant_type}: ${response.status} ${body.slice(0, 200)}`);
  return JSON.parse(body) as { access_token: string; id_token?: string };
}

/** The `sub` in an ID token (read, not verified: the provider just issued it to us). */
const subOf = (idToken: string) =>
  (JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString()) as { sub: string }).sub;

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
      const person = next(world.people);
      const signedIn = await signIn(server, person, world.party);
      const tokens = await tokenRequest(server, world.app, {
        grant_type: 'authorization_code',
        code: signedIn.code,
        redirect_uri: REDIRECT_URI,
        code_verifier: signedIn.verifier,
      });
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
      await tokenRequest(server, world.robot, { grant_type: 'client_credentials' });
    },
    async decision() {
      const response = await fetch(`${server.base}/api/v1/app/permission/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: basic(world.app) },
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

interface Sample {
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
  backlog: Record<string, number | Record<string, number>>;
}

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

async function main() {
  const radiusPort = await freeUdpPort();
  const syslog = await syslogReceiver();
  const probeFile = join((await import('node:os')).tmpdir(), `tessera-soak-probe-${process.pid}.json`);
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
  const samples: Sample[] = [];
  const errors: Record<string, number> = {};
  const firstErrors: Record<string, string[]> = {};
  const latencies: Record<string, number[]> = {};
  let result: Record<string, unknown> = {};
  await runOn(server, async () => {
    const world = await setUp(server, radiusPort, syslog);
    const reader = backlogReader(server, probeFile);
    // The application's `sub` of each of the first people, for the decision API.
    const subs: string[] = [];
    for (const person of world.people.slice(0, 10)) {
      const signedIn = await signIn(server, person, world.party);
      const tokens = await tokenRequest(server, world.app, {
        grant_type: 'authorization_code',
        code: signedIn.code,
        redirect_uri: REDIRECT_URI,
        code_verifier: signedIn.verifier,
      });
      subs.push(subOf(tokens.id_token ?? ''));
    }
    const chains: { token: string; busy: boolean; jar?: CookieJar }[] = [];
    for (let i = 0; i < CHAINS; i++) {
      const signedIn = await signIn(server);
      chains.push({ token: await redeemCode(server, signedIn.code, signedIn.verifier), busy: false });
    }
    const run = flows(server, world, subs, chains);
    const cards = deck();

    let inFlight = 0;
    let done = 0;
    let skipped = 0;
    const started = Date.now();
    const endAt = started + MINUTES * 60_000;
    const errorCount = () => Object.values(errors).reduce((a, b) => a + b, 0);
    const meter = cpuMeter(server.pid, {
      postgresDatabase: server.stored.database ? new URL(server.stored.database.url).pathname.slice(1) : null,
    });

    const syslogBacklog = async () =>
      (
        await tenantCall<{ backlog: number }>(
          server,
          world.tenant,
          '/api/v1/manage/company/syslog/status',
          {},
        )
      ).backlog;
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
      const b = backlog as Record<string, number>;
      console.log(
        `${fmt(sample.minute, 1).padStart(5)} min  RSS ${fmt(sample.rssMiB)} MiB  flows ${done}  errors ${sample.errors}` +
          `${skipped ? ` skipped ${skipped}` : ''}  jobs overdue/failed ${b.jobsOverdue}/${b.jobsFailed}` +
          `  provider rows ${b.oidcRows} (expired ${b.oidcExpired})  budgets ${b.rateWindows}` +
          `  console sessions ${b.consoleSessions} (dead ${b.consoleSessionsDead})  syslog outbox ${b.syslogOutbox}` +
          ` backlog ${sample.syslogBacklog} received ${sample.syslogReceived}  WAL ${fmt(walBytes / 2 ** 20)} MiB  load ${fmt(sample.load1, 2)}`,
      );
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
    const running = new Set<Promise<void>>();
    for (let i = 0; ; i++) {
      const due = started + (i * 1000) / RATE;
      if (due >= endAt) break;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      const flow = cards[i % cards.length] as Flow;
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped++;
        continue;
      }
      inFlight++;
      const began = performance.now();
      const work = run[flow]()
        .then(
          () => {
            latencies[flow] ??= [];
            latencies[flow].push(performance.now() - began);
          },
          (error: unknown) => {
            if (error instanceof NotStarted) {
              skipped++;
              return;
            }
            errors[flow] = (errors[flow] ?? 0) + 1;
            firstErrors[flow] ??= [];
            const list = firstErrors[flow];
            if (list.length < 5)
              list.push(`${fmt((Date.now() - started) / 60_000, 1)} min: ${String(error).slice(0, 300)}`);
          },
        )
        .finally(() => {
          inFlight--;
          done++;
          running.delete(work);
        });
      running.add(work);
    }
    await Promise.all(running);
    await sampler;
    const cpu = meter.stop();
    await takeSample();
    await reader.close();
    await world.device.close();

    // ---- verdict
    const warmUp = Math.min(5, MINUTES / 6);
    const judgedFrom = Math.max(warmUp, MINUTES - JUDGED_MINUTES);
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
    const errorTotal = errorCount();
    const wal = samples.map((s) => s.walBytes);
    const walTrend = trends.find((t) => t.name === 'write-ahead log bytes');
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
    console.log(
      `\nVerdict (warm-up ${fmt(warmUp, 1)} min; trends over minutes ${fmt(judgedFrom, 1)}-${MINUTES}):`,
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
    if (server.storage === 'pglite')
      console.log(
        `  PGlite WAL ${fmt(Math.min(...wal) / 2 ** 20)}-${fmt(Math.max(...wal) / 2 ** 20)} MiB: ${verdict(!walTrend?.growing)} (bounded)`,
      );
    if (MINUTES < 15)
      console.log(
        '  (a run under 15 minutes sees no purge, which runs every 10 minutes: its trends are for checking only)',
      );
    result = {
      storage: server.storage,
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
      verdict: { rssSpread, rssFlat, rssTrend, errorTotal, growing: growing.map((t) => t.name), trends },
      samples,
    };
  });
  await syslog.close();
  const file = await saveResult('soak', server.storage, result);
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
