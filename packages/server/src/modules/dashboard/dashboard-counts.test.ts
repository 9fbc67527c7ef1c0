import { type DashboardWindow, dashboardWindowDays } from '@tessera/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/database.ts';
import { type Migration, migrations } from '../../db/migrations.ts';
import { newId } from '../../lib/ids.ts';
import { call, createAccount, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { insertLoginEvent } from '../signin/login-events.repo.ts';
import { recordFailure } from '../signin/signin-throttle.ts';

/**
 * Issue 16 (dashboard speed): the dashboard sums counts kept per company and quarter of an hour
 * (migration 21). For random sign-ins around the days' edges of whole-, half- and quarter-hour
 * time zones, every figure from the counts equals the figure computed from login_events.
 */
let ctx: TestContext;
let db: Db;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let other: Awaited<ReturnType<typeof ownerWithCompany>>;
let people: string[];
let clients: (string | null)[];
const seed = Number(process.env.DASHBOARD_COUNTS_SEED ?? Date.now() % 1_000_000);
const asOwner = { token: () => owner.token, companyId: () => owner.companyId };
const MINUTE = 60_000;
const DAY = 86_400_000;

/** A small seeded generator (mulberry32), so that a failure can be replayed with its seed. */
function generator(start: number) {
  let state = start;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
const random = generator(seed);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;

function randomEvent(at: Date) {
  const result = random() < 0.7 ? ('success' as const) : ('failure' as const);
  const country = pick(['CN', 'CN', 'CN', 'US', 'HK', 'TW', 'MO', 'IN', null]);
  return {
    id: newId(),
    company_id: random() < 0.9 ? owner.companyId : pick([other.companyId, null]),
    account_id: pick([...people, null]),
    identifier: 'someone',
    client_id: pick(clients),
    ip: null,
    user_agent: null,
    result,
    failure_cause:
      result === 'failure'
        ? pick(['wrong_password', 'account_locked', 'mfa_failed', 'throttled', null])
        : null,
    country,
    region: country === 'CN' ? pick(['Beijing', 'Shanghai', 'Sichuan', null]) : country ? 'Somewhere' : null,
    marks: pick([
      null,
      null,
      null,
      ['new_country'],
      ['impossible_travel'],
      ['new_country', 'impossible_travel'],
    ]),
    created_at: at,
  };
}

/** Instants of the last 32 days: random ones, and the quarters (± 1 ms) where days of some zone begin. */
function instants(now: number): Date[] {
  const times: number[] = [];
  for (let i = 0; i < 500; i++) times.push(now - random() * 32 * DAY);
  const midnightUtc = Math.floor(now / DAY) * DAY;
  for (let day = 0; day < 32; day++)
    for (const minutes of [18 * 60 + 30, 18 * 60 + 15, 2 * 60 + 30, 3 * 60 + 30, 16 * 60, 11 * 60 + 15])
      for (const ms of [-1, 0, 1]) times.push(midnightUtc - day * DAY + minutes * MINUTE + ms);
  return times.filter((t) => t < now - MINUTE).map((t) => new Date(t));
}

beforeAll(async () => {
  ctx = await startTestApp({ jobs: { run: false } });
  db = ctx.database.db;
  owner = await ownerWithCompany(ctx, 'counts-owner', 'Counts Works');
  other = await ownerWithCompany(ctx, 'counts-other', 'Other Counts');
  people = [owner.account.id];
  for (const name of ['ann', 'ben', 'cat'])
    people.push((await createAccount(ctx, { username: `counts-${name}` })).id);
  clients = [null, 'tessera-console', 'an-unknown-client'];
  for (const name of ['Mail', 'Wiki', 'CRM']) {
    const created = await call<{ app: { clientId: string } }>(
      ctx,
      '/api/v1/manage/app/create',
      { name },
      { token: owner.token, companyId: owner.companyId },
    );
    clients.push(created.data.app.clientId);
  }
  const events = instants(Date.now()).map(randomEvent);
  // Many rows in a statement (a bulk insert is summed once), and single rows.
  for (let i = 0; i < events.length - 40; i += 100)
    await db
      .insertInto('login_events')
      .values(events.slice(i, Math.min(i + 100, events.length - 40)))
      .execute();
  for (const row of events.slice(-40)) await db.insertInto('login_events').values(row).execute();
  // The sign-in paths: an event alone, and one inside the statement that counts a wrong password.
  const now = {
    companyId: owner.companyId,
    identifier: 'ann',
    clientId: clients[3] ?? null,
    ip: '114.114.114.114',
    userAgent: null,
  };
  await insertLoginEvent(db, { ...now, accountId: people[1] ?? null, result: 'success', failureCause: null });
  await recordFailure(
    db,
    { kind: 'unknown', identifier: 'nobody-here', lockout: { threshold: 5, minutes: 5 } },
    { ...now, accountId: null, result: 'failure', failureCause: 'unknown_account' },
  );
});
afterAll(() => ctx.close());

const ask = async <T>(path: string, body: Record<string, unknown>) => {
  const answer = await call<T>(ctx, `/api/v1/manage/index/${path}`, body, {
    token: asOwner.token(),
    companyId: asOwner.companyId(),
  });
  if (answer.code !== 200) throw new Error(`${path}: ${answer.msg}`);
  return answer.data;
};

/** The reference: the window's events of the company, read from login_events. */
const eventsSince = (from: string) =>
  sql`login_events e where e.company_id = ${owner.companyId} and e.created_at >= ${from}`;
const localDay = (timeZone: string) => sql`to_char(e.created_at at time zone ${timeZone}, 'YYYY-MM-DD')`;

async function reference<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return (await query.execute(db)).rows as T[];
}

const zones = ['UTC', 'Asia/Shanghai', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns', 'Europe/Berlin'];
const windows = Object.keys(dashboardWindowDays) as DashboardWindow[];

describe('dashboard figures from the counts', () => {
  it('equal the events: sign-ins per day in every time zone and window', async () => {
    for (const timeZone of zones)
      for (const window of windows) {
        const trend = await ask<{ from: string; days: { day: string; success: number; failure: number }[] }>(
          'user-login-trend',
          { window, timeZone },
        );
        const rows = await reference<{ day: string; success: number; failure: number }>(sql`
          select ${localDay(timeZone)} as day, count(*) filter (where result = 'success')::int as success,
                 count(*) filter (where result = 'failure')::int as failure
            from ${eventsSince(trend.from)} group by 1`);
        const expected = new Map(rows.map((row) => [row.day, row]));
        expect(trend.days, `${timeZone} ${window} seed ${seed}`).toEqual(
          trend.days.map(({ day }) => ({ day, success: 0, failure: 0, ...expected.get(day) })),
        );
        expect(trend.days).toHaveLength(dashboardWindowDays[window]);
        expect([...expected.keys()].every((day) => trend.days.some((d) => d.day === day))).toBe(true);
      }
  });

  it('equal the events: applications, their share and trend', async () => {
    for (const timeZone of zones)
      for (const window of windows) {
        const ratio = await ask<{
          from: string;
          total: number;
          list: { appId: string; name: string; count: number }[];
          others: number;
        }>('app-login-count-ratio', { window, timeZone });
        const perApp = await reference<{ appId: string; name: string; count: number }>(sql`
          select p.id as "appId", p.name, count(*)::int as count
            from login_events e join apps p on p.client_id = e.client_id and p.company_id = e.company_id
           where e.company_id = ${owner.companyId} and e.created_at >= ${ratio.from} and e.result = 'success'
           group by p.id, p.name order by 3 desc, 2`);
        const label = `${timeZone} ${window} seed ${seed}`;
        expect(
          ratio.list.map(({ appId, name, count }) => ({ appId, name, count })),
          label,
        ).toEqual(perApp);
        expect(ratio.total + 0, label).toBe(perApp.reduce((sum, app) => sum + app.count, 0));
        const count = await ask<{ signIns: number; top: unknown[] }>('app-login-count', { window, timeZone });
        expect(count.top, label).toEqual(perApp.slice(0, 3));
        expect(count.signIns, label).toBe(ratio.total);

        const trend = await ask<{ apps: { appId: string }[]; days: { day: string; counts: number[] }[] }>(
          'app-login-trend',
          { window, timeZone },
        );
        expect(trend.apps.map((app) => app.appId)).toEqual(perApp.map((app) => app.appId));
        const daily = await reference<{ day: string; appId: string; count: number }>(sql`
          select ${localDay(timeZone)} as day, p.id as "appId", count(*)::int as count
            from login_events e join apps p on p.client_id = e.client_id and p.company_id = e.company_id
           where e.company_id = ${owner.companyId} and e.created_at >= ${ratio.from} and e.result = 'success'
           group by 1, 2`);
        const of = new Map(daily.map((row) => [`${row.day} ${row.appId}`, row.count]));
        expect(trend.days, label).toEqual(
          trend.days.map(({ day }) => ({
            day,
            counts: trend.apps.map((app) => of.get(`${day} ${app.appId}`) ?? 0),
          })),
        );
        expect(daily.every((row) => trend.days.some((d) => d.day === row.day))).toBe(true);
      }
  });

  it('equal the events: failures by day and cause', async () => {
    for (const timeZone of zones)
      for (const window of windows) {
        const trend = await ask<{
          from: string;
          causes: { cause: string; count: number }[];
          days: { day: string; total: number; byCause: Record<string, number> }[];
        }>('fail-trend', { window, timeZone });
        const rows = await reference<{ day: string; cause: string; count: number }>(sql`
          select ${localDay(timeZone)} as day, coalesce(failure_cause, 'unknown') as cause, count(*)::int as count
            from ${eventsSince(trend.from)} and result = 'failure' group by 1, 2`);
        const label = `${timeZone} ${window} seed ${seed}`;
        const perCause = new Map<string, number>();
        for (const row of rows) perCause.set(row.cause, (perCause.get(row.cause) ?? 0) + row.count);
        expect(
          trend.causes.map(({ cause, count }) => ({ cause, count })),
          label,
        ).toEqual(
          [...perCause.entries()]
            .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
            .map(([cause, count]) => ({ cause, count })),
        );
        expect(trend.days, label).toEqual(
          trend.days.map(({ day }) => {
            const ofDay = rows.filter((row) => row.day === day);
            return {
              day,
              total: ofDay.reduce((sum, row) => sum + row.count, 0),
              byCause: Object.fromEntries(ofDay.map((row) => [row.cause, row.count])),
            };
          }),
        );
        expect(rows.every((row) => trend.days.some((d) => d.day === row.day))).toBe(true);
      }
  });

  it('equal the events: the hotspot map of the world and of China', async () => {
    const keys = {
      world: sql`country`,
      china: sql`case country when 'CN' then region when 'HK' then 'Hong Kong' when 'MO' then 'Macao' else 'Taiwan' end`,
    };
    for (const timeZone of zones)
      for (const window of windows)
        for (const scope of ['world', 'china'] as const) {
          const map = await ask<{ from: string; list: { key: string }[]; unplaced: number }>(
            'login-hotspot',
            {
              window,
              timeZone,
              scope,
            },
          );
          const rows = await reference<{
            key: string | null;
            count: number;
            newCountry: number;
            impossibleTravel: number;
          }>(sql`
            select ${keys[scope]} as key, count(*)::int as count,
                   count(*) filter (where marks @> array['new_country'])::int as "newCountry",
                   count(*) filter (where marks @> array['impossible_travel'])::int as "impossibleTravel"
              from ${eventsSince(map.from)}
               ${scope === 'china' ? sql`and country in ('CN', 'HK', 'MO', 'TW')` : sql``}
             group by 1 order by 2 desc, 1`);
          const label = `${timeZone} ${window} ${scope} seed ${seed}`;
          expect(map.list, label).toEqual(rows.filter((row) => row.key !== null));
          expect(map.unplaced, label).toBe(rows.find((row) => row.key === null)?.count ?? 0);
        }
  });

  it('equal the events: people active in the last 7 days', async () => {
    const overview = await ask<{ activeLast7Days: number }>('user-data-overview', {});
    const [row] = await reference<{ active: number }>(sql`
      select count(distinct account_id)::int as active from login_events
       where company_id = ${owner.companyId} and result = 'success' and created_at >= now() - interval '7 days'`);
    expect(overview.activeLast7Days, `seed ${seed}`).toBe(row?.active);
    expect(row?.active).toBeGreaterThan(1);
  });
});

/** Every count, as kept, and as computed from login_events (of the companies that exist). */
async function countsAndEvents(database: Db) {
  const bucket = sql`date_bin('15 minutes', e.created_at, timestamptz '2000-01-01 00:00:00+00')`;
  const rows = (query: ReturnType<typeof sql>) => query.execute(database).then((result) => result.rows);
  return {
    kept: await Promise.all([
      rows(
        sql`select company_id, bucket, result, cause, client_id, count from sign_in_counts order by 1, 2, 3, 4, 5`,
      ),
      rows(sql`select company_id, bucket, country, region, count, new_country, impossible_travel
                 from sign_in_place_counts order by 1, 2, 3, 4`),
      rows(sql`select company_id, account_id, last_success_at from sign_in_people order by 1, 2`),
    ]),
    computed: await Promise.all([
      rows(sql`select e.company_id, ${bucket} as bucket, e.result, coalesce(e.failure_cause, '') as cause,
                      coalesce(e.client_id, '') as client_id, count(*)::int as count
                 from login_events e join companies c on c.id = e.company_id
                group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`),
      rows(sql`select e.company_id, ${bucket} as bucket, coalesce(e.country, '') as country,
                      case when e.country = 'CN' then coalesce(e.region, '') else '' end as region, count(*)::int as count,
                      count(*) filter (where e.marks @> array['new_country'])::int as new_country,
                      count(*) filter (where e.marks @> array['impossible_travel'])::int as impossible_travel
                 from login_events e join companies c on c.id = e.company_id
                group by 1, 2, 3, 4 order by 1, 2, 3, 4`),
      rows(sql`select e.company_id, e.account_id, max(e.created_at) as last_success_at
                 from login_events e join companies c on c.id = e.company_id
                where e.result = 'success' and e.account_id is not null group by 1, 2 order by 1, 2`),
    ]),
  };
}

describe('the counts are kept', () => {
  it('for every event of a company, and go when the retention or the company does', async () => {
    const before = await countsAndEvents(db);
    expect(before.kept).toEqual(before.computed);
    expect(before.kept.map((rows) => rows.length > 20)).toEqual([true, true, false]);

    // A company's counts go with it.
    const gone = newId();
    await db
      .insertInto('companies')
      .values({
        id: gone,
        name: 'Gone Ltd',
        client_key: newId(),
        default_language: 'en',
        owner_account_id: other.account.id,
      })
      .execute();
    await insertLoginEvent(db, {
      companyId: gone,
      accountId: other.account.id,
      identifier: 'gone',
      clientId: null,
      ip: '81.2.69.142',
      userAgent: null,
      result: 'success',
      failureCause: null,
    });
    const of = (table: 'sign_in_counts' | 'sign_in_place_counts' | 'sign_in_people') =>
      db.selectFrom(table).select('company_id').where('company_id', '=', gone).execute();
    expect((await of('sign_in_place_counts')).length).toBe(1);
    await db.deleteFrom('companies').where('id', '=', gone).execute();
    for (const table of ['sign_in_counts', 'sign_in_place_counts', 'sign_in_people'] as const)
      expect(await of(table)).toEqual([]);

    // Retention: quarters that ended before the cutoff, and people not seen since, are deleted.
    const update = await call(
      ctx,
      '/api/v1/manage/log/settings/update',
      { retentionDays: 5 },
      { token: owner.token, companyId: owner.companyId },
    );
    expect(update.code).toBe(200);
    await ctx.tessera.jobs.runSoon('log.purge');
    await ctx.tessera.jobs.drain();
    const cutoff = new Date(Date.now() - 5 * DAY);
    for (const table of ['sign_in_counts', 'sign_in_place_counts'] as const) {
      const old = await db
        .selectFrom(table)
        .select('bucket')
        .where('company_id', '=', owner.companyId)
        .where('bucket', '<', new Date(cutoff.getTime() - 16 * MINUTE))
        .execute();
      expect(old).toEqual([]);
    }
    const stale = await db
      .selectFrom('sign_in_people')
      .select('account_id')
      .where('company_id', '=', owner.companyId)
      .where('last_success_at', '<', cutoff)
      .execute();
    expect(stale).toEqual([]);
    // Another company keeps its counts.
    expect(
      await db
        .selectFrom('sign_in_counts')
        .select('bucket')
        .where('company_id', '=', other.companyId)
        .execute(),
    ).not.toEqual([]);
    // The last three days are whole, and equal the events still kept.
    const trend = await ask<{ from: string; days: { success: number; failure: number }[] }>(
      'user-login-trend',
      {
        window: 'three_days',
        timeZone: 'Asia/Kolkata',
      },
    );
    const [left] = await reference<{ count: number }>(
      sql`select count(*)::int as count from ${eventsSince(trend.from)}`,
    );
    expect(trend.days.reduce((sum, day) => sum + day.success + day.failure, 0)).toBe(left?.count);
  });

  it('by migration 21 for the events written before it', async () => {
    // The database as it was before migration 21, with events of companies, of none, of a company
    // that does not exist; then the migration.
    await sql`drop table sign_in_counts, sign_in_place_counts, sign_in_people;
      drop function login_events_count cascade`.execute(db);
    await db
      .insertInto('login_events')
      .values({ ...randomEvent(new Date()), company_id: 'no-such-company' })
      .execute();
    await sql.raw((migrations.find((m) => m.id === 21) as Migration).sql).execute(db);
    const after = await countsAndEvents(db);
    expect(after.kept).toEqual(after.computed);
    expect(after.kept.map((rows) => rows.length > 0)).toEqual([true, true, true]);
  });
});
