/**
 * RADIUS Access-Accepts per second (PAP Access-Requests with the right password, over UDP on
 * 127.0.0.1) against the raw argon2id rate of this machine, measured in this process with the
 * server's parameters and the same number of requests at once. Goal (issue 17): accepts >= 90 % of
 * the raw hash rate. Issue 34's goal, printed beside it: the CPU an Access-Accept costs the server
 * (all its threads) and its PostgreSQL backends together <= 1.25 raw hashes' CPU on PostgreSQL, at
 * 4 and 16 in flight (the NAS, this process, is not in it).
 *
 * As bench/signin.ts: batches of Access-Requests and batches of raw hashes alternate
 * (BENCH_ROUNDS rounds), so that other load on the machine weighs on both sides alike.
 *
 * Set-up through the API as the bootstrap administrator: a company with MFA off,
 * BENCH_RADIUS_USERS members with passwords, and a RADIUS client for 127.0.0.1 (enabled, for
 * everyone). Requests are made with the `radius` package: User-Password hidden with the shared
 * secret, a Message-Authenticator on every request (the server drops requests without one), a
 * Calling-Station-Id of each person's own (sign-in budgets count calling stations), spread over
 * BENCH_RADIUS_SOCKETS sockets, each with its own identifiers (one byte: at most 256 in flight per
 * socket). Every answer must be an Access-Accept whose Response Authenticator and
 * Message-Authenticator check out with the secret; anything else is counted and printed.
 * With TESSERA_TEST_RADCLIENT (scripts/with-radclient.sh), Debian's radclient signs in once too.
 * On PostgreSQL the database's transaction count gives the statements per Access-Accept (less the
 * server's own background statements, measured idle first).
 *
 *   node --conditions=source --import tsx bench/radius.bench.ts
 *   bash scripts/with-postgres.sh bash scripts/with-radclient.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/radius.bench.ts'
 */
import { hash } from '@node-rs/argon2';
import pg from 'pg';
import {
  adminWithCompany,
  createPeople,
  createRadiusClient,
  runOn,
  type Tenant,
  tenantCall,
  turnMfaOff,
} from './lib/org.ts';
import { type Person, RadiusDevice, stationOf, tally } from './lib/radius-nas.ts';
import { argonOptions } from './lib/raw-hash.ts';
import {
  addCpu,
  type CpuSplit,
  cpuMeter,
  describeCpu,
  describeHashCost,
  hashCost,
  postgresDatabaseOf,
  saveResult,
  verdict,
  waitForQuiet,
} from './lib/report.ts';
import { type BenchServer, envInt, fmt, freeUdpPort, pool, sleep, startServer } from './lib/server.ts';

const COUNT = envInt('BENCH_RADIUS_REQUESTS', 240);
const ROUNDS = envInt('BENCH_ROUNDS', 6);
// Accepts before the timed rounds (as signin.ts's BENCH_WARMUP: the JIT-compiled steady state).
const WARM_UP = envInt('BENCH_WARMUP', 200);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '4,16').split(',').map(Number);
const USERS = envInt('BENCH_RADIUS_USERS', 20);
const SOCKETS = envInt('BENCH_RADIUS_SOCKETS', 4);
const PHASE_LIMIT_MS = 180_000;
const GOAL = 0.9;
/** Issue 34: server and PostgreSQL CPU per accept, in raw hashes (set for PostgreSQL only). */
const COST_GOAL = 1.25;
const PASSWORD = 'Radius-Bench-Password-7';

type ClientStats = {
  accepts: number;
  rejects: number;
  challenges: number;
  droppedNoAuthenticator: number;
  droppedBadAuthenticator: number;
};

async function clientStats(server: BenchServer, tenant: Tenant, clientId: string) {
  const listed = await tenantCall<{ list: { clientId: string; stats: ClientStats }[] }>(
    server,
    tenant,
    '/api/v1/manage/radius/client/list',
    {},
  );
  return listed.list.find((c) => c.clientId === clientId)?.stats;
}

/**
 * Transactions committed or rolled back in the server's database so far, and when (PostgreSQL
 * only; each statement outside a transaction is one). Backends report their counts when idle,
 * within 10 s (PostgreSQL 15): the reading waits 11 s first. The reading itself adds one
 * transaction, on a connection of its own.
 */
async function transactions(server: BenchServer): Promise<{ n: number; at: number } | undefined> {
  const url = server.stored.database?.url;
  if (!url) return undefined;
  await sleep(11_000);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()',
    );
    return { n: Number(rows[0]?.n), at: performance.now() };
  } finally {
    await client.end();
  }
}

/** The server's own statements per second when idle (jobs polled, counters written), on PostgreSQL. */
async function backgroundRate(server: BenchServer): Promise<number | undefined> {
  const first = await transactions(server);
  await sleep(20_000);
  const second = await transactions(server);
  if (!first || !second) return undefined;
  return (second.n - first.n - 1) / ((second.at - first.at) / 1000);
}

/** Debian's radclient (scripts/with-radclient.sh), one Access-Request that must be accepted. */
async function radclientCheck(port: number, secret: string, person: Person) {
  if (!process.env.TESSERA_TEST_RADCLIENT) {
    console.log(
      'radclient: skipped (TESSERA_TEST_RADCLIENT is not set; run through scripts/with-radclient.sh)',
    );
    return { ran: false as const };
  }
  const { radclient } = await import('../packages/server/src/test/radclient.ts');
  const reply = await radclient(port, secret, {
    'User-Name': person.username,
    'User-Password': person.password,
    'Message-Authenticator': '0x00',
    'NAS-IP-Address': '127.0.0.1',
    'Calling-Station-Id': person.callingStationId,
  });
  const accepted = reply.code === 'Access-Accept';
  console.log(
    `radclient (${process.env.TESSERA_TEST_RADCLIENT}): ${reply.code}` +
      `${reply.attributes['Message-Authenticator'] ? ', with a Message-Authenticator' : ''}` +
      ` (${verdict(accepted)})`,
  );
  if (!accepted) console.log(reply.output);
  return { ran: true as const, code: reply.code, accepted };
}

async function main() {
  const radiusPort = await freeUdpPort();
  const server = await startServer({
    env: { TESSERA_RADIUS_PORT: String(radiusPort), TESSERA_RADIUS_HOST: '127.0.0.1' },
  });
  console.log(
    `radius benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}, RADIUS udp 127.0.0.1:${radiusPort}`,
  );
  const rows: Record<string, unknown>[] = [];
  let extra: Record<string, unknown> = {};
  await runOn(server, async () => {
    // Set-up through the API, as an administrator would.
    const tenant = await adminWithCompany(server, 'Radius Bench Co');
    await turnMfaOff(server, tenant);
    const created = await createPeople(
      server,
      tenant,
      USERS,
      (i) => `radius-bench-${i}`,
      PASSWORD,
      PHASE_LIMIT_MS,
    );
    const people: Person[] = created.map((p, i) => ({ ...p, callingStationId: stationOf(i) }));
    if (people.length !== USERS) throw new Error(`only ${people.length} of ${USERS} people were created`);
    const { clientId, secret } = await createRadiusClient(server, tenant, 'Bench NAS');

    const device = new RadiusDevice(radiusPort, secret);
    await device.open(SOCKETS);
    try {
      await device.awaitKnown('tessera-bench');

      // Warm-up: accepts (JIT, connections, caches) and hashes.
      const warm = await pool(WARM_UP, 2, PHASE_LIMIT_MS, (i) =>
        device.papRequest(people[i % USERS] as Person),
      );
      const warmFailures = tally(warm);
      if (Object.keys(warmFailures).length)
        throw new Error(`warm-up requests failed: ${JSON.stringify(warmFailures)}`);
      await pool(8, 2, PHASE_LIMIT_MS, (i) => hash(`warm-${i}`, argonOptions));
      let sent = warm.length;
      // PostgreSQL's CPU: the backends of this run's database only (none on PGlite).
      const meterOptions = { postgresDatabase: postgresDatabaseOf(server.stored.database) };
      const background = await backgroundRate(server);

      for (const concurrency of CONCURRENCY) {
        const batch = Math.max(concurrency, Math.ceil(COUNT / ROUNDS));
        let radiusSeconds = 0;
        let hashSeconds = 0;
        let accepts = 0;
        let hashes = 0;
        const failures: Record<string, number> = {};
        let radiusCpu: CpuSplit | undefined;
        let hashCpu: CpuSplit | undefined;
        const transactionsBefore = await transactions(server);
        for (let round = 0; round < ROUNDS; round++) {
          await waitForQuiet(20_000);
          // Timed: Access-Requests, `concurrency` in flight, each person in turn.
          const meter = cpuMeter(server.pid, meterOptions);
          const started = performance.now();
          const outcomes = await pool(batch, concurrency, PHASE_LIMIT_MS, (i) =>
            device.papRequest(people[(round * batch + i) % USERS] as Person),
          );
          radiusSeconds += (performance.now() - started) / 1000;
          radiusCpu = addCpu(radiusCpu, meter.stop());
          sent += outcomes.length;
          accepts += outcomes.filter((o) => o.ok).length;
          for (const [reason, n] of Object.entries(tally(outcomes)))
            failures[reason] = (failures[reason] ?? 0) + n;

          // Timed: as many raw hashes, as many at once, in this process.
          const hashMeter = cpuMeter(server.pid, meterOptions);
          const hashStarted = performance.now();
          const done = await pool(batch, concurrency, PHASE_LIMIT_MS, (i) =>
            hash(`Bench-Password-${round}-${i}`, argonOptions),
          );
          hashSeconds += (performance.now() - hashStarted) / 1000;
          hashCpu = addCpu(hashCpu, hashMeter.stop());
          hashes += done.length;
        }
        const transactionsAfter = await transactions(server);
        // Over the level: the Access-Requests' statements, less the server's background work at
        // its idle rate and this benchmark's first reading.
        const counted =
          transactionsBefore && transactionsAfter
            ? transactionsAfter.n - transactionsBefore.n - 1
            : undefined;
        const backgroundShare =
          transactionsBefore && transactionsAfter && background !== undefined
            ? (background * (transactionsAfter.at - transactionsBefore.at)) / 1000
            : 0;
        const statementsPerAccept =
          counted === undefined ? undefined : (counted - backgroundShare) / Math.max(1, accepts);
        const failed = Object.values(failures).reduce((a, b) => a + b, 0);
        const acceptsPerSecond = accepts / radiusSeconds;
        const hashesPerSecond = hashes / hashSeconds;
        const ratio = acceptsPerSecond / hashesPerSecond;
        const cpu = radiusCpu as CpuSplit;
        const row = {
          concurrency,
          accepts,
          failed,
          failures,
          seconds: Number(fmt(radiusSeconds, 2)),
          acceptsPerSecond: Number(fmt(acceptsPerSecond)),
          meanLatencyMs: Number(fmt((radiusSeconds * 1000 * concurrency) / Math.max(1, accepts + failed))),
          msCpuServerPerAccept: Number(fmt((cpu.server * radiusSeconds * 1000) / Math.max(1, accepts))),
          msCpuServerMainThreadPerAccept: Number(
            fmt((cpu.serverMain * radiusSeconds * 1000) / Math.max(1, accepts)),
          ),
          msCpuPostgresPerAccept: Number(fmt((cpu.postgres * radiusSeconds * 1000) / Math.max(1, accepts))),
          msCpuBenchPerAccept: Number(fmt((cpu.bench * radiusSeconds * 1000) / Math.max(1, accepts))),
          statementsPerAccept: statementsPerAccept === undefined ? null : Number(fmt(statementsPerAccept, 2)),
          transactionsCounted: counted ?? null,
          backgroundStatementsPerSecond: background === undefined ? null : Number(fmt(background, 2)),
          rawHashesPerSecond: Number(fmt(hashesPerSecond)),
          msCpuPerRawHash: Number(
            fmt(((hashCpu as CpuSplit).bench * hashSeconds * 1000) / Math.max(1, hashes)),
          ),
          ratio: Number(fmt(ratio, 3)),
          goal: GOAL,
          met: ratio >= GOAL && failed === 0,
          hashCost: 0,
          hashCostGoal: server.storage === 'postgres' ? COST_GOAL : null,
          hashCostMet: false as boolean | null,
          cpuDuringRequests: cpu,
          cpuDuringHashes: hashCpu,
        };
        const cost = hashCost(
          row.msCpuServerPerAccept,
          row.msCpuPostgresPerAccept,
          row.msCpuPerRawHash,
          row.hashCostGoal,
        );
        row.hashCost = Number(fmt(cost.hashes, 3));
        row.hashCostMet = cost.met === null ? null : cost.met && failed === 0;
        rows.push(row);
        console.log(
          `concurrency ${concurrency}: ${accepts} Access-Accepts in ${fmt(radiusSeconds, 2)} s = ${fmt(acceptsPerSecond)}/s` +
            `${failed ? ` (${failed} FAILED)` : ''} (mean ${row.meanLatencyMs} ms each); raw argon2id ` +
            `${fmt(hashesPerSecond)} hashes/s; ratio ${fmt(ratio * 100)} % (goal >= 90 %: ${verdict(row.met)})`,
        );
        if (failed) console.log(`  failures: ${JSON.stringify(failures)}`);
        console.log(`  during requests: ${describeCpu(cpu)}`);
        console.log(`  during hashes:   ${describeCpu(hashCpu as CpuSplit)}`);
        console.log(
          `  CPU per accept: server ${row.msCpuServerPerAccept} ms (main thread ${row.msCpuServerMainThreadPerAccept} ms), ` +
            `postgres ${row.msCpuPostgresPerAccept} ms, ` +
            `this process ${row.msCpuBenchPerAccept} ms; per raw hash ${row.msCpuPerRawHash} ms`,
        );
        console.log(describeHashCost('an Access-Accept', cost));
        if (statementsPerAccept !== undefined)
          console.log(
            `  PostgreSQL statements per accept: ${fmt(statementsPerAccept, 2)} (${counted} transactions over the level, ` +
              `less ${fmt(backgroundShare, 0)} of the server's background work at ${fmt(background ?? 0, 2)}/s)`,
          );
      }

      // A client we did not write gets in too.
      const peer = await radclientCheck(radiusPort, secret, people[0] as Person);
      if (peer.ran) sent += 1;

      // The server's own counters (written every 5 s) agree with what was sent.
      let stats: ClientStats | undefined;
      const countedBy = Date.now() + 15_000;
      do {
        stats = await clientStats(server, tenant, clientId);
        if (stats && stats.accepts + stats.rejects + stats.challenges >= sent) break;
        await sleep(1000);
      } while (Date.now() < countedBy);
      console.log(
        `server counters: ${stats?.accepts} accepts, ${stats?.rejects} rejects, ${stats?.challenges} challenges, ` +
          `${stats?.droppedNoAuthenticator} + ${stats?.droppedBadAuthenticator} dropped ` +
          `(${sent} Access-Requests sent; Status-Server answers are not counted); ` +
          `${device.strayAnswers} stray answers`,
      );
      extra = {
        radclient: peer,
        serverCounters: stats,
        accessRequestsSent: sent,
        strayAnswers: device.strayAnswers,
      };
    } finally {
      await device.close();
    }
  });
  const file = await saveResult('radius', server.storage, {
    storage: server.storage,
    count: COUNT,
    rounds: ROUNDS,
    users: USERS,
    sockets: SOCKETS,
    rows,
    ...extra,
  });
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
