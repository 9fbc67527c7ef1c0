/**
 * Outbound provisioning by SCIM (issue 31): a first run of 10 000 people into an empty SCIM
 * service provider built from SCIMMY (packages/server/src/test/scim-peer.ts, in this process, on
 * 127.0.0.1). The people are written straight into the database of a company (an application with
 * default access "allow all" gives it to all of them); the figure is the time from "Run now" to
 * the run's end, plus the preview (the access rule asked for each person) on its own, then a
 * second run that finds nothing to send. Goal: the first run under 120 s.
 *
 *   bash scripts/with-postgres.sh node --conditions=source --import tsx bench/scim-outbound.bench.ts
 *
 * PostgreSQL only: the server is the test harness's (packages/server/src/test/harness.ts), whose
 * PGlite database comes from Vitest's migrated dump.
 *
 * BENCH_SCIM_PEOPLE (10 000) sets the number of people. The server runs in this process (the
 * test harness, jobs run by drain()), so SCIMMY and Tessera share one core's event loop: the
 * figure includes the peer's own work.
 */
import { sql } from 'kysely';
import { call, ownerWithCompany, startTestApp } from '../packages/server/src/test/harness.ts';
import { startScimPeer } from '../packages/server/src/test/scim-peer.ts';
import { machineInfo, saveResult, verdict } from './lib/report.ts';
import { envInt, fmt } from './lib/server.ts';

const PEOPLE = envInt('BENCH_SCIM_PEOPLE', 10_000);
const GOAL_SECONDS = 120;

async function main() {
  if (!process.env.TESSERA_TEST_DATABASE_URL)
    throw new Error('run under scripts/with-postgres.sh (see the header)');
  const ctx = await startTestApp({ jobs: { run: false } });
  const peer = await startScimPeer();
  try {
    const owner = await ownerWithCompany(ctx, 'scim-bench-owner');
    const as = { token: owner.token, companyId: owner.companyId };
    const api = async <T>(path: string, body: unknown) => {
      const answer = await call<T>(ctx, path, body, as);
      if (answer.code !== 200) throw new Error(`${path}: ${answer.code} ${answer.msg}`);
      return answer.data;
    };
    const { db } = ctx.database;
    await sql`
      insert into accounts (id, username, email, display_name, password_hash, status, password_changed_at, home_company_id)
      select gen_random_uuid()::text, 'bench' || i, 'bench' || i || '@corp.example', 'Bench Person ' || i,
        'not-a-hash', 'enabled', now(), ${owner.companyId}
      from generate_series(1, ${PEOPLE}) as i`.execute(db);
    await sql`
      insert into company_members (company_id, account_id, role, created_at, updated_at)
      select ${owner.companyId}, id, 'member', now(), now() from accounts
      where home_company_id = ${owner.companyId} and username like 'bench%'`.execute(db);

    const { app } = await api<{ app: { appId: string } }>('/api/v1/manage/app/create', {
      name: 'Bench Wiki',
    });
    await api('/api/v1/manage/app/update', { appId: app.appId, redirectUris: ['https://wiki.example/cb'] });
    await api('/api/v1/manage/app/status', { appId: app.appId, status: 'opened' });
    await api('/api/v1/manage/app/provisioning/update', {
      appId: app.appId,
      baseUrl: peer.baseUrl,
      token: peer.token,
      userNameFrom: 'username',
      attributes: ['name', 'emails'],
      lifecycle: 'full',
      onLoss: 'deactivate',
      enabled: true,
    });

    let started = performance.now();
    const preview = await api<{ counts: Record<string, number> }>('/api/v1/manage/app/provisioning/preview', {
      appId: app.appId,
    });
    const previewSeconds = (performance.now() - started) / 1000;

    /** Run now, then every due job; the run's own start and end as recorded, and the wall time around it. */
    const timedRun = async () => {
      started = performance.now();
      const queued = await api<{ runId: string }>('/api/v1/manage/app/provisioning/run', {
        appId: app.appId,
      });
      await ctx.tessera.jobs.drain();
      const seconds = (performance.now() - started) / 1000;
      const runs = await api<{
        list: {
          runId: string;
          status: string;
          startedAt: string;
          finishedAt: string;
          counts: Record<string, number>;
        }[];
      }>('/api/v1/manage/app/provisioning/runs', { appId: app.appId, pageSize: 10 });
      const run = runs.list.find((each) => each.runId === queued.runId);
      if (!run) throw new Error('the run is not recorded');
      const runSeconds = (Date.parse(run.finishedAt) - Date.parse(run.startedAt)) / 1000;
      return { seconds, runSeconds, run, otherRuns: runs.list.length };
    };
    const first = await timedRun();
    const second = await timedRun();

    const result = {
      machine: machineInfo(),
      storage: ctx.database.kind,
      people: PEOPLE,
      remoteUsers: peer.users.size,
      previewSeconds,
      previewCounts: preview.counts,
      first,
      second,
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(
      `${ctx.database.kind}: preview of ${PEOPLE} ${fmt(previewSeconds)} s; first run ${fmt(first.runSeconds)} s ` +
        `(${first.run.status}, ${JSON.stringify(first.run.counts)}) ${verdict(first.runSeconds < GOAL_SECONDS)}; ` +
        `second run ${fmt(second.runSeconds)} s (${JSON.stringify(second.run.counts)})`,
    );
    console.log(`saved ${await saveResult('scim-outbound', ctx.database.kind, result)}`);
  } finally {
    await peer.close();
    await ctx.close();
  }
}

await main();
