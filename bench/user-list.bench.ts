/**
 * The user list of a company with 100 000 people (POST /api/v1/manage/user/list): keyword search,
 * status and department filters, every sort, a deep page; and the export of the whole list
 * (POST /api/v1/manage/user/export). Goal: every list query well under a second (p95 < 1 s).
 *
 * The people are seeded straight into the server's database with generate_series (PostgreSQL
 * only: the benchmark needs its own connection to the database): 100 000 accounts the company
 * manages, 5 % disabled, 1 % locked, in 100 teams under 10 divisions (110 departments).
 *
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/user-list.bench.ts'
 */
import { adminWithCompany, percentile, runOn, seedPeople, type Tenant, tenantCall } from './lib/org.ts';
import { cpuMeter, describeCpu, saveResult, verdict, waitForQuiet } from './lib/report.ts';
import { type BenchServer, envInt, fmt, startServer } from './lib/server.ts';

const USERS = envInt('BENCH_LIST_USERS', 100_000);
const REPEAT = envInt('BENCH_LIST_REPEAT', 30);
const GOAL_MS = 1_000;

interface Case {
  name: string;
  body: Record<string, unknown>;
}

const cases: Case[] = [
  { name: 'first page (newest first)', body: {} },
  { name: 'keyword "zhang"', body: { keyword: 'zhang' } },
  { name: 'keyword "user04217"', body: { keyword: 'user04217' } },
  { name: 'keyword phone "0004217"', body: { keyword: '0004217' } },
  { name: 'keyword "nobody-like-this"', body: { keyword: 'nobody-like-this' } },
  { name: 'status disabled', body: { status: 'disabled' } },
  { name: 'status locked', body: { status: 'locked' } },
  { name: 'division with its teams', body: { departmentId: 'bench-d-3' } },
  { name: 'one team only', body: { departmentId: 'bench-d-3-4', includeSubDepartments: false } },
  { name: 'sort username asc', body: { sortBy: 'username', sortOrder: 'asc' } },
  { name: 'sort name asc', body: { sortBy: 'name', sortOrder: 'asc' } },
  { name: 'sort last login desc', body: { sortBy: 'lastLoginAt', sortOrder: 'desc' } },
  { name: 'sort login count desc', body: { sortBy: 'loginCount', sortOrder: 'desc' } },
  { name: 'deep page 1000 x 100 (offset 99 900)', body: { page: 1000, pageSize: 100 } },
  {
    name: 'deep page 500 x 100, sort name',
    body: { page: 500, pageSize: 100, sortBy: 'name', sortOrder: 'asc' },
  },
  {
    name: 'keyword "li" + enabled + division + sort name',
    body: { keyword: 'li', status: 'enabled', departmentId: 'bench-d-6', sortBy: 'name', sortOrder: 'asc' },
  },
];

async function timeList(server: BenchServer, tenant: Tenant, body: Record<string, unknown>) {
  const timings: number[] = [];
  let total = 0;
  for (let i = 0; i < REPEAT + 3; i++) {
    const started = performance.now();
    const data = await tenantCall<{ list: unknown[]; total: number }>(
      server,
      tenant,
      '/api/v1/manage/user/list',
      {
        pageSize: 20,
        ...body,
      },
    );
    const ms = performance.now() - started;
    if (i >= 3) timings.push(ms);
    total = data.total;
  }
  return { p50: percentile(timings, 50), p95: percentile(timings, 95), max: Math.max(...timings), total };
}

async function timeExport(server: BenchServer, tenant: Tenant, body: Record<string, unknown>) {
  const started = performance.now();
  const response = await fetch(`${server.base}/api/v1/manage/user/export`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', access_token: tenant.token, company_id: tenant.companyId },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - started;
  if (!response.headers.get('content-type')?.includes('spreadsheetml'))
    throw new Error(`export: ${bytes.toString()}`);
  return { ms, bytes: bytes.length };
}

async function main() {
  const server = await startServer();
  if (server.storage !== 'postgres' || !server.stored.database) {
    await server.stop();
    throw new Error('the user-list benchmark seeds by SQL: run it with BENCH_DATABASE_URL (PostgreSQL)');
  }
  const databaseUrl = server.stored.database.url;
  console.log(`user-list benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}`);
  await runOn(server, async () => {
    const tenant = await adminWithCompany(server);
    const tree = await tenantCall<{ tree: { departmentId: string } }>(
      server,
      tenant,
      '/api/v1/manage/department/tree',
      {},
    );
    const seedMs = await seedPeople(databaseUrl, tenant.companyId, tree.tree.departmentId, USERS);
    console.log(`seeded ${USERS} users, 110 departments in ${fmt(seedMs / 1000, 1)} s (with analyze)`);

    const results: Record<string, unknown>[] = [];
    await waitForQuiet(30_000);
    const meter = cpuMeter(server.pid);
    for (const entry of cases) {
      const timing = await timeList(server, tenant, entry.body);
      results.push({ name: entry.name, body: entry.body, ...timing });
      console.log(
        `${entry.name.padEnd(48)} p50 ${fmt(timing.p50, 1).padStart(7)} ms  p95 ${fmt(timing.p95, 1).padStart(7)} ms  ` +
          `max ${fmt(timing.max, 0).padStart(5)} ms  (${timing.total} match)`,
      );
    }
    const cpu = meter.stop();
    console.log(`  ${describeCpu(cpu)}`);
    const worstP95 = Math.max(...results.map((r) => r.p95 as number));
    console.log(`worst p95 ${fmt(worstP95, 1)} ms, goal < ${GOAL_MS} ms: ${verdict(worstP95 < GOAL_MS)}`);

    await waitForQuiet(30_000);
    const all = await timeExport(server, tenant, {});
    console.log(
      `export of all ${USERS} users: ${fmt(all.ms / 1000, 2)} s, ${fmt(all.bytes / 1024 / 1024, 1)} MiB`,
    );
    const division = await timeExport(server, tenant, { departmentId: 'bench-d-3' });
    console.log(
      `export of one division: ${fmt(division.ms / 1000, 2)} s, ${fmt(division.bytes / 1024, 0)} KiB`,
    );

    const saved = await saveResult('user-list', server.storage, {
      users: USERS,
      repeat: REPEAT,
      seedMs,
      cases: results,
      cpu,
      worstP95,
      goalMet: worstP95 < GOAL_MS,
      exportAll: all,
      exportDivision: division,
    });
    console.log(`saved ${saved}`);
  });
}

await main();
