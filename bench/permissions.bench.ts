/**
 * Permission decisions (issue 15) for a company of 100 000 people, 1 000 roles and 10 000
 * authorizations (PostgreSQL only: the model is seeded by SQL). Goals: one decision p99 <= 2 ms
 * in the server, >= 3 000 decisions/s through the HTTP API with 2 cores.
 *
 * 1. In the server's own code (the decision service and its cache, connected to the same
 *    database, in this process): the first load of the company's policy; decisions of people
 *    seen before (cache warm) and of people never seen (their roles and departments read from
 *    the database), each timed alone.
 * 2. Over HTTP: `POST /api/v1/app/permission/check` with the application's client id and secret
 *    (HTTP Basic), a random person, resource and action per request, with autocannon; and
 *    `check-many` with 20 questions per request.
 *
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/permissions.bench.ts'
 */
import { join } from 'node:path';
import pg from 'pg';
import { openPostgres } from '../packages/server/src/db/database.ts';
import { createSealer, loadMasterKey } from '../packages/server/src/lib/crypto.ts';
import { type PairwiseSubjects, pairwiseSubjects } from '../packages/server/src/modules/oidc/subject.ts';
import { createDecisionService } from '../packages/server/src/modules/permission/decision.service.ts';
import { createPermissionCache } from '../packages/server/src/modules/permission/policy-cache.ts';
import { describeLoad, runLoad } from './lib/load.ts';
import { adminWithCompany, percentile, runOn, seedPeople, tenantCall } from './lib/org.ts';
import { saveResult, verdict, waitForQuiet } from './lib/report.ts';
import { envInt, fmt, startServer } from './lib/server.ts';

const USERS = envInt('BENCH_PERM_USERS', 100_000);
const ROLES = envInt('BENCH_PERM_ROLES', 1_000);
const AUTHORIZATIONS = envInt('BENCH_PERM_AUTHORIZATIONS', 10_000);
const RESOURCES = envInt('BENCH_PERM_RESOURCES', 200);
const DECISIONS = envInt('BENCH_PERM_DECISIONS', 20_000);
const SECONDS = envInt('BENCH_LOAD_SECONDS', 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '16,64').split(',').map(Number);
const ACTIONS = ['read', 'write', 'delete', 'export', 'approve'];
const P99_GOAL_MS = 2;
const RATE_GOAL = 3_000;

/**
 * The model: resources with five actions each; every person in two roles; authorizations 60 %
 * of roles, 20 % of departments (a division or a team), 20 % of people; one in ten rejects; one
 * to three specific resources, actions all or one or two; one in twenty limited to an address
 * range, one in twenty to office hours.
 */
async function seedPermissions(url: string, companyId: string, appId: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    await client.query('begin');
    await client.query(
      `insert into permission_resources (id, company_id, app_id, name, type, actions)
       select 'bench-r-' || i, $1, $2, 'resource-' || i, 'api', $3::jsonb from generate_series(1, $4::int) i`,
      [companyId, appId, JSON.stringify(ACTIONS), RESOURCES],
    );
    await client.query(
      `insert into permission_roles (id, company_id, name, description)
       select 'bench-role-' || i, $1, 'Role ' || i, 'Benchmark role ' || i from generate_series(1, $2::int) i`,
      [companyId, ROLES],
    );
    await client.query(
      `insert into permission_role_members (role_id, company_id, account_id)
       select 'bench-role-' || (1 + (i * 7 + k * 389) % $3), $1, 'bench-u-' || i
       from generate_series(1, $2::int) i, generate_series(0, 1) k`,
      [companyId, USERS, ROLES],
    );
    await client.query(
      `insert into permission_authorizations (id, company_id, app_id, subject_type, subject_user_id,
         subject_role_id, subject_department_id, effect, resource_scope, action_scope, actions,
         time_windows, time_zone, ip_ranges)
       select 'bench-a-' || i, $1, $2,
         case when i % 5 < 3 then 'role' when i % 5 = 3 then 'department' else 'user' end,
         case when i % 5 = 4 then 'bench-u-' || (1 + (i * 13) % $3) end,
         case when i % 5 < 3 then 'bench-role-' || (1 + i % $4) end,
         case when i % 5 = 3 then
           case when i % 2 = 0 then 'bench-d-' || (1 + i % 10) else 'bench-d-' || (1 + i % 10) || '-' || (1 + (i / 10) % 10) end
         end,
         case when i % 10 = 0 then 'reject' else 'allow' end,
         'specific',
         case when i % 3 = 0 then 'all' else 'specific' end,
         case when i % 3 = 0 then '[]'::jsonb
              when i % 3 = 1 then jsonb_build_array(($6::text[])[1 + i % 5])
              else jsonb_build_array(($6::text[])[1 + i % 5], ($6::text[])[1 + (i + 2) % 5]) end,
         case when i % 20 = 7 then '[{"days":[1,2,3,4,5],"from":"08:00","to":"20:00"}]'::jsonb else '[]'::jsonb end,
         'Asia/Shanghai',
         case when i % 20 = 11 then '["10.0.0.0/8"]'::jsonb else '[]'::jsonb end
       from generate_series(1, $5::int) i`,
      [companyId, appId, USERS, ROLES, AUTHORIZATIONS, ACTIONS],
    );
    await client.query(
      `insert into permission_authorization_resources (authorization_id, company_id, resource_id)
       select distinct 'bench-a-' || i, $1, 'bench-r-' || (1 + (i * 31 + k * 17) % $3)
       from generate_series(1, $2::int) i, generate_series(0, 2) k where k <= i % 3`,
      [companyId, AUTHORIZATIONS, RESOURCES],
    );
    await client.query('commit');
    await client.query('analyze');
    return performance.now() - started;
  } finally {
    await client.end();
  }
}

const pickInt = (n: number) => 1 + Math.floor(Math.random() * n);
/** Applications name people by the `sub` of their ID tokens: the server's, from its master key. */
let subjects: PairwiseSubjects;
let benchCompanyId = '';
const subjectOf = (n: number) => subjects.subjectOf(benchCompanyId, `bench-u-${n}`);
const question = () => ({
  userId: subjectOf(pickInt(USERS)),
  resource: `resource-${pickInt(RESOURCES)}`,
  action: ACTIONS[pickInt(ACTIONS.length) - 1] as string,
  ip: Math.random() < 0.5 ? '10.1.2.3' : '192.0.2.7',
});

/** Part 1: the decision service in this process, against the server's database. */
async function inProcess(url: string, app: { appId: string; companyId: string; clientId: string }) {
  const handle = await openPostgres(url);
  try {
    const cache = createPermissionCache({ db: handle.db, loadCredentials: async () => null });
    const decisions = createDecisionService({
      db: handle.db,
      cache,
      accountOfSubject: subjects.accountOf,
    });
    const caller = { ...app };
    let started = performance.now();
    await decisions.check(caller, question());
    const firstLoadMs = performance.now() - started;
    const time = async (questions: ReturnType<typeof question>[]) => {
      const timings: number[] = [];
      let allowed = 0;
      for (const q of questions) {
        started = performance.now();
        const answer = await decisions.check(caller, q);
        timings.push(performance.now() - started);
        if (answer.allowed) allowed++;
      }
      return {
        p50: percentile(timings, 50),
        p99: percentile(timings, 99),
        max: Math.max(...timings),
        allowedShare: allowed / questions.length,
      };
    };
    // People never seen: each decision reads the person's roles and departments.
    const fresh = Array.from({ length: Math.min(DECISIONS, 5_000) }, (_, i) => ({
      ...question(),
      userId: subjectOf(1 + ((i * 7919) % USERS)),
    }));
    const cold = await time(fresh);
    // The same people again, and others: the people's facts are cached now.
    const warm = await time(
      Array.from({ length: DECISIONS }, (_, i) => ({
        ...question(),
        userId: fresh[i % fresh.length]?.userId ?? '',
      })),
    );
    return { firstLoadMs, cold, warm };
  } finally {
    await handle.close();
  }
}

async function main() {
  const server = await startServer();
  if (server.storage !== 'postgres' || !server.stored.database) {
    await server.stop();
    throw new Error('the permissions benchmark seeds by SQL: run it with BENCH_DATABASE_URL (PostgreSQL)');
  }
  const databaseUrl = server.stored.database.url;
  console.log(`permissions benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}`);
  await runOn(server, async () => {
    const tenant = await adminWithCompany(server);
    const masterKey = await loadMasterKey(undefined, join(server.stored.dir, 'data'));
    subjects = pairwiseSubjects(createSealer(masterKey));
    benchCompanyId = tenant.companyId;
    const tree = await tenantCall<{ tree: { departmentId: string } }>(
      server,
      tenant,
      '/api/v1/manage/department/tree',
      {},
    );
    const peopleMs = await seedPeople(databaseUrl, tenant.companyId, tree.tree.departmentId, USERS);
    const created = await tenantCall<{ app: { appId: string; clientId: string }; clientSecret: string }>(
      server,
      tenant,
      '/api/v1/manage/app/create',
      { name: 'Bench App' },
    );
    const { appId, clientId } = created.app;
    const modelMs = await seedPermissions(databaseUrl, tenant.companyId, appId);
    console.log(
      `seeded ${USERS} people in ${fmt(peopleMs / 1000)} s; ${ROLES} roles (${2 * USERS} memberships), ` +
        `${AUTHORIZATIONS} authorizations, ${RESOURCES} resources in ${fmt(modelMs / 1000)} s`,
    );

    await waitForQuiet(30_000);
    const local = await inProcess(databaseUrl, { appId, companyId: tenant.companyId, clientId });
    const line = (label: string, t: typeof local.warm) =>
      `${label}: p50 ${fmt(t.p50, 3)} ms, p99 ${fmt(t.p99, 3)} ms, max ${fmt(t.max, 1)} ms (${fmt(100 * t.allowedShare)} % allowed)`;
    console.log(`first load of the company's policy: ${fmt(local.firstLoadMs)} ms`);
    console.log(line('one decision, person seen before', local.warm));
    console.log(line('one decision, person never seen (read from the database)', local.cold));
    console.log(
      `p99 goal <= ${P99_GOAL_MS} ms (person seen before): ${verdict(local.warm.p99 <= P99_GOAL_MS)}`,
    );

    const authorization = `Basic ${Buffer.from(`${clientId}:${created.clientSecret}`).toString('base64')}`;
    const headers = { 'content-type': 'application/json', authorization };
    const okDecision = (status: number, body: string) => status === 200 && body.includes('"allowed"');
    const http: Record<string, unknown>[] = [];
    for (const connections of CONNECTIONS) {
      await waitForQuiet(30_000);
      const one = await runLoad(
        server,
        { connections, duration: SECONDS, maxOverallRequests: 200_000 },
        {
          path: '/api/v1/app/permission/check',
          headers,
          body: JSON.stringify(question()),
          setup: (req) => ({ ...req, body: JSON.stringify(question()) }),
          onResponse: okDecision,
        },
      );
      console.log(describeLoad(`check, ${connections} connections`, one));
      await waitForQuiet(30_000);
      const many = await runLoad(
        server,
        { connections, duration: SECONDS, maxOverallRequests: 50_000 },
        {
          path: '/api/v1/app/permission/check-many',
          headers,
          body: JSON.stringify({ checks: Array.from({ length: 20 }, question) }),
          setup: (req) => ({
            ...req,
            body: JSON.stringify({ checks: Array.from({ length: 20 }, question) }),
          }),
          onResponse: okDecision,
        },
      );
      console.log(describeLoad(`check-many (20 each), ${connections} connections`, many));
      console.log(`  = ${fmt(many.perSecond * 20)} decisions/s`);
      http.push({ connections, check: one, checkMany: { ...many, decisionsPerSecond: many.perSecond * 20 } });
    }
    const bestOne = Math.max(...http.map((h) => (h.check as { perSecond: number }).perSecond));
    console.log(
      `decisions/s through check, goal >= ${RATE_GOAL}: ${fmt(bestOne)} ${verdict(bestOne >= RATE_GOAL)}`,
    );
    const saved = await saveResult('permissions', server.storage, {
      users: USERS,
      roles: ROLES,
      authorizations: AUTHORIZATIONS,
      resources: RESOURCES,
      local,
      http,
    });
    console.log(`saved ${saved}`);
  });
}

await main();
