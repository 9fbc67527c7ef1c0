import type { Migration } from '../migrations.ts';

/**
 * Adds the counts of the events in `events` (the trigger's new rows, or every event for the
 * back-fill). Keys are taken in order, so that two bulk inserts cannot deadlock on them.
 */
const fill = (events: string) => `
  insert into sign_in_counts as c (company_id, bucket, result, cause, client_id, count)
  select e.company_id, date_bin('15 minutes', e.created_at, timestamptz '2000-01-01 00:00:00+00'),
         e.result, coalesce(e.failure_cause, ''), coalesce(e.client_id, ''), count(*)
    from ${events} e join companies co on co.id = e.company_id
   group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
  on conflict (company_id, bucket, result, cause, client_id) do update set count = c.count + excluded.count;
  insert into sign_in_place_counts as p (company_id, bucket, country, region, count, new_country, impossible_travel)
  select e.company_id, date_bin('15 minutes', e.created_at, timestamptz '2000-01-01 00:00:00+00'),
         coalesce(e.country, ''), case when e.country = 'CN' then coalesce(e.region, '') else '' end, count(*),
         count(*) filter (where e.marks @> array['new_country']),
         count(*) filter (where e.marks @> array['impossible_travel'])
    from ${events} e join companies co on co.id = e.company_id
   group by 1, 2, 3, 4 order by 1, 2, 3, 4
  on conflict (company_id, bucket, country, region) do update set count = p.count + excluded.count,
    new_country = p.new_country + excluded.new_country,
    impossible_travel = p.impossible_travel + excluded.impossible_travel;
  insert into sign_in_people as s (company_id, account_id, last_success_at)
  select e.company_id, e.account_id, max(e.created_at)
    from ${events} e join companies co on co.id = e.company_id
   where e.result = 'success' and e.account_id is not null
   group by 1, 2 order by 1, 2
  on conflict (company_id, account_id) do update
    set last_success_at = greatest(s.last_success_at, excluded.last_success_at);`;

export const m21: Migration = {
  id: 21,
  name: 'sign-in counts',
  // The dashboard's figures (modules/dashboard) are sums of counts kept per company and quarter
  // of an hour (UTC), not scans of login_events: a month of a busy company is a million events,
  // but at most 2 880 quarters. Quarters, not hours, because every time zone in use today
  // (India +05:30, Nepal +05:45, Newfoundland -03:30, Chatham +12:45, Lord Howe's half-hour
  // daylight saving) starts its days on a quarter: any of them sums whole quarters into its days,
  // exactly. Two tables, one per kind of question, so each call reads only what it sums:
  // - sign_in_counts: result, cause ('' for none) and client ('' for none), for the trends,
  //   the shares of the applications and the failures by cause;
  // - sign_in_place_counts: country ('' for no place) and, in China only, the province ('' for
  //   none; the hotspot map shows provinces of China only), with the marked sign-ins.
  // sign_in_people keeps each person's latest successful sign-in per company: "active in the
  // last 7 days" counts distinct people, which no sum of counts can give.
  //
  // A trigger on login_events writes all three in the statement that writes the events, whatever
  // code wrote them (one statement, no round trip more; a bulk insert is summed once). Counts of
  // events outside any company, or of a company that does not exist, are not kept. The log purge
  // (modules/log/log-jobs.ts) deletes counts with the events; a company's go with it.
  sql: `
create table sign_in_counts (
  company_id text not null references companies (id) on delete cascade,
  bucket timestamptz not null,
  result text not null check (result in ('success', 'failure')),
  cause text not null,
  client_id text not null,
  count integer not null,
  primary key (company_id, bucket, result, cause, client_id)
);

create table sign_in_place_counts (
  company_id text not null references companies (id) on delete cascade,
  bucket timestamptz not null,
  country text not null,
  region text not null,
  count integer not null,
  new_country integer not null,
  impossible_travel integer not null,
  primary key (company_id, bucket, country, region)
);

create table sign_in_people (
  company_id text not null references companies (id) on delete cascade,
  account_id text not null,
  last_success_at timestamptz not null,
  primary key (company_id, account_id)
);
create index sign_in_people_company_time on sign_in_people (company_id, last_success_at);

create function login_events_count() returns trigger language plpgsql as $$
begin
  ${fill('added')}
  return null;
end
$$;
create trigger login_events_count after insert on login_events
  referencing new table as added for each statement execute function login_events_count();

${fill('login_events')}
`,
};
