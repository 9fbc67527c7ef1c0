import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/**
 * The dashboard's aggregates. The figures of a window are sums of the counts kept per company
 * and quarter of an hour (sign_in_counts, sign_in_place_counts: migration 21), never a scan of
 * the window's events: a month is at most 2 880 quarters whatever the number of sign-ins. Every
 * time zone in use starts its days on a quarter, so summing quarters into the caller's days is
 * exact. What counts cannot answer reads a range that is small by construction: the newest
 * events (a limit on the company/result/time index), the people active in the last 7 days (one
 * row a person in sign_in_people), the company's members and applications.
 * Days are the caller's: `start` is the beginning of the first day in `timeZone`.
 */
export interface Window {
  companyId: string;
  days: number;
  timeZone: string;
}

/** The first instant of the window: midnight (in the time zone) `days - 1` days before today. */
const startOf = (w: Window) =>
  sql<Date>`(date_trunc('day', now() at time zone ${w.timeZone}) - make_interval(days => ${w.days - 1})) at time zone ${w.timeZone}`;

export async function windowBounds(db: Db, w: Window) {
  const result = await sql<{ start: Date; now: Date }>`select ${startOf(w)} as start, now() as now`.execute(
    db,
  );
  const row = result.rows[0] as { start: Date; now: Date };
  return { from: new Date(row.start), to: new Date(row.now) };
}

/** Every day of the window as YYYY-MM-DD in the time zone, oldest first. */
const daysOf = (w: Window) => sql`
  select to_char(d, 'YYYY-MM-DD') as day
    from generate_series(date_trunc('day', now() at time zone ${w.timeZone}) - make_interval(days => ${w.days - 1}),
                         date_trunc('day', now() at time zone ${w.timeZone}), interval '1 day') d`;

/** The day (in the time zone) of a quarter. */
const dayOf = (w: Window) => sql`to_char(bucket at time zone ${w.timeZone}, 'YYYY-MM-DD')`;

/** The company's counts of the window. */
const countsOf = (w: Window) => sql`company_id = ${w.companyId} and bucket >= ${startOf(w)}`;

export async function loginTrend(db: Db, w: Window) {
  // Quarters are summed first (in key order, off the primary key), then turned into days.
  const result = await sql<{ day: string; success: string; failure: string }>`
    with ev as (
      select ${dayOf(w)} as day, sum(success) as success, sum(failure) as failure
        from (select bucket,
                     sum(count) filter (where result = 'success') as success,
                     sum(count) filter (where result = 'failure') as failure
                from sign_in_counts
               where ${countsOf(w)}
               group by bucket) quarters
       group by 1)
    select days.day, coalesce(ev.success, 0) as success, coalesce(ev.failure, 0) as failure
      from (${daysOf(w)}) days left join ev on ev.day = days.day
     order by days.day`.execute(db);
  return result.rows.map((row) => ({
    day: row.day,
    success: Number(row.success),
    failure: Number(row.failure),
  }));
}

/** Successful sign-ins per application (client) of the company in the window, most first. */
export async function signInsPerApp(db: Db, w: Window) {
  const result = await sql<{ app_id: string; name: string; count: string }>`
    select p.id as app_id, p.name, ev.count
      from (select client_id, sum(count) as count
              from sign_in_counts
             where ${countsOf(w)} and result = 'success' and client_id <> ''
             group by client_id) ev
      join apps p on p.client_id = ev.client_id and p.company_id = ${w.companyId}
     order by ev.count desc, p.name`.execute(db);
  return result.rows.map((row) => ({ appId: row.app_id, name: row.name, count: Number(row.count) }));
}

export async function appTrend(db: Db, w: Window, clientIds: string[]) {
  if (!clientIds.length) return [];
  const result = await sql<{ day: string; client_id: string; count: string }>`
    select ${dayOf(w)} as day, client_id, sum(count) as count
      from sign_in_counts
     where ${countsOf(w)} and result = 'success' and client_id = any(${clientIds}::text[])
     group by 1, 2`.execute(db);
  return result.rows.map((row) => ({ day: row.day, clientId: row.client_id, count: Number(row.count) }));
}

export async function dayList(db: Db, w: Window): Promise<string[]> {
  return (await sql<{ day: string }>`${daysOf(w)}`.execute(db)).rows.map((row) => row.day);
}

export async function failuresPerDayAndCause(db: Db, w: Window) {
  const result = await sql<{ day: string; cause: string; count: string }>`
    select ${dayOf(w)} as day, coalesce(nullif(cause, ''), 'unknown') as cause, sum(count) as count
      from sign_in_counts
     where ${countsOf(w)} and result = 'failure'
     group by 1, 2`.execute(db);
  return result.rows.map((row) => ({ day: row.day, cause: row.cause, count: Number(row.count) }));
}

/**
 * Sign-ins by country, or by province of China (with Hong Kong, Macao and Taiwan, which geo-IP
 * databases list as countries), with their marks; most first.
 */
export async function hotspots(db: Db, w: Window, scope: 'world' | 'china') {
  const key =
    scope === 'world'
      ? sql`nullif(country, '')`
      : sql`case country when 'CN' then nullif(region, '') when 'HK' then 'Hong Kong' when 'MO' then 'Macao' else 'Taiwan' end`;
  const result = await sql<{ key: string | null; count: string; new_country: string; impossible: string }>`
    select ${key} as key, sum(count) as count, sum(new_country) as new_country,
           sum(impossible_travel) as impossible
      from sign_in_place_counts
     where ${countsOf(w)}
       ${scope === 'china' ? sql`and country in ('CN', 'HK', 'MO', 'TW')` : sql``}
     group by 1
     order by 2 desc, 1`.execute(db);
  return result.rows.map((row) => ({
    key: row.key,
    count: Number(row.count),
    newCountry: Number(row.new_country),
    impossibleTravel: Number(row.impossible),
  }));
}

/** The newest sign-ins of one result in the window. */
export function recentSignIns(db: Db, w: Window, result: 'success' | 'failure', limit: number) {
  return db
    .selectFrom('login_events as e')
    .leftJoin('accounts as a', 'a.id', 'e.account_id')
    .leftJoin('apps as p', (join) =>
      join.onRef('p.client_id', '=', 'e.client_id').on('p.company_id', '=', w.companyId),
    )
    .select([
      'e.id',
      'e.created_at',
      'e.account_id',
      'a.username',
      'e.identifier',
      'p.name as app_name',
      'e.failure_cause',
      'e.ip',
      'e.country',
      'e.region',
      'e.city',
      'e.marks',
    ])
    .where('e.company_id', '=', w.companyId)
    .where('e.result', '=', result)
    .where('e.created_at', '>=', startOf(w))
    .orderBy('e.created_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(limit)
    .execute();
}

export async function userCounts(db: Db, companyId: string) {
  const result = await sql<{
    total: string;
    enabled: string;
    disabled: string;
    locked: string;
    administrators: string;
    recent: string;
    active: string;
  }>`
    select count(*) as total,
           count(*) filter (where status = 'enabled') as enabled,
           count(*) filter (where status = 'disabled') as disabled,
           count(*) filter (where status = 'locked') as locked,
           count(*) filter (where role <> 'member') as administrators,
           count(*) filter (where created_at >= now() - interval '7 days') as recent,
           (select count(*) from sign_in_people
             where company_id = ${companyId} and last_success_at >= now() - interval '7 days') as active
      from company_members where company_id = ${companyId}`.execute(db);
  const row = result.rows[0];
  return {
    total: Number(row?.total ?? 0),
    enabled: Number(row?.enabled ?? 0),
    disabled: Number(row?.disabled ?? 0),
    locked: Number(row?.locked ?? 0),
    administrators: Number(row?.administrators ?? 0),
    newLast7Days: Number(row?.recent ?? 0),
    activeLast7Days: Number(row?.active ?? 0),
  };
}

export async function mfaCounts(db: Db, companyId: string) {
  const result = await sql<{ type: string | null; users: string }>`
    select f.type, count(distinct m.account_id) as users
      from company_members m
      join mfa_factors f on f.account_id = m.account_id and f.status = 'bound'
     where m.company_id = ${companyId}
     group by rollup (f.type)`.execute(db);
  const total = await sql<{ users: string }>`
    select count(*) as users from company_members where company_id = ${companyId}`.execute(db);
  const withFactor = Number(result.rows.find((row) => row.type === null)?.users ?? 0);
  return {
    users: Number(total.rows[0]?.users ?? 0),
    withFactor,
    byType: result.rows
      .filter((row) => row.type !== null)
      .map((row) => ({ type: row.type as string, users: Number(row.users) }))
      .sort((a, b) => b.users - a.users),
  };
}

export async function appCounts(db: Db, companyId: string) {
  const result = await sql<{ total: string; opened: string; disabled: string; configuring: string }>`
    select count(*) as total,
           count(*) filter (where status = 'opened') as opened,
           count(*) filter (where status = 'disabled') as disabled,
           count(*) filter (where status = 'to_be_configured') as configuring
      from apps where company_id = ${companyId}`.execute(db);
  const row = result.rows[0];
  return {
    total: Number(row?.total ?? 0),
    opened: Number(row?.opened ?? 0),
    disabled: Number(row?.disabled ?? 0),
    toBeConfigured: Number(row?.configuring ?? 0),
  };
}

export function recentAlerts(db: Db, companyId: string) {
  return db
    .selectFrom('log_alerts as l')
    .leftJoin('accounts as a', 'a.id', 'l.account_id')
    .select([
      'l.id',
      'l.created_at',
      'l.cause',
      'a.username',
      'l.identifier',
      'l.count',
      'l.threshold',
      'l.window_minutes',
    ])
    .where('l.company_id', '=', companyId)
    .where('l.created_at', '>=', sql<Date>`now() - interval '24 hours'`)
    .orderBy('l.created_at', 'desc')
    .limit(20)
    .execute();
}
