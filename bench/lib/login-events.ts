/**
 * Sign-in events of the benchmarks (login_events): seeded by SQL for the log benchmarks, and the
 * company's successes counted for the storm.
 */
import pg from 'pg';

/**
 * Sign-in events seeded straight into login_events by SQL (bench/logs.bench.ts,
 * bench/log-retention.bench.ts): parameters $1 id prefix, $2 company, $3 rows, $4-$6 the client
 * ids of three applications, $7 days. Events spread evenly over the last $7 days, newest first by
 * i: 10 % failures over four causes, PEOPLE people (accounts `<prefix>-u-<n>`), the three
 * applications and Tessera's own clients, places in six countries (China by province), a few marks.
 */

/** People the events name (their accounts are seeded with them). */
export const PEOPLE = 1_000;

/** Events of a company over `days` days, newest first by i. */
export const insertEvents = (table: 'login_events') => `
  insert into ${table} (id, company_id, account_id, identifier, client_id, ip, user_agent, result,
    failure_cause, country, region, city, latitude, longitude, browser, os, marks, created_at)
  select $1 || '-' || i, $2, $1 || '-u-' || (i % ${PEOPLE}), 'person' || (i % ${PEOPLE}),
    (array[$4, $5, $6, 'tessera-console-dev', null])[1 + i % 5],
    '203.0.' || (i % 250) || '.' || (i % 200),
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    case when i % 10 = 1 then 'failure' else 'success' end,
    case when i % 10 = 1 then (array['wrong_password','unknown_account','mfa_failed','account_locked'])[1 + (i / 10) % 4] end,
    (array['CN','CN','CN','US','DE','JP','SG','GB'])[1 + i % 8],
    case when i % 8 < 3 then (array['Beijing','Shanghai','Guangdong','Zhejiang','Sichuan'])[1 + i % 5] else 'Region' end,
    'City', 30.0, 110.0,
    (array['Chrome','Edge','Firefox','Safari'])[1 + i % 4], (array['Windows','macOS','iOS','Android'])[1 + i % 4],
    case when i % 997 = 0 then array['new_country'] when i % 1999 = 0 then array['impossible_travel'] end,
    now() - (i::float8 / $3::int) * $7::int * interval '1 day'
  from generate_series(1, $3::int) i`;

/**
 * The company's successful sign-ins in login_events (PostgreSQL): the storm checks that its log
 * holds exactly one per successful flow.
 */
export async function countSuccessfulSignIns(url: string, companyId: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `select count(*) as n from login_events where company_id = $1 and result = 'success'`,
      [companyId],
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
