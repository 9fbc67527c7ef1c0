/**
 * Cold start of the compiled server, as `npm start` runs it once the build is done: the time from
 * spawning `node --enable-source-maps packages/server/dist/main.js` on an existing installation
 * (data folder with its database, master key and signing keys, from a first start) to the first
 * 200 from /readyz (the database answers and every migration is applied), asked every 20 ms.
 * No console build is part of it. Goal: < 3 s.
 *
 *   npm run build:server && node --conditions=source --import tsx bench/cold-start.ts
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/cold-start.ts'
 *
 * BENCH_COLD_STARTS (5) starts are timed; BENCH_SERVER=source times the TypeScript through tsx.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { saveResult, verdict } from './lib/report.ts';
import { type BenchServer, envInt, fmt, memoryOf, startServer } from './lib/server.ts';

const STARTS = envInt('BENCH_COLD_STARTS', 5);
const GOAL_SECONDS = 3;

/** CPU seconds (user + system) a process has used so far; on a busy machine the wall time is longer. */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main() {
  // The first start creates the installation (PGlite's initdb or a new database, migrations,
  // keys, the first administrator); it is not what is timed.
  let server: BenchServer = await startServer({ readyPath: '/readyz', pollMs: 20 });
  const storage = server.storage;
  console.log(
    `cold start on ${storage}, ${server.build} server (BENCH_SERVER); first start (new installation) ` +
      `${fmt(server.startupMs / 1000, 2)} s; load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
  );
  const seconds: number[] = [];
  const cpuSeconds: number[] = [];
  const readyRssMiB: number[] = [];
  try {
    for (let i = 0; i < STARTS; i++) {
      await server.stop({ keepData: true });
      server = await startServer({ restartOf: server, readyPath: '/readyz', pollMs: 20 });
      seconds.push(server.startupMs / 1000);
      cpuSeconds.push(cpuSecondsOf(server.pid));
      readyRssMiB.push(memoryOf(server.pid).rssMiB);
      console.log(
        `start ${i + 1}: ready after ${fmt(server.startupMs / 1000, 2)} s (server CPU ${fmt(cpuSeconds.at(-1)!, 2)} s), ` +
          `RSS ${fmt(readyRssMiB.at(-1)!)} MiB`,
      );
    }
  } finally {
    await server.stop();
  }
  const typical = median(seconds);
  const met = Math.max(...seconds) < GOAL_SECONDS;
  console.log(
    `cold start to the first 200 from /readyz: median ${fmt(typical, 2)} s, ` +
      `min ${fmt(Math.min(...seconds), 2)} s, max ${fmt(Math.max(...seconds), 2)} s; ` +
      `server CPU median ${fmt(median(cpuSeconds), 2)} s; load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
  );
  console.log(`goal every start < ${GOAL_SECONDS} s on ${storage}: ${verdict(met)}`);
  const file = await saveResult('cold-start', storage, {
    storage,
    server: server.build,
    seconds,
    medianSeconds: typical,
    cpuSeconds,
    readyRssMiB,
    goalSeconds: GOAL_SECONDS,
    met,
  });
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
