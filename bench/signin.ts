/**
 * Password sign-ins per second (POST /interaction/<uid>/login with the right password) against
 * the raw argon2id rate of this machine, measured in this process with the server's parameters
 * and the same number of concurrent hashes (issue 20's goal: sign-ins >= 75 % of the raw hash rate
 * on PostgreSQL, >= 60 % on PGlite). Issue 34's goal, printed beside it: the CPU a sign-in costs
 * the server (all its threads) and its PostgreSQL backends together <= 1.25 raw hashes' CPU on
 * PostgreSQL, <= 1.45 on PGlite, at 4 and 16 in flight (the load generator is not in it).
 *
 * Sign-in batches and raw-hash batches alternate (BENCH_ROUNDS rounds), so that other load on
 * the machine weighs on both sides alike.
 *
 *   node --conditions=source --import tsx bench/signin.ts
 *   BENCH_SIGNINS=240 BENCH_ROUNDS=6 BENCH_CONCURRENCY=1,2,4 BENCH_DATABASE_URL=postgres://... \
 *     node --conditions=source --import tsx bench/signin.ts
 */
import { hash } from '@node-rs/argon2';
import {
  beginInteraction,
  finishAuthorization,
  type PendingInteraction,
  signIn,
  submitLogin,
} from './lib/browser.ts';
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
import { envInt, fmt, pool, startServer } from './lib/server.ts';

const COUNT = envInt('BENCH_SIGNINS', 240);
const ROUNDS = envInt('BENCH_ROUNDS', 6);
// Complete sign-ins before the timed rounds: enough for V8 to have compiled the hot code, so that
// the rounds measure the steady state and not the optimising compiler's work on its threads.
const WARM_UP = envInt('BENCH_WARMUP', 200);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '4,16').split(',').map(Number);
const PHASE_LIMIT_MS = 180_000;

async function main() {
  const server = await startServer();
  console.log(`signin benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}`);
  const goal = server.storage === 'postgres' ? 0.75 : 0.6;
  const costGoal = server.storage === 'postgres' ? 1.25 : 1.45;
  // PostgreSQL's CPU: the backends of this run's database only (other work may run PostgreSQL too).
  const meterOptions = { postgresDatabase: postgresDatabaseOf(server.stored.database) };
  const rows: Record<string, unknown>[] = [];
  try {
    // Warm-up: complete sign-ins (JIT, connection pool, provider caches) and hashes.
    for (let i = 0; i < WARM_UP; i++) await signIn(server);
    await pool(8, 2, PHASE_LIMIT_MS, (i) => hash(`warm-${i}`, argonOptions));

    for (const concurrency of CONCURRENCY) {
      const batch = Math.max(concurrency, Math.ceil(COUNT / ROUNDS));
      let signInSeconds = 0;
      let hashSeconds = 0;
      let signIns = 0;
      let failed = 0;
      let hashes = 0;
      let prepSeconds = 0;
      let prepared = 0;
      let signInCpu: CpuSplit | undefined;
      let hashCpu: CpuSplit | undefined;
      let checked = false;
      for (let round = 0; round < ROUNDS; round++) {
        // Each sign-in needs its own interaction (authorization request + form): prepared first.
        const prepStarted = performance.now();
        const interactions = await pool(batch, 4, PHASE_LIMIT_MS, () => beginInteraction(server));
        prepSeconds += (performance.now() - prepStarted) / 1000;
        prepared += interactions.length;

        // Timed: only the POSTs of the sign-in form.
        await waitForQuiet(20_000);
        await server.profilePhase(true);
        const signInMeter = cpuMeter(server.pid, meterOptions);
        const started = performance.now();
        const answers = await pool(interactions.length, concurrency, PHASE_LIMIT_MS, async (i) => {
          const interaction = interactions[i] as PendingInteraction;
          const response = await submitLogin(server, interaction);
          await response.arrayBuffer();
          return { interaction, response };
        });
        signInSeconds += (performance.now() - started) / 1000;
        signInCpu = addCpu(signInCpu, signInMeter.stop());
        await server.profilePhase(false);
        const ok = answers.filter(
          (a) => a.response.status === 303 && a.response.headers.get('location')?.includes('/oidc/auth/'),
        );
        signIns += ok.length;
        failed += answers.length - ok.length;
        // The sign-ins are real: the first one goes on to an authorization code.
        const first = ok[0];
        if (!checked && first) {
          await finishAuthorization(server, first.interaction, first.response);
          checked = true;
        }

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
      const signInsPerSecond = signIns / signInSeconds;
      const hashesPerSecond = hashes / hashSeconds;
      const ratio = signInsPerSecond / hashesPerSecond;
      const cpu = signInCpu as CpuSplit;
      const row = {
        concurrency,
        signIns,
        failed,
        seconds: Number(fmt(signInSeconds, 2)),
        signInsPerSecond: Number(fmt(signInsPerSecond)),
        meanLatencyMs: Number(fmt((signInSeconds * 1000 * concurrency) / Math.max(1, signIns))),
        msCpuServerPerSignIn: Number(fmt((cpu.server * signInSeconds * 1000) / Math.max(1, signIns))),
        msCpuServerMainThreadPerSignIn: Number(
          fmt((cpu.serverMain * signInSeconds * 1000) / Math.max(1, signIns)),
        ),
        msCpuLoadGeneratorPerSignIn: Number(fmt((cpu.bench * signInSeconds * 1000) / Math.max(1, signIns))),
        msCpuPostgresPerSignIn: Number(fmt((cpu.postgres * signInSeconds * 1000) / Math.max(1, signIns))),
        rawHashesPerSecond: Number(fmt(hashesPerSecond)),
        msCpuPerRawHash: Number(
          fmt(((hashCpu as CpuSplit).bench * hashSeconds * 1000) / Math.max(1, hashes)),
        ),
        ratio: Number(fmt(ratio, 3)),
        goal,
        met: ratio >= goal && failed === 0,
        hashCost: 0,
        hashCostGoal: costGoal,
        hashCostMet: false,
        preparedInteractionsPerSecond: Number(fmt(prepared / prepSeconds)),
        cpuDuringSignIns: cpu,
        cpuDuringHashes: hashCpu,
      };
      const cost = hashCost(
        row.msCpuServerPerSignIn,
        row.msCpuPostgresPerSignIn,
        row.msCpuPerRawHash,
        costGoal,
      );
      row.hashCost = Number(fmt(cost.hashes, 3));
      row.hashCostMet = cost.met === true && failed === 0;
      rows.push(row);
      console.log(
        `concurrency ${concurrency}: ${signIns} sign-ins in ${fmt(signInSeconds, 2)} s = ${fmt(signInsPerSecond)}/s` +
          `${failed ? ` (${failed} FAILED)` : ''} (mean ${row.meanLatencyMs} ms each); raw argon2id ` +
          `${fmt(hashesPerSecond)} hashes/s; ratio ${fmt(ratio * 100)} % (goal >= ${goal * 100} %: ${verdict(row.met)})`,
      );
      console.log(`  during sign-ins: ${describeCpu(cpu)}`);
      console.log(`  during hashes:   ${describeCpu(hashCpu as CpuSplit)}`);
      console.log(
        `  CPU per sign-in: server ${row.msCpuServerPerSignIn} ms (main thread ${row.msCpuServerMainThreadPerSignIn}), ` +
          `load generator ${row.msCpuLoadGeneratorPerSignIn} ms, postgres ${row.msCpuPostgresPerSignIn} ms; ` +
          `per raw hash ${row.msCpuPerRawHash} ms`,
      );
      console.log(describeHashCost('a sign-in', cost));
    }
  } finally {
    await server.stop();
  }
  const file = await saveResult('signin', server.storage, {
    storage: server.storage,
    count: COUNT,
    rounds: ROUNDS,
    rows,
  });
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
