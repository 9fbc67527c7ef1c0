/**
 * The floor of issue 34's sign-in measure on this machine: the CPU of a bare server
 * (bench/lib/floor-server.js: plain Node, node-postgres, two prepared statements around an
 * argon2id verification) and its PostgreSQL backends per sign-in, in raw hashes of the same run,
 * measured as bench/signin.ts measures Tessera (sign-in batches and raw-hash batches alternate).
 * What Tessera spends above this floor is what its own code costs; the floor itself is what HTTP,
 * two database round trips and the hash cost here whatever the product.
 *
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/floor.bench.ts'
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { hash } from '@node-rs/argon2';
import { argonOptions } from './lib/raw-hash.ts';
import {
  addCpu,
  type CpuSplit,
  cpuMeter,
  describeCpu,
  hashCost,
  postgresDatabaseOf,
  waitForQuiet,
} from './lib/report.ts';
import { envInt, fmt, freePort, pool, repoRoot } from './lib/server.ts';

const COUNT = envInt('BENCH_SIGNINS', 240);
const ROUNDS = envInt('BENCH_ROUNDS', 6);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '4,16').split(',').map(Number);

async function main() {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is needed (scripts/with-postgres.sh)');
  const port = await freePort();
  const child = spawn(process.execPath, [join(repoRoot, 'bench', 'lib', 'floor-server.js')], {
    env: { ...process.env, FLOOR_DATABASE_URL: url, FLOOR_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout, 'data');
  const pid = child.pid as number;
  const signIn = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'identifier=ada&password=Floor-Password-1',
      redirect: 'manual',
    });
    await response.arrayBuffer();
    if (response.status !== 303) throw new Error(`sign-in answered ${response.status}`);
  };
  const meterOptions = { postgresDatabase: postgresDatabaseOf({ url }) };
  try {
    await pool(300, 4, 60_000, signIn);
    for (const concurrency of CONCURRENCY) {
      const batch = Math.max(concurrency, Math.ceil(COUNT / ROUNDS));
      let signInCpu: CpuSplit | undefined;
      let hashCpu: CpuSplit | undefined;
      let signInSeconds = 0;
      let hashSeconds = 0;
      for (let round = 0; round < ROUNDS; round++) {
        await waitForQuiet(20_000);
        const meter = cpuMeter(pid, meterOptions);
        let started = performance.now();
        await pool(batch, concurrency, 60_000, signIn);
        signInSeconds += (performance.now() - started) / 1000;
        signInCpu = addCpu(signInCpu, meter.stop());
        const hashMeter = cpuMeter(pid, meterOptions);
        started = performance.now();
        await pool(batch, concurrency, 60_000, (i) => hash(`Floor-${round}-${i}`, argonOptions));
        hashSeconds += (performance.now() - started) / 1000;
        hashCpu = addCpu(hashCpu, hashMeter.stop());
      }
      const count = batch * ROUNDS;
      const perSignIn = (cores: number) => (cores * signInSeconds * 1000) / count;
      const cpu = signInCpu as CpuSplit;
      const rawHash = ((hashCpu as CpuSplit).bench * hashSeconds * 1000) / count;
      const cost = hashCost(perSignIn(cpu.server), perSignIn(cpu.postgres), rawHash, 1.25);
      console.log(`concurrency ${concurrency}: ${count} sign-ins, ${fmt(count / signInSeconds)}/s`);
      console.log(`  during sign-ins: ${describeCpu(cpu)}`);
      console.log(
        `  CPU per sign-in: server ${fmt(perSignIn(cpu.server))} ms (main thread ${fmt(perSignIn(cpu.serverMain))}), ` +
          `postgres ${fmt(perSignIn(cpu.postgres))} ms; per raw hash ${fmt(rawHash)} ms`,
      );
      console.log(`  the floor: ${fmt(cost.msCpu)} ms = ${fmt(cost.hashes, 2)} raw hashes`);
    }
  } finally {
    child.kill();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
