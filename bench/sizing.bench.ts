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
import { type AppClient, codeGrant, tokenGrant } from './lib/app-client.ts';
import {
  afterLogin,
  authorizeSilently,
  beginInteraction,
  type CookieJar,
  follow,
  type PendingInteraction,
  type RelyingParty,
  redeemCode,
  refreshToken,
  signIn,
  submitLogin,
  submitTotp,
  type TotpFactor,
} from './lib/browser.ts';
import {
  adminWithCompany,
  bindTotpFactors,
  createApiAccount,
  createPeople,
  createRadiusClient,
  licenseUsers,
  openAppWithOptionalOtp,
  runOn,
  startLicensableServer,
} from './lib/org.ts';
import { RadiusDevice, type Person as RadiusPerson, stationOf } from './lib/radius-nas.ts';
import { argonOptions } from './lib/raw-hash.ts';
import { measurePerRequest, type PerRequestRow, perVcpuTable, saveResult } from './lib/report.ts';
import { type BenchServer, envInt, fmt, freeUdpPort, memoryOf, pool, sleep } from './lib/server.ts';

const SIGNINS = envInt('BENCH_SIZING_SIGNINS', 400);
const GRANTS = envInt('BENCH_SIZING_GRANTS', 2000);
const CONCURRENCY = envInt('BENCH_SIZING_CONCURRENCY', 4);
/** Which kinds run (all by default): signin,totp,code,refresh,cc,radius. */
const KINDS = new Set((process.env.BENCH_SIZING_KINDS ?? 'signin,totp,code,refresh,cc,radius').split(','));
const PHASE_LIMIT_MS = 300_000;
const PASSWORD = 'Sizing-Bench-Password-2024';
const REDIRECT_URI = 'http://127.0.0.1:7003/callback';

interface Person {
  username: string;
  password: string;
  totp?: TotpFactor;
}

/** Times `count` tasks, BENCH_SIZING_CONCURRENCY at once unless told: CPU and PostgreSQL's work per request. */
const measure = (
  server: BenchServer,
  kind: string,
  count: number,
  task: (i: number) => Promise<unknown>,
  options: { concurrency?: number; quietMs?: number } = {},
) =>
  measurePerRequest(server, kind, count, task, {
    concurrency: options.concurrency ?? CONCURRENCY,
    limitMs: PHASE_LIMIT_MS,
    quietMs: options.quietMs,
  });

async function setUp(server: BenchServer, masterKey: Buffer, radiusReady: boolean) {
  const tenant = await adminWithCompany(server, 'Sizing Co');
  await licenseUsers(server, tenant, 2 * SIGNINS + 100);
  const created = await openAppWithOptionalOtp(server, tenant, 'Sizing Wiki', REDIRECT_URI);
  const { appId, clientId } = created;
  const robot = await createApiAccount(server, tenant, appId, 'Sizing robot');
  // SIGNINS people with a password only, SIGNINS with a bound TOTP factor (a TOTP code is good once).
  const people: Person[] = await createPeople(
    server,
    tenant,
    2 * SIGNINS,
    (i) => `sizing-${String(i).padStart(5, '0')}`,
    PASSWORD,
    PHASE_LIMIT_MS,
  );
  const url = server.stored.database?.url;
  if (KINDS.has('totp')) {
    if (!url)
      throw new Error(
        'the TOTP people are seeded in PostgreSQL: set BENCH_DATABASE_URL (or leave totp out of BENCH_SIZING_KINDS)',
      );
    await bindTotpFactors(url, masterKey, people, 'sizing-factor', (i) => i >= SIGNINS);
  }
  const radius = radiusReady ? await createRadiusClient(server, tenant, 'Sizing NAS') : undefined;
  return {
    tenant,
    people,
    app: { clientId, secret: created.clientSecret } satisfies AppClient,
    party: { clientId, redirectUri: REDIRECT_URI } satisfies RelyingParty,
    robot,
    radius,
  };
}

type World = Awaited<ReturnType<typeof setUp>>;

/**
 * The sign-in kinds: a password sign-in (the form's POST), then a sign-in with TOTP (the form,
 * the second-factor page, the code). The password sign-ins are completed after their phase: their
 * browsers keep the session, for the code exchange's codes.
 */
async function signInKinds(server: BenchServer, world: World, rows: PerRequestRow[]) {
  const { party, people } = world;
  let sessions = 0;
  const jars: CookieJar[] = [];
  if (KINDS.has('signin')) {
    const prepared = await pool(SIGNINS, 4, PHASE_LIMIT_MS, () => beginInteraction(server, party));
    const answers: { interaction: PendingInteraction; answer: Response }[] = [];
    rows.push(
      await measure(server, 'password sign-in', prepared.length, async (i) => {
        const interaction = prepared[i] as PendingInteraction;
        const answer = await submitLogin(server, interaction, people[i] as Person);
        await answer.arrayBuffer();
        if (answer.status !== 303) throw new Error(`sign-in refused (${answer.status})`);
        answers.push({ interaction, answer });
      }),
    );
    sessions += answers.length;
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
        const person = people[SIGNINS + i] as Person;
        const answer = await submitLogin(server, interaction, person);
        await answer.arrayBuffer();
        const landed = await afterLogin(server, interaction, answer);
        await submitTotp(server, interaction.jar, landed, person.totp as TotpFactor);
      }),
    );
    sessions += prepared.length;
  }
  return { sessions, jars };
}

/** The grant kinds: code exchange (codes from the signed-in browsers), refresh, client credentials. */
async function grantKinds(server: BenchServer, world: World, jars: CookieJar[], rows: PerRequestRow[]) {
  const { app, party, robot } = world;
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
          const body = await codeGrant(server, app, REDIRECT_URI, code, verifier);
          if (body.refresh_token) refreshTokens.push(body.refresh_token);
        },
        { quietMs: 5000 },
      ),
    );
  }
  if (KINDS.has('refresh')) rows.push(await refreshKind(server, app, refreshTokens));
  if (KINDS.has('cc')) {
    rows.push(
      await measure(
        server,
        'client credentials',
        GRANTS,
        () => tokenGrant(server, robot, { grant_type: 'client_credentials' }),
        { concurrency: 8 },
      ),
    );
  }
}

/**
 * Chains of rotated refresh tokens: the application's own (offline_access when it gets one), else
 * the console's session refresh (dev/oidc/refresh) as bench/grants.ts measures it.
 */
async function refreshKind(server: BenchServer, app: AppClient, refreshTokens: string[]) {
  if (refreshTokens.length >= CONCURRENCY) {
    const chains = refreshTokens.slice(0, CONCURRENCY);
    return measure(server, 'refresh grant', GRANTS, async (i) => {
      const chain = i % CONCURRENCY;
      const body = await tokenGrant(server, app, {
        grant_type: 'refresh_token',
        refresh_token: chains[chain] as string,
      });
      if (body.refresh_token) chains[chain] = body.refresh_token;
    });
  }
  const tokens: string[] = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    const signed = await signIn(server);
    tokens.push(await redeemCode(server, signed.code, signed.verifier));
  }
  // One chain per worker: request i belongs to chain i % CONCURRENCY, in turn.
  const queues = tokens.map((token) => ({ token, busy: Promise.resolve() }));
  return measure(server, 'refresh grant (console session)', GRANTS, async (i) => {
    const queue = queues[i % CONCURRENCY] as (typeof queues)[number];
    const next = queue.busy.then(async () => {
      queue.token = await refreshToken(server, queue.token);
    });
    queue.busy = next;
    await next;
  });
}

/** RADIUS accepts: PAP Access-Requests of (at most) 40 of the people, each from a calling station of its own. */
async function radiusKind(server: BenchServer, radiusPort: number, secret: string, people: Person[]) {
  const device = new RadiusDevice(radiusPort, secret);
  await device.open(4);
  try {
    const nasPeople: RadiusPerson[] = people.slice(0, 40).map((p, i) => ({
      username: p.username,
      password: p.password,
      callingStationId: stationOf(i),
    }));
    await device.awaitKnown('tessera-sizing');
    await pool(8, 4, 60_000, (i) => device.papRequest(nasPeople[i % nasPeople.length] as RadiusPerson));
    return await measure(server, 'RADIUS accept', SIGNINS, async (i) => {
      const outcome = await device.papRequest(nasPeople[i % nasPeople.length] as RadiusPerson);
      if (!outcome.ok) throw new Error(`RADIUS: ${outcome.reason}`);
    });
  } finally {
    await device.close();
  }
}

/** What the server's memory was at each point, and what 1 000 sessions add; printed and answered. */
function describeMemory(points: {
  idleBefore: number;
  rssReady: number;
  rssSessions: number;
  rssEnd: number;
  heapReady: number;
  heapSessions: number;
  sessions: number;
}) {
  const { idleBefore, rssReady, rssSessions, rssEnd, heapReady, heapSessions, sessions } = points;
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
  console.log(
    `RSS (MiB): after start ${fmt(idleBefore)}, warmed up ${fmt(rssReady)}, after ${sessions} sign-ins ${fmt(rssSessions)} ` +
      `(${memory.perThousandSessionsMiB === null ? '-' : fmt(memory.perThousandSessionsMiB)} MiB per 1 000 sessions), at the end ${fmt(rssEnd)}; ` +
      `JS heap after a full collection ${fmt(heapReady)} warmed up, ${fmt(heapSessions)} after the sign-ins ` +
      `(${memory.heapPerThousandSessionsMiB === null ? '-' : fmt(memory.heapPerThousandSessionsMiB, 2)} MiB per 1 000 sessions; sessions live in the database)`,
  );
  return memory;
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
  const rows: PerRequestRow[] = [];
  const result: Record<string, unknown> = { storage: server.storage, concurrency: CONCURRENCY };
  await runOn(server, async () => {
    const idleBefore = memoryOf(server.pid).rssMiB;
    const world = await setUp(server, masterKey, KINDS.has('radius'));
    const passwordPeople = world.people.slice(0, SIGNINS);
    // Warm-up: a few complete flows and grants (JIT, pools, caches).
    for (let i = 0; i < 6; i++) await signIn(server, passwordPeople[i] as Person, world.party);
    await pool(100, 4, 60_000, () => tokenGrant(server, world.robot, { grant_type: 'client_credentials' }));
    const { hash } = await import('@node-rs/argon2');
    await pool(8, 2, 60_000, (i) => hash(`warm-${i}`, argonOptions));
    await sleep(2000);
    const rssReady = memoryOf(server.pid).rssMiB;
    const heapReady = (await server.memoryUsage()).heapUsedAfterGc ?? Number.NaN;

    const { sessions, jars } = await signInKinds(server, world, rows);
    const rssSessions = memoryOf(server.pid).rssMiB;
    const heapSessions = (await server.memoryUsage()).heapUsedAfterGc ?? Number.NaN;
    await grantKinds(server, world, jars, rows);
    if (world.radius) rows.push(await radiusKind(server, radiusPort, world.radius.secret, passwordPeople));
    const rssEnd = memoryOf(server.pid).rssMiB;
    result.memory = describeMemory({
      idleBefore,
      rssReady,
      rssSessions,
      rssEnd,
      heapReady,
      heapSessions,
      sessions,
    });
    const backends = rows.map((r) => r.postgres?.backends ?? 0);
    result.backendsMax = Math.max(0, ...backends);
    if (server.storage === 'postgres')
      console.log(
        `connections: at most ${Math.max(...backends) - 1} of the instance on the database after a phase ` +
          `(its pool holds at most 10, packages/server/src/db/database.ts)`,
      );
    console.log(`\n${perVcpuTable(rows, server.storage)}`);
  });
  result.rows = rows;
  const file = await saveResult('sizing', server.storage, result);
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
