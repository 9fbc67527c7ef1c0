/**
 * How long a change made on one instance takes to reach the caches of another (issue 28): two
 * database handles on one PostgreSQL database, as two instances have. Instance A commits a notice
 * on the decision cache's channel (what the triggers send); the time from A's commit returning to
 * instance B's handler is measured over BENCH_NOTICES changes, with BENCH_NOTICE_READERS loops
 * of queries keeping both pools busy meanwhile. It also counts the notices that reached A's own
 * handler before A's commit returned (all of them: the instance that makes a change forgets first).
 *
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/notice-delay.bench.ts'
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openPostgres } from '../packages/server/src/db/database.ts';
import { PERMISSIONS_CHANNEL } from '../packages/server/src/modules/permission/policy-cache.ts';
import { percentile } from './lib/org.ts';
import { envInt, fmt } from './lib/server.ts';

const NOTICES = envInt('BENCH_NOTICES', 100);
const READERS = envInt('BENCH_NOTICE_READERS', 4);
const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('BENCH_DATABASE_URL is required (a PostgreSQL database)');

const a = await openPostgres(url);
const b = await openPostgres(url);
const arrivedOnB = new Map<string, number>();
const arrivedOnA = new Set<string>();
await b.listen(PERMISSIONS_CHANNEL, (payload) => arrivedOnB.set(payload, performance.now()));
await a.listen(PERMISSIONS_CHANNEL, (payload) => arrivedOnA.add(payload));

let running = true;
const readers = [a, b].flatMap((instance) =>
  Array.from({ length: READERS }, async () => {
    while (running) await sql`select count(*) from pg_class`.execute(instance.db);
  }),
);

const delays: number[] = [];
let firstOnA = 0;
for (let n = 0; n < NOTICES; n++) {
  const payload = `bench:${n}`;
  await a.notify(PERMISSIONS_CHANNEL, payload);
  const committed = performance.now();
  if (arrivedOnA.has(payload)) firstOnA++;
  for (let wait = 0; !arrivedOnB.has(payload) && wait < 5_000; wait++) await sleep(1);
  const arrived = arrivedOnB.get(payload);
  if (arrived !== undefined) delays.push(Math.max(0, arrived - committed));
}
running = false;
await Promise.all(readers);
await Promise.all([a.close(), b.close()]);

delays.sort((x, y) => x - y);
console.log(`notices: ${NOTICES} (${delays.length} reached instance B), readers per instance: ${READERS}`);
console.log(`instance A (the one that changed) had each before its commit returned: ${firstOnA}/${NOTICES}`);
console.log(
  `instance B after A's commit returned: median ${fmt(percentile(delays, 50))} ms, p95 ${fmt(percentile(delays, 95))} ms, max ${fmt(delays.at(-1) ?? Number.NaN)} ms`,
);
