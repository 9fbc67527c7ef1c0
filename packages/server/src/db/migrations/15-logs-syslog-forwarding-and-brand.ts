import type { Migration } from '../migrations.ts';

export const m15: Migration = {
  id: 15,
  name: 'logs, syslog forwarding and brand',
  // Sign-in events get their place (from the offline geo-IP database) and browser (from the
  // user agent) when they are written: the log screen filters and the dashboard groups on them
  // over millions of rows, which a lookup per row at read time cannot do. Coordinates are kept
  // at city precision (0.1 degree) for the travel check only.
  //
  // Indexes follow the queries of modules/log: the newest rows of a company (optionally of one
  // person, application, result or cause) and the dashboard's aggregates, which read only
  // columns the company/time index carries (index-only scans).
  sql: `
alter table login_events add column country text;
alter table login_events add column region text;
alter table login_events add column city text;
alter table login_events add column latitude real;
alter table login_events add column longitude real;
alter table login_events add column browser text;
alter table login_events add column os text;
alter table login_events add column marks text[];
drop index login_events_company_time;
create index login_events_company_time on login_events (company_id, created_at desc, id desc)
  include (result, failure_cause, client_id, account_id, country, region, marks);
create index login_events_company_client_time on login_events (company_id, client_id, created_at desc, id desc);
create index login_events_company_cause_time on login_events (company_id, failure_cause, created_at desc, id desc)
  where failure_cause is not null;
create index login_events_company_result_time on login_events (company_id, result, created_at desc, id desc);
-- Marked sign-ins are rare: the mark filter reads them alone (a strict @> implies marks is not null).
create index login_events_company_marked_time on login_events (company_id, created_at desc, id desc)
  where marks is not null;
-- The failure-spike job reads the last minutes of failures of every company.
create index login_events_failure_time on login_events (created_at) where result = 'failure';
drop index login_events_account_time;
create index login_events_account_time on login_events (account_id, created_at desc, id desc);

drop index audit_events_company_time;
create index audit_events_company_time on audit_events (company_id, created_at desc, id desc);
create index audit_events_company_actor_time on audit_events (company_id, actor_account_id, created_at desc, id desc);
create index audit_events_company_action_time on audit_events (company_id, action, created_at desc, id desc);

-- Where an account last signed in from, and the countries it signed in from: the marks
-- "new country" and "impossible travel" of a sign-in are decided against these.
create table account_sign_in_places (
  account_id text primary key references accounts (id) on delete cascade,
  countries text[] not null default '{}',
  last_latitude real,
  last_longitude real,
  last_at timestamptz
);

create table company_log_settings (
  company_id text primary key references companies (id) on delete cascade,
  retention_days integer not null check (retention_days between 1 and 3650),
  updated_at timestamptz not null default now()
);

-- Failure spikes found by the alert job: one row per company, cause (and account) and spike.
create table log_alerts (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  cause text not null,
  account_id text,
  identifier text,
  count integer not null,
  threshold integer not null,
  window_minutes integer not null,
  created_at timestamptz not null default now()
);
create index log_alerts_company_time on log_alerts (company_id, created_at desc);

-- Syslog forwarding per company and its outbox. A trigger puts every sign-in, administration
-- and alert event of a company that forwards into the outbox, in the transaction that writes
-- the event, whatever code wrote it; the delivery job sends the outbox in order and deletes
-- what the receiver took.
create table company_syslog (
  company_id text primary key references companies (id) on delete cascade,
  enabled boolean not null default false,
  protocol text not null check (protocol in ('udp', 'tcp', 'tls')),
  host text not null,
  port integer not null check (port between 1 and 65535),
  tag text not null,
  ca_pem text,
  delivered_at timestamptz,
  delivered_event_at timestamptz,
  delivered_count bigint not null default 0,
  last_error text,
  last_error_at timestamptz,
  updated_at timestamptz not null default now()
);
create table syslog_outbox (
  seq bigserial primary key,
  company_id text not null references companies (id) on delete cascade,
  kind text not null check (kind in ('signin', 'audit', 'alert')),
  event_id text not null,
  created_at timestamptz not null default now()
);
create index syslog_outbox_company on syslog_outbox (company_id, seq);
create function syslog_enqueue() returns trigger language plpgsql as $$
begin
  if new.company_id is not null
     and exists (select 1 from company_syslog s where s.company_id = new.company_id and s.enabled) then
    insert into syslog_outbox (company_id, kind, event_id) values (new.company_id, tg_argv[0], new.id);
  end if;
  return null;
end
$$;
create trigger login_events_syslog after insert on login_events
  for each row execute function syslog_enqueue('signin');
create trigger audit_events_syslog after insert on audit_events
  for each row execute function syslog_enqueue('audit');
create trigger log_alerts_syslog after insert on log_alerts
  for each row execute function syslog_enqueue('alert');

-- Brand of a company's sign-in pages (the default language is the company's own column).
create table company_brand (
  company_id text primary key references companies (id) on delete cascade,
  logo_file_id text references files (id) on delete set null,
  background_file_id text references files (id) on delete set null,
  primary_color text,
  title text,
  footer_text text,
  footer_link text,
  updated_at timestamptz not null default now()
);
`,
};
