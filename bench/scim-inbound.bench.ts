/**
 * SCIM 2.0 inbound (issue 31), as Entra ID or Okta drive it:
 * 1. 10 000 users (POST /Users, each after the `userName eq` probe both send first) and 500 groups
 *    (POST /Groups, then a PATCH adding 20 members each) through the SCIM endpoint, 8 requests at
 *    a time. Goal: under 120 s on PostgreSQL.
 * 2. With the company grown to 100 000 people (the rest seeded by SQL), `GET /Users?filter=userName
 *    eq "…"` for random people. Goal: p95 < 20 ms. The query plan is printed: the lookup must read
 *    the `accounts_username_key` index on lower(username).
 *
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_SERVER=source BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/scim-inbound.bench.ts'
 *
 * BENCH_SCIM_USERS (10 000), BENCH_SCIM_GROUPS (500), BENCH_SCIM_TOTAL (100 000), BENCH_SCIM_LOOKUPS (300).
 */
import pg from 'pg';
import {
  adminWithCompany,
  licenseUsers,
  percentile,
  runOn,
  seedPeople,
  startLicensableServer,
  tenantCall,
} from './lib/org.ts';
import { cpuMeter, describeCpu, saveResult, verdict, waitForQuiet } from './lib/report.ts';
import { envInt, fmt, pool } from './lib/server.ts';

const USERS = envInt('BENCH_SCIM_USERS', 10_000);
const GROUPS = envInt('BENCH_SCIM_GROUPS', 500);
const TOTAL = envInt('BENCH_SCIM_TOTAL', 100_000);
const LOOKUPS = envInt('BENCH_SCIM_LOOKUPS', 300);
const CONCURRENCY = envInt('BENCH_CONNECTIONS', 8);
const CREATE_GOAL_S = 120;
const LOOKUP_GOAL_MS = 20;

async function main() {
  const server = await startLicensableServer();
  if (server.storage !== 'postgres' || !server.stored.database) {
    await server.stop();
    throw new Error('the SCIM benchmark seeds by SQL: run it with BENCH_DATABASE_URL (PostgreSQL)');
  }
  const databaseUrl = server.stored.database.url;
  console.log(`scim-inbound benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}`);
  await runOn(server, async () => {
    const tenant = await adminWithCompany(server);
    await licenseUsers(server, tenant, TOTAL + 1000);
    const { secret } = await tenantCall<{ secret: string }>(
      server,
      tenant,
      '/api/v1/manage/company/scim/token/create',
      {
        name: 'Bench',
        expiresInDays: 1,
        groupsAs: 'departments',
      },
    );
    const base = `${server.base}/scim/v2/${tenant.companyId}`;
    const scim = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/scim+json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (await response.json()) as Record<string, unknown>;
      if (response.status >= 300)
        throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const userName = (i: number) => `scim.user.${String(i).padStart(6, '0')}`;

    await waitForQuiet(30_000);
    const meter = cpuMeter(server.pid, { postgresDatabase: new URL(databaseUrl).pathname.slice(1) });
    const started = performance.now();
    const ids: string[] = new Array(USERS);
    await pool(USERS, CONCURRENCY, 3_600_000, async (i) => {
      const probe = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName(i)}"`)}`);
      if (probe.totalResults !== 0) throw new Error('probe found someone');
      const created = await scim('POST', '/Users', {
        schemas: [
          'urn:ietf:params:scim:schemas:core:2.0:User',
          'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
        ],
        externalId: `ext-${i}`,
        userName: userName(i),
        active: true,
        displayName: `SCIM User ${i}`,
        name: { givenName: 'SCIM', familyName: `User ${i}` },
        emails: [{ primary: true, type: 'work', value: `${userName(i)}@example.com` }],
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': {
          employeeNumber: String(i),
          department: `Dept ${i % GROUPS}`,
        },
      });
      ids[i] = created.id as string;
    });
    const usersMs = performance.now() - started;
    console.log(
      `${USERS} users: ${fmt(usersMs / 1000, 1)} s (${fmt((USERS * 1000) / usersMs, 0)}/s, with the probe before each)`,
    );
    const groupsStarted = performance.now();
    await pool(GROUPS, CONCURRENCY, 3_600_000, async (g) => {
      const group = await scim('POST', '/Groups', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
        externalId: `grp-${g}`,
        displayName: `Group ${g}`,
      });
      const members = ids
        .filter((_, i) => i % GROUPS === g)
        .slice(0, 20)
        .map((value) => ({ value }));
      await scim('PATCH', `/Groups/${group.id}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Add', path: 'members', value: members }],
      });
    });
    const groupsMs = performance.now() - groupsStarted;
    const createCpu = meter.stop();
    const createS = (performance.now() - started) / 1000;
    console.log(`${GROUPS} groups with 20 members each: ${fmt(groupsMs / 1000, 1)} s`);
    console.log(
      `create total ${fmt(createS, 1)} s, goal < ${CREATE_GOAL_S} s: ${verdict(createS < CREATE_GOAL_S)}`,
    );
    console.log(`  ${describeCpu(createCpu)}`);

    const tree = await tenantCall<{ tree: { departmentId: string } }>(
      server,
      tenant,
      '/api/v1/manage/department/tree',
      {},
    );
    const seeded = TOTAL - USERS - 1;
    const seedMs = await seedPeople(databaseUrl, tenant.companyId, tree.tree.departmentId, seeded);
    console.log(`seeded ${seeded} more people by SQL in ${fmt(seedMs / 1000, 1)} s (with analyze)`);

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const plan = await client.query(
      `explain select a.id from company_members m join accounts a on a.id = m.account_id
        left join scim_users s on s.company_id = m.company_id and s.account_id = m.account_id
        where m.company_id = $1 and lower(a.username) = $2`,
      [tenant.companyId, 'user000042'],
    );
    await client.end();
    const planText = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    console.log(planText);

    await waitForQuiet(30_000);
    const names = Array.from({ length: LOOKUPS }, (_, i) =>
      i % 2 ? userName((i * 7919) % USERS) : `user${String(1 + ((i * 104_729) % seeded)).padStart(6, '0')}`,
    );
    const timings: number[] = [];
    for (const [i, name] of names.entries()) {
      const t0 = performance.now();
      const found = await scim(
        'GET',
        `/Users?filter=${encodeURIComponent(`userName eq "${name}"`)}&startIndex=1&count=100`,
      );
      const ms = performance.now() - t0;
      if (found.totalResults !== 1) throw new Error(`${name}: ${found.totalResults} found`);
      if (i >= 10) timings.push(ms);
    }
    const p50 = percentile(timings, 50);
    const p95 = percentile(timings, 95);
    console.log(
      `userName eq at ${TOTAL} people: p50 ${fmt(p50, 1)} ms, p95 ${fmt(p95, 1)} ms, goal p95 < ${LOOKUP_GOAL_MS} ms: ${verdict(p95 < LOOKUP_GOAL_MS)}`,
    );

    const saved = await saveResult('scim-inbound', server.storage, {
      users: USERS,
      groups: GROUPS,
      concurrency: CONCURRENCY,
      usersMs,
      groupsMs,
      createS,
      createGoalMet: createS < CREATE_GOAL_S,
      createCpu,
      total: TOTAL,
      lookups: timings.length,
      p50,
      p95,
      lookupGoalMet: p95 < LOOKUP_GOAL_MS,
      plan: planText,
    });
    console.log(`saved ${saved}`);
  });
}

await main();
