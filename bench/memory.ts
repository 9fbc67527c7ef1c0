/**
 * Resident memory (VmRSS from /proc/<pid>/status) of an idle server: after start-up, and after a
 * short warm-up (sign-ins, code grants, refreshes, page views) followed by a rest.
 * Goals: <= 400 MB on PGlite, <= 150 MB on PostgreSQL.
 *
 *   node --conditions=source --import tsx bench/memory.ts            # the compiled server (npm run build:server first)
 *   BENCH_SERVER=source node --conditions=source --import tsx bench/memory.ts   # the TypeScript through tsx
 *   BENCH_DATABASE_URL=postgres://... node --conditions=source --import tsx bench/memory.ts
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { authorizeSilently, redeemCode, refreshToken, signIn } from './lib/browser.ts';
import { saveResult, verdict } from './lib/report.ts';
import { type BenchServer, envInt, fmt, memoryOf, pool, repoRoot, sleep, startServer } from './lib/server.ts';

const IDLE_MS = envInt('BENCH_IDLE_SECONDS', 10) * 1000;
/** MB as in the goals: 10^6 bytes. */
const GOAL_MB = { pglite: 400, postgres: 150 } as const;
const MIB_TO_MB = 1.048576;

async function warmUp(server: BenchServer) {
  const signedIn = await pool(10, 2, 120_000, () => signIn(server));
  const jars = signedIn.map((s) => s.jar);
  const codes = await pool(200, 4, 60_000, (i) => authorizeSilently(server, jars[i % jars.length]!));
  const tokens = await pool(codes.length, 4, 60_000, (i) =>
    redeemCode(server, codes[i]!.code, codes[i]!.verifier),
  );
  // 20 chains x 25 refreshes.
  await pool(20, 4, 120_000, async (i) => {
    let token = tokens[i]!;
    for (let n = 0; n < 25; n++) token = await refreshToken(server, token);
  });
  await pool(200, 4, 60_000, async (i) => {
    const path = i % 2 ? '/oidc/.well-known/openid-configuration' : '/oidc/jwks';
    await (await fetch(`${server.base}${path}`)).arrayBuffer();
  });
}

/** Heavy dependencies of the server, each imported alone in a fresh process. */
const DEPENDENCIES = ['jsdom', 'oidc-provider', 'fastify', 'kysely', 'pg', '@electric-sql/pglite', 'jose'];

/** RSS growth (MiB) from importing each dependency alone, and the cost of the tsx loader. */
function importCosts(): Record<string, number> {
  const measure = (args: string[], code: string) => {
    const out = execFileSync(process.execPath, [...args, '--input-type=module', '-e', code], {
      cwd: join(repoRoot, 'packages', 'server'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return Number(out.trim());
  };
  const rss = `(Number(/VmRSS:\\s+(\\d+)/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))[1]) / 1024)`;
  const costs: Record<string, number> = {};
  const plain = measure([], `await new Promise((r) => setTimeout(r, 200)); console.log(${rss});`);
  const withTsx = measure(
    ['--import', 'tsx'],
    `await new Promise((r) => setTimeout(r, 200)); console.log(${rss});`,
  );
  costs['tsx loader (--import tsx)'] = withTsx - plain;
  for (const name of DEPENDENCIES) {
    costs[name] = measure(
      [],
      `const before = ${rss}; await import('${name}'); await new Promise((r) => setTimeout(r, 200)); console.log(${rss} - before);`,
    );
  }
  return costs;
}

async function main() {
  const server = await startServer({ probe: true });
  let restarted: BenchServer | undefined;
  const storage = server.storage;
  console.log(
    `memory benchmark on ${storage}, ${server.build} server (BENCH_SERVER), pid ${server.pid}, ` +
      `ready after ${fmt(server.startupMs / 1000, 2)} s`,
  );
  const samples: Record<string, { rssMiB: number; hwmMiB: number }> = {};
  const heap: Record<string, Record<string, number>> = {};
  try {
    samples.ready = memoryOf(server.pid);
    await sleep(IDLE_MS);
    samples.idleAfterStart = memoryOf(server.pid);
    heap.idleAfterStart = await server.memoryUsage();
    const warmStarted = performance.now();
    await warmUp(server);
    const warmSeconds = (performance.now() - warmStarted) / 1000;
    samples.justAfterWarmUp = memoryOf(server.pid);
    await sleep(IDLE_MS);
    samples.idleAfterWarmUp = memoryOf(server.pid);
    heap.idleAfterWarmUp = await server.memoryUsage();
    console.log(
      `warm-up (10 sign-ins, 200 code grants, 500 refreshes, 200 GETs) took ${fmt(warmSeconds, 1)} s`,
    );
    // A restart on the same data: no first-start work (migrations, PGlite initdb, key generation).
    await server.stop({ keepData: true });
    restarted = await startServer({ restartOf: server, probe: true });
    console.log(
      `restarted on the same data, pid ${restarted.pid}, ready after ${fmt(restarted.startupMs / 1000, 2)} s`,
    );
    await sleep(IDLE_MS);
    samples.idleAfterRestart = memoryOf(restarted.pid);
    heap.idleAfterRestart = await restarted.memoryUsage();
  } finally {
    await server.stop();
    await restarted?.stop();
  }
  const goal = GOAL_MB[storage];
  const mb = (mib: number) => mib * MIB_TO_MB;
  for (const [label, sample] of Object.entries(samples)) {
    console.log(
      `${label.padEnd(16)} RSS ${fmt(mb(sample.rssMiB))} MB (peak so far ${fmt(mb(sample.hwmMiB))} MB)`,
    );
  }
  const idleStart = mb(samples.idleAfterStart?.rssMiB ?? Number.NaN);
  const idleWarm = mb(samples.idleAfterWarmUp?.rssMiB ?? Number.NaN);
  const met = idleStart <= goal && idleWarm <= goal;
  console.log(`goal idle RSS <= ${goal} MB on ${storage}: ${verdict(met)}`);
  for (const [label, usage] of Object.entries(heap)) {
    console.log(
      `${label.padEnd(16)} JS heap ${fmt(usage.heapUsed ?? 0)} of ${fmt(usage.heapTotal ?? 0)} MiB used ` +
        `(${fmt(usage.heapUsedAfterGc ?? Number.NaN)} MiB live after a full GC), external ${fmt(usage.external ?? 0)} MiB ` +
        `(WASM memory counts here), ArrayBuffers ${fmt(usage.arrayBuffers ?? 0)} MiB`,
    );
  }
  const costs = importCosts();
  console.log('RSS added by importing alone (MiB):');
  for (const [name, mib] of Object.entries(costs)) console.log(`  ${name.padEnd(28)} ${fmt(mib)}`);
  const file = await saveResult('memory', storage, {
    importCostsMiB: costs,
    memoryUsageMiB: heap,
    storage,
    server: server.build,
    startupSeconds: server.startupMs / 1000,
    restartSeconds: restarted ? restarted.startupMs / 1000 : undefined,
    idleSeconds: IDLE_MS / 1000,
    samplesMiB: samples,
    idleAfterStartMB: idleStart,
    idleAfterWarmUpMB: idleWarm,
    goalMB: goal,
    met,
  });
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
