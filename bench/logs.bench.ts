/**
 * The log screen over 10 million sign-in events of one company (POST /api/v1/manage/log/sign-in/list:
 * the ranges of spec §9, a custom range, every filter, both orders, the deepest page) and the
 * dashboard's statistics over 1 million sign-in events of another company (the ten
 * /api/v1/manage/index/* calls, both windows). Goals: every log page p95 < 1 s; every dashboard
 * call p95 < 200 ms (issue 16).
 *
 * The events are seeded straight into the server's database with generate_series (PostgreSQL
 * only), spread over the last 90 days (log company) and the last 30 days (dashboard company):
 * 10 % failures over four causes, 1 000 people, three applications and Tessera's own clients,
 * places in six countries (China by province), a few marks. The indexes of login_events are
 * dropped for the load and built again afterwards from their own definitions, then analysed. The
 * dashboard's counts (sign_in_counts, sign_in_place_counts, sign_in_people: migration 21) are
 * written by login_events' trigger in the load statement itself, as for every other insert.
 * The dashboard calls are timed in Asia/Shanghai, and the trends also in Asia/Kolkata (+05:30).
 * Last, the cost the counts add to writing one sign-in: single inserts alternating with the
 * counting trigger on and off (`BENCH_WRITE_EVENTS` each).
 *
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/logs.bench.ts'
 */
import pg from 'pg';
import { insertEvents, PEOPLE } from './lib/login-events.ts';
import { adminWithCompany, percentile, runOn, type Tenant, tenantCall } from './lib/org.ts';
import { cpuMeter, describeCpu, saveResult, verdict, waitForQuiet } from './lib/report.ts';
import { type BenchServer, envInt, fmt, startServer } from './lib/server.ts';

const LOG_ROWS = envInt('BENCH_LOG_ROWS', 10_000_000);
const DASHBOARD_ROWS = envInt('BENCH_DASHBOARD_ROWS', 1_000_000);
const REPEAT = envInt('BENCH_LOG_REPEAT', 20);
const LIST_GOAL_MS = 1_000;
const DASHBOARD_GOAL_MS = 200;
const WRITE_EVENTS = envInt('BENCH_WRITE_EVENTS', 2_000);

interface Seeded {
  apps: { appId: string; clientId: string }[];
}

async function seed(url: string, tenant: Tenant, prefix: string, rows: number, days: number, seeded: Seeded) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes
        where tablename = 'login_events' and indexname <> 'login_events_pkey'`,
    );
    for (const { indexname } of indexes) await client.query(`drop index ${indexname}`);
    await client.query('alter table login_events disable trigger login_events_syslog');
    await client.query(
      `insert into accounts (id, username, password_hash, status, must_change_password, home_company_id)
       select $1 || '-u-' || i, $1 || '.person' || i, '!', 'enabled', false, $2
       from generate_series(0, ${PEOPLE - 1}) i`,
      [prefix, tenant.companyId],
    );
    await client.query(
      `insert into company_members (company_id, account_id, role, status)
       select $2, $1 || '-u-' || i, 'member', 'enabled' from generate_series(0, ${PEOPLE - 1}) i`,
      [prefix, tenant.companyId],
    );
    const clientIds = seeded.apps.map((app) => app.clientId);
    await client.query(insertEvents('login_events'), [prefix, tenant.companyId, rows, ...clientIds, days]);
    const loaded = performance.now();
    for (const { indexdef } of indexes) await client.query(indexdef);
    await client.query('alter table login_events enable trigger login_events_syslog');
    await client.query('analyze');
    const { rows: counted } = await client.query<{ counts: string; places: string; people: string }>(
      `select (select count(*) from sign_in_counts where company_id = $1) as counts,
              (select count(*) from sign_in_place_counts where company_id = $1) as places,
              (select count(*) from sign_in_people where company_id = $1) as people`,
      [tenant.companyId],
    );
    const counts = Object.fromEntries(
      Object.entries(counted[0] ?? {}).map(([key, value]) => [key, Number(value)]),
    );
    return { loadMs: loaded - started, indexMs: performance.now() - loaded, counts };
  } finally {
    await client.end();
  }
}

/**
 * Single-row inserts of sign-in events (each its own statement and transaction, as a sign-in
 * writes them), in batches alternating with the counting trigger disabled and enabled.
 */
async function writeCost(url: string, tenant: Tenant) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const timings = { on: [] as number[], off: [] as number[] };
  try {
    for (let round = 0; round < 10; round++)
      for (const mode of ['off', 'on'] as const) {
        await client.query(
          `alter table login_events ${mode === 'on' ? 'enable' : 'disable'} trigger login_events_count`,
        );
        for (let i = 0; i < WRITE_EVENTS / 10; i++) {
          const started = performance.now();
          await client.query({
            name: 'write-event',
            text: `insert into login_events (id, company_id, account_id, identifier, client_id, ip, result, failure_cause, country, region)
                   values ($1, $2, $3, 'writer', 'tessera-console-dev', '203.0.113.7', $4, $5, 'CN', 'Beijing')`,
            values: [
              `bw-${round}-${mode}-${i}`,
              tenant.companyId,
              `bl-u-${i % PEOPLE}`,
              i % 10 === 1 ? 'failure' : 'success',
              i % 10 === 1 ? 'wrong_password' : null,
            ],
          });
          timings[mode].push(performance.now() - started);
        }
      }
  } finally {
    await client.query('alter table login_events enable trigger login_events_count');
    await client.end();
  }
  const stats = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });
  return { on: stats(timings.on), off: stats(timings.off) };
}

async function appsOf(server: BenchServer, tenant: Tenant): Promise<Seeded> {
  const apps = [];
  for (const name of ['Mail', 'Wiki', 'CRM']) {
    const created = await tenantCall<{ app: { appId: string; clientId: string } }>(
      server,
      tenant,
      '/api/v1/manage/app/create',
      { name },
    );
    apps.push(created.app);
  }
  return { apps };
}

async function timeCall(server: BenchServer, tenant: Tenant, path: string, body: Record<string, unknown>) {
  const timings: number[] = [];
  let data: unknown;
  for (let i = 0; i < REPEAT + 2; i++) {
    const started = performance.now();
    data = await tenantCall(server, tenant, path, body);
    if (i >= 2) timings.push(performance.now() - started);
  }
  return { p50: percentile(timings, 50), p95: percentile(timings, 95), max: Math.max(...timings), data };
}

const DAY = 86_400_000;

function listCases(seeded: Seeded, prefix: string) {
  const app = seeded.apps[1]?.appId;
  const person = `${prefix}-u-421`;
  const day = (n: number) => new Date(Date.now() - n * DAY).toISOString();
  return [
    { name: 'last month, newest first', body: {} },
    { name: 'last three months, newest first', body: { range: 'three_months' } },
    { name: 'last three months, oldest first', body: { range: 'three_months', order: 'asc' } },
    { name: 'custom: one day 40 days ago', body: { range: 'custom', from: day(41), to: day(40) } },
    { name: 'failures', body: { range: 'three_months', result: 'failure' } },
    {
      name: 'cause account_locked, oldest first',
      body: { range: 'three_months', cause: 'account_locked', order: 'asc' },
    },
    { name: 'one person', body: { range: 'three_months', userId: person } },
    { name: 'one application', body: { range: 'three_months', appId: app } },
    { name: 'one application, failures', body: { range: 'three_months', appId: app, result: 'failure' } },
    { name: 'mark impossible travel', body: { range: 'three_months', mark: 'impossible_travel' } },
    { name: 'deepest page (500 x 20)', body: { range: 'three_months', page: 500 } },
    {
      name: 'deepest page, failures, oldest first',
      body: { range: 'three_months', page: 100, pageSize: 100, result: 'failure', order: 'asc' },
    },
  ];
}

const dashboardCalls = [
  'user-data-overview',
  'user-mfa-info',
  'user-login-trend',
  'app-login-count',
  'app-login-trend',
  'app-login-count-ratio',
  'fail-trend',
  'new-fail-list',
  'new-login-list',
  'login-hotspot',
];

function report(name: string, timing: { p50: number; p95: number; max: number }, extra = '') {
  console.log(
    `${name.padEnd(48)} p50 ${fmt(timing.p50, 1).padStart(7)} ms  p95 ${fmt(timing.p95, 1).padStart(7)} ms  ` +
      `max ${fmt(timing.max, 0).padStart(5)} ms  ${extra}`,
  );
}

async function main() {
  const server = await startServer();
  if (server.storage !== 'postgres' || !server.stored.database) {
    await server.stop();
    throw new Error('the log benchmark seeds by SQL: run it with BENCH_DATABASE_URL (PostgreSQL)');
  }
  const databaseUrl = server.stored.database.url;
  console.log(`log and dashboard benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}`);
  await runOn(server, async () => {
    const logs = await adminWithCompany(server, 'Log Bench Co');
    const board = await adminWithCompany(server, 'Dashboard Bench Co');
    const logApps = await appsOf(server, logs);
    const boardApps = await appsOf(server, board);
    const seededLogs = await seed(databaseUrl, logs, 'bl', LOG_ROWS, 90, logApps);
    console.log(
      `seeded ${LOG_ROWS} events (log company): load ${fmt(seededLogs.loadMs / 1000, 1)} s, indexes and analyse ${fmt(seededLogs.indexMs / 1000, 1)} s, counts ${JSON.stringify(seededLogs.counts)}`,
    );
    const seededBoard = await seed(databaseUrl, board, 'bd', DASHBOARD_ROWS, 30, boardApps);
    console.log(
      `seeded ${DASHBOARD_ROWS} events (dashboard company): load ${fmt(seededBoard.loadMs / 1000, 1)} s, indexes and analyse ${fmt(seededBoard.indexMs / 1000, 1)} s, counts ${JSON.stringify(seededBoard.counts)}`,
    );

    await waitForQuiet(60_000);
    let meter = cpuMeter(server.pid);
    const lists: Record<string, unknown>[] = [];
    for (const entry of listCases(logApps, 'bl')) {
      const timing = await timeCall(server, logs, '/api/v1/manage/log/sign-in/list', entry.body);
      const data = timing.data as { total: number; totalCapped: boolean; list: unknown[] };
      lists.push({ name: entry.name, body: entry.body, p50: timing.p50, p95: timing.p95, max: timing.max });
      report(
        entry.name,
        timing,
        `(${data.totalCapped ? '>' : ''}${data.total} match, ${data.list.length} shown)`,
      );
    }
    const listCpu = meter.stop();
    console.log(`  ${describeCpu(listCpu)}`);
    const worstList = Math.max(...lists.map((row) => row.p95 as number));
    console.log(
      `log list: worst p95 ${fmt(worstList, 1)} ms, goal < ${LIST_GOAL_MS} ms: ${verdict(worstList < LIST_GOAL_MS)}`,
    );

    await waitForQuiet(60_000);
    const started = performance.now();
    const response = await fetch(`${server.base}/api/v1/manage/log/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', access_token: logs.token, company_id: logs.companyId },
      body: JSON.stringify({ view: 'signin', range: 'month', cause: 'wrong_password', format: 'csv' }),
    });
    const body = Buffer.from(await response.arrayBuffer());
    if (!response.headers.get('content-type')?.includes('text/csv')) throw new Error(`export: ${body}`);
    const bytes = body.length;
    const exportRows = body.toString('utf8').split('\n').filter(Boolean).length - 1;
    const exportMs = performance.now() - started;
    console.log(
      `export CSV, last month's wrong passwords: ${exportRows} rows in ${fmt(exportMs / 1000, 2)} s, ${fmt(bytes / 1024 / 1024, 1)} MiB`,
    );

    await waitForQuiet(60_000);
    meter = cpuMeter(server.pid);
    const dashboard: Record<string, unknown>[] = [];
    for (const window of ['week', 'month'] as const) {
      for (const call of dashboardCalls) {
        const body = {
          window,
          timeZone: 'Asia/Shanghai',
          ...(call === 'login-hotspot' ? { scope: 'world' } : {}),
        };
        const timing = await timeCall(server, board, `/api/v1/manage/index/${call}`, body);
        dashboard.push({ call, window, p50: timing.p50, p95: timing.p95, max: timing.max });
        report(`${call} (${window})`, timing);
      }
    }
    for (const call of ['user-login-trend', 'app-login-trend', 'fail-trend']) {
      const timing = await timeCall(server, board, `/api/v1/manage/index/${call}`, {
        window: 'month',
        timeZone: 'Asia/Kolkata',
      });
      dashboard.push({
        call: `${call} Asia/Kolkata`,
        window: 'month',
        p50: timing.p50,
        p95: timing.p95,
        max: timing.max,
      });
      report(`${call} Asia/Kolkata (month)`, timing);
    }
    const hotspotChina = await timeCall(server, board, '/api/v1/manage/index/login-hotspot', {
      window: 'month',
      timeZone: 'Asia/Shanghai',
      scope: 'china',
    });
    dashboard.push({ call: 'login-hotspot china', window: 'month', ...hotspotChina, data: undefined });
    report('login-hotspot china (month)', hotspotChina);
    const boardCpu = meter.stop();
    console.log(`  ${describeCpu(boardCpu)}`);
    const worstBoard = Math.max(...dashboard.map((row) => row.p95 as number));
    console.log(
      `dashboard: worst p95 ${fmt(worstBoard, 1)} ms, goal < ${DASHBOARD_GOAL_MS} ms: ${verdict(worstBoard < DASHBOARD_GOAL_MS)}`,
    );

    await waitForQuiet(60_000);
    const writes = await writeCost(databaseUrl, logs);
    console.log(
      `one sign-in event written: p50 ${fmt(writes.off.p50, 3)} ms without counts, ${fmt(writes.on.p50, 3)} ms with them ` +
        `(p95 ${fmt(writes.off.p95, 3)} / ${fmt(writes.on.p95, 3)} ms, ${WRITE_EVENTS} each)`,
    );

    const saved = await saveResult('logs', server.storage, {
      writes,
      logRows: LOG_ROWS,
      dashboardRows: DASHBOARD_ROWS,
      repeat: REPEAT,
      seededLogs,
      seededBoard,
      lists,
      listCpu,
      worstList,
      export: { ms: exportMs, bytes, rows: exportRows },
      dashboard,
      boardCpu,
      worstBoard,
    });
    console.log(`saved ${saved}`);
  });
}

await main();
