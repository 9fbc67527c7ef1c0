/**
 * Per-vCPU figures for the sizing guide (issue 34), in the shape of Keycloak's ("for each N logins
 * per second, allocate 1 vCPU"): for each kind of request, the CPU it costs the server (all its
 * threads) and its PostgreSQL backends, hence requests per second per vCPU; PostgreSQL's
 * transactions, rows written and WAL bytes per request; the server's memory when idle and what
 * 1 000 active sessions add; the connections the instance holds.
 *
 * Kinds measured here, each on requests prepared first and timed alone, BENCH_SIZING_CONCURRENCY at once:
 *   password sign-in     POST of the sign-in form (a company person, no second factor)
 *   sign-in with TOTP    POST of the sign-in form, the second-factor page, POST of the code
 *   code exchange        POST /oidc/token of an application (authorization_code, PKCE)
 *   refresh grant        POST /oidc/token of the application (refresh_token, rotated)
 *   client credentials   POST /oidc/token of a programmatic access account
 *   RADIUS accept        PAP Access-Request, Message-Authenticator, one calling station each
 * Decision API checks and ActiveSync through the agent come from bench/permissions.bench.ts and
 * bench/exchange-agent.ts (see bench/README.md).
 *
 *   npm run build:server
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/sizing.bench.ts'
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createSealer } from '../packages/server/src/lib/crypto.ts';
import { generateTotp } from '../packages/server/src/lib/otp/totp.ts';
import {
  authorizeSilently,
  beginInteraction,
  type CookieJar,
  follow,
  type PendingInteraction,
  postForm,
  type RelyingParty,
  signIn,
  submitLogin,
} from './lib/browser.ts';
import {
  adminWithCompany,
  licenseUsers,
  openAppWithOptionalOtp,
  runOn,
  startLicensableServer,
  tenantCall,
} from './lib/org.ts';
import { type PgPerRequest, pgPhase } from './lib/pg-stats.ts';
import { type Outcome, RadiusDevice, type Person as RadiusPerson } from './lib/radius-nas.ts';
import { argonOptions } from './lib/raw-hash.ts';
import {
  type CpuSplit,
  cpuMeter,
  describeCpu,
  postgresDatabaseOf,
  saveResult,
  waitForQuiet,
} from './lib/report.ts';
import { type BenchServer, envInt, fmt, freeUdpPort, memoryOf, pool, sleep } from './lib/server.ts';

const SIGNINS = envInt('BENCH_SIZING_SIGNINS', 400);
const GRANTS = envInt('BENCH_SIZING_GRANTS', 2000);
const CONCURRENCY = envInt('BENCH_SIZING_CONCURRENCY', 4);
/** Which kinds run (all by default): signin,totp,code,refresh,cc,radius. */
const KINDS = new Set((process.env.BENCH_SIZING_KINDS ?? 'signin,totp,code,refresh,cc,radius').split(','));
const PHASE_LIMIT_MS = 300_000;
const PASSWORD = 'Sizing-Bench-Password-2024';
const REDIRECT_URI = 'http://127.0.0.1:7003/callback';

interface Client {
  clientId: string;
  secret: string;
}
interface Person {
  username: string;
  password: string;
  totp?: { factorId: string; seed: Buffer };
}

const basic = (client: Client) =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;

async function tokenPost(server: BenchServer, client: Client, form: Record<string, string>) {
  const answer = await postForm(`${server.base}/oidc/token`, new URLSearchParams(form).toString(), {
    authorization: basic(client),
  });
  const body = (await answer.json()) as { access_token?: string; refresh_token?: string };
  if (answer.status !== 200 || !body.access_token)
    throw new Error(`token ${answer.status} ${JSON.stringify(body)}`);
  return body;
}

interface Row {
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

/** Times `count` tasks, `CONCURRENCY` at once: CPU per request by party and PostgreSQL's counters. */
async function measure(
  server: BenchServer,
  kind: string,
  count: number,
  task: (i: number) => Promise<unknown>,
  options: { concurrency?: number; quietMs?: number } = {},
): Promise<Row> {
  const concurrency = options.concurrency ?? CONCURRENCY;
  const url = server.stored.database?.url;
  const counters = url ? await pgPhase(url) : undefined;
  await waitForQuiet(options.quietMs ?? 30_000);
  const meter = cpuMeter(server.pid, { postgresDatabase: postgresDatabaseOf(server.stored.database) });
  const started = performance.now();
  const done = await pool(count, concurrency, PHASE_LIMIT_MS, async (i) => {
    await task(i);
    return true;
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = meter.stop();
  const postgres = await counters?.stop(done.length);
  const per = (cores: number) => (cores * seconds * 1000) / Math.max(1, done.length);
  const serverMs = per(cpu.server);
  const postgresMs = per(cpu.postgres);
  const row: Row = {
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

async function setUp(server: BenchServer, masterKey: Buffer, radiusReady: boolean) {
  const tenant = await adminWithCompany(server, 'Sizing Co');
  await licenseUsers(server, tenant, 2 * SIGNINS + 100);
  const created = await openAppWithOptionalOtp(server, tenant, 'Sizing Wiki', REDIRECT_URI);
  const { appId, clientId } = created;
  const robot = await tenantCall<{ account: { clientId: string }; secret: string }>(
    server,
    tenant,
    '/api/v1/manage/app/api-account/create',
    { appId, name: 'Sizing robot', expiresAt: null },
  );
  // SIGNINS people with a password only, SIGNINS with a bound TOTP factor (a TOTP code is good once).
  const people = await pool(2 * SIGNINS, 4, PHASE_LIMIT_MS, async (i) => {
    const username = `sizing-${String(i).padStart(5, '0')}`;
    await tenantCall(server, tenant, '/api/v1/manage/company/user/create', {
      username,
      role: 'member',
      password: PASSWORD,
    });
    return { username, password: PASSWORD } as Person;
  });
  const url = server.stored.database?.url;
  if (KINDS.has('totp')) {
    if (!url)
      throw new Error(
        'the TOTP people are seeded in PostgreSQL: set BENCH_DATABASE_URL (or leave totp out of BENCH_SIZING_KINDS)',
      );
    const sealer = createSealer(masterKey);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (let i = SIGNINS; i < 2 * SIGNINS; i++) {
        const person = people[i] as Person;
        const factorId = `sizing-factor-${i}`;
        const seed = randomBytes(20);
        await client.query(
          `insert into mfa_factors (id, account_id, type, name, status, secret_sealed, bound_at)
           select $1, id, 'otp', 'OTP', 'bound', $3, now() from accounts where username = $2`,
          [factorId, person.username, sealer.seal(seed.toString('base64'), `mfa-otp-seed:${factorId}`)],
        );
        person.totp = { factorId, seed };
      }
    } finally {
      await client.end();
    }
  }
  let radius: { secret: string } | undefined;
  if (radiusReady) {
    const nas = await tenantCall<{ secret: string }>(server, tenant, '/api/v1/manage/radius/client/create', {
      name: 'Sizing NAS',
      source: '127.0.0.1',
      enabled: true,
      access: 'all',
      otpMode: 'challenge',
    });
    radius = { secret: nas.secret };
  }
  return {
    tenant,
    people,
    app: { clientId, secret: created.clientSecret } satisfies Client,
    party: { clientId, redirectUri: REDIRECT_URI } satisfies RelyingParty,
    robot: { clientId: robot.account.clientId, secret: robot.secret } satisfies Client,
    radius,
  };
}

/** The second-factor page after a password, and the POST of its code; answers the code of the flow. */
async function secondFactor(
  server: BenchServer,
  interaction: PendingInteraction,
  person: Person,
  answer: Response,
) {
  const location = answer.headers.get('location');
  if (answer.status !== 303 || !location) throw new Error(`password refused (${answer.status})`);
  const page = await follow(server, interaction.jar, location, interaction.party.redirectUri);
  if ('code' in page) throw new Error('no second factor was asked');
  const html = await page.page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!csrf || !person.totp) throw new Error('no second-factor form');
  const path = `${new URL(page.url, server.base).pathname}/step/second_factor`;
  const posted = await postForm(
    `${server.base}${path}`,
    new URLSearchParams({
      csrf,
      factorId: person.totp.factorId,
      code: generateTotp(person.totp.seed, Date.now()),
    }).toString(),
    { cookie: interaction.jar.header(path) },
  );
  interaction.jar.store(posted);
  await posted.arrayBuffer();
  if (posted.status !== 303) throw new Error(`the code was refused (${posted.status})`);
  return posted;
}

async function main() {
  const masterKey = randomBytes(32);
  const radiusPort = await freeUdpPort();
  const server = await startLicensableServer({
    // The probe answers the heap in use after a full collection (bench/lib/probe.js).
    probe: true,
    env: {
      TESSERA_MASTER_KEY: masterKey.toString('hex'),
      TESSERA_RADIUS_PORT: String(radiusPort),
      TESSERA_RADIUS_HOST: '127.0.0.1',
    },
  });
  console.log(`sizing benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}`);
  const rows: Row[] = [];
  const result: Record<string, unknown> = { storage: server.storage, concurrency: CONCURRENCY };
  await runOn(server, async () => {
    const idleBefore = memoryOf(server.pid).rssMiB;
    const { people, app, party, robot, radius } = await setUp(server, masterKey, KINDS.has('radius'));
    const passwordPeople = people.slice(0, SIGNINS);
    const totpPeople = people.slice(SIGNINS);
    // Warm-up: a few complete flows and grants (JIT, pools, caches).
    for (let i = 0; i < 6; i++) await signIn(server, passwordPeople[i] as Person, party);
    await pool(100, 4, 60_000, () => tokenPost(server, robot, { grant_type: 'client_credentials' }));
    const { hash } = await import('@node-rs/argon2');
    await pool(8, 2, 60_000, (i) => hash(`warm-${i}`, argonOptions));
    await sleep(2000);
    const rssReady = memoryOf(server.pid).rssMiB;
    const heapReady = (await server.memoryUsage()).heapUsedAfterGc ?? Number.NaN;
    let sessions = 0;
    const jars: CookieJar[] = [];

    if (KINDS.has('signin')) {
      const prepared = await pool(SIGNINS, 4, PHASE_LIMIT_MS, () => beginInteraction(server, party));
      const answers: { interaction: PendingInteraction; answer: Response }[] = [];
      rows.push(
        await measure(server, 'password sign-in', prepared.length, async (i) => {
          const interaction = prepared[i] as PendingInteraction;
          const answer = await submitLogin(server, interaction, passwordPeople[i] as Person);
          await answer.arrayBuffer();
          if (answer.status !== 303) throw new Error(`sign-in refused (${answer.status})`);
          answers.push({ interaction, answer });
        }),
      );
      sessions += answers.length;
      // The sign-ins completed (their browsers keep the session, for the code exchange's codes).
      await pool(answers.length, 4, PHASE_LIMIT_MS, async (i) => {
        const { interaction, answer } = answers[i] as (typeof answers)[number];
        const location = answer.headers.get('location') as string;
        const landed = await follow(server, interaction.jar, location, party.redirectUri);
        if (!('code' in landed)) throw new Error('no code after sign-in');
        jars.push(interaction.jar);
      });
    }
    if (KINDS.has('totp')) {
      const prepared = await pool(SIGNINS, 4, PHASE_LIMIT_MS, () => beginInteraction(server, party));
      rows.push(
        await measure(server, 'sign-in with TOTP', prepared.length, async (i) => {
          const interaction = prepared[i] as PendingInteraction;
          const person = totpPeople[i] as Person;
          const answer = await submitLogin(server, interaction, person);
          await answer.arrayBuffer();
          await secondFactor(server, interaction, person, answer);
        }),
      );
      sessions += prepared.length;
    }
    const rssSessions = memoryOf(server.pid).rssMiB;
    const heapSessions = (await server.memoryUsage()).heapUsedAfterGc ?? Number.NaN;
    const refreshTokens: string[] = [];
    if (KINDS.has('code') && jars.length) {
      // Codes live 60 s: made through single sign-on right before the phase, which waits less for quiet.
      const codes = await pool(Math.min(SIGNINS, 200), 4, PHASE_LIMIT_MS, (i) =>
        authorizeSilently(server, jars[i % jars.length] as CookieJar, party),
      );
      rows.push(
        await measure(
          server,
          'code exchange',
          codes.length,
          async (i) => {
            const { code, verifier } = codes[i] as (typeof codes)[number];
            const body = await tokenPost(server, app, {
              grant_type: 'authorization_code',
              code,
              redirect_uri: REDIRECT_URI,
              code_verifier: verifier,
            });
            if (body.refresh_token) refreshTokens.push(body.refresh_token);
          },
          { quietMs: 5000 },
        ),
      );
    }
    if (KINDS.has('refresh')) {
      // Chains of rotated refresh tokens: the application's own (offline_access when it gets one),
      // else the console's session refresh (dev/oidc/refresh) as bench/grants.ts measures it.
      if (refreshTokens.length >= CONCURRENCY) {
        const chains = refreshTokens.slice(0, CONCURRENCY);
        rows.push(
          await measure(server, 'refresh grant', GRANTS, async (i) => {
            const chain = i % CONCURRENCY;
            const body = await tokenPost(server, app, {
              grant_type: 'refresh_token',
              refresh_token: chains[chain] as string,
            });
            if (body.refresh_token) chains[chain] = body.refresh_token;
          }),
        );
      } else {
        const { redeemCode, refreshToken } = await import('./lib/browser.ts');
        const tokens: string[] = [];
        for (let i = 0; i < CONCURRENCY; i++) {
          const signed = await signIn(server);
          tokens.push(await redeemCode(server, signed.code, signed.verifier));
        }
        // One chain per worker: request i belongs to chain i % CONCURRENCY, in turn.
        const queues = tokens.map((token) => ({ token, busy: Promise.resolve() }));
        rows.push(
          await measure(server, 'refresh grant (console session)', GRANTS, async (i) => {
            const queue = queues[i % CONCURRENCY] as (typeof queues)[number];
            const next = queue.busy.then(async () => {
              queue.token = await refreshToken(server, queue.token);
            });
            queue.busy = next;
            await next;
          }),
        );
      }
    }
    if (KINDS.has('cc')) {
      rows.push(
        await measure(
          server,
          'client credentials',
          GRANTS,
          () => tokenPost(server, robot, { grant_type: 'client_credentials' }),
          { concurrency: 8 },
        ),
      );
    }
    if (radius) {
      const device = new RadiusDevice(radiusPort, radius.secret);
      await device.open(4);
      try {
        const nasPeople: RadiusPerson[] = passwordPeople.slice(0, 40).map((p, i) => ({
          username: p.username,
          password: p.password,
          callingStationId: (0x020000000000 + i)
            .toString(16)
            .padStart(12, '0')
            .replace(/(..)(?!$)/g, '$1-'),
        }));
        // The server learns of the new client by a notification: Status-Server until it answers.
        const known = Date.now() + 70_000;
        for (;;) {
          const status = await Promise.race([
            device.send('Status-Server', [['NAS-Identifier', 'tessera-sizing']]),
            sleep(1000).then((): Outcome => ({ ok: false, reason: 'waiting' })),
          ]);
          if (status.ok) break;
          if (Date.now() > known) throw new Error('the RADIUS client was not known in time');
        }
        await pool(8, 4, 60_000, (i) => device.papRequest(nasPeople[i % nasPeople.length] as RadiusPerson));
        rows.push(
          await measure(server, 'RADIUS accept', SIGNINS, async (i) => {
            const outcome = await device.papRequest(nasPeople[i % nasPeople.length] as RadiusPerson);
            if (!outcome.ok) throw new Error(`RADIUS: ${outcome.reason}`);
          }),
        );
      } finally {
        await device.close();
      }
    }
    const rssEnd = memoryOf(server.pid).rssMiB;
    const memory = {
      rssAfterStartMiB: idleBefore,
      rssReadyMiB: rssReady,
      rssAfterSignInsMiB: rssSessions,
      rssEndMiB: rssEnd,
      heapAfterGcReadyMiB: heapReady,
      heapAfterGcAfterSignInsMiB: heapSessions,
      sessions,
      perThousandSessionsMiB: sessions ? ((rssSessions - rssReady) * 1000) / sessions : null,
      heapPerThousandSessionsMiB: sessions ? ((heapSessions - heapReady) * 1000) / sessions : null,
    };
    result.memory = memory;
    console.log(
      `RSS (MiB): after start ${fmt(idleBefore)}, warmed up ${fmt(rssReady)}, after ${sessions} sign-ins ${fmt(rssSessions)} ` +
        `(${memory.perThousandSessionsMiB === null ? '-' : fmt(memory.perThousandSessionsMiB)} MiB per 1 000 sessions), at the end ${fmt(rssEnd)}; ` +
        `JS heap after a full collection ${fmt(heapReady)} warmed up, ${fmt(heapSessions)} after the sign-ins ` +
        `(${memory.heapPerThousandSessionsMiB === null ? '-' : fmt(memory.heapPerThousandSessionsMiB, 2)} MiB per 1 000 sessions; sessions live in the database)`,
    );
    const backends = rows.map((r) => r.postgres?.backends ?? 0);
    result.backendsMax = Math.max(0, ...backends);
    if (server.storage === 'postgres')
      console.log(
        `connections: at most ${Math.max(...backends) - 1} of the instance on the database after a phase ` +
          `(its pool holds at most 10, packages/server/src/db/database.ts)`,
      );
    console.log(`\n${table(rows, server.storage)}`);
  });
  result.rows = rows;
  const file = await saveResult('sizing', server.storage, result);
  console.log(`saved ${file}`);
}

function table(rows: Row[], storage: string) {
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

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
