import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

interface Migration {
  id: number;
  name: string;
  sql: string;
}

/** The one migration set. Append only: an applied migration is never edited. */
export const migrations: Migration[] = [
  {
    id: 1,
    name: 'foundation',
    sql: `
create table accounts (
  id text primary key,
  username text not null,
  email text,
  phone text,
  display_name text,
  password_hash text not null,
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  is_platform_admin boolean not null default false,
  failed_count integer not null default 0,
  last_failed_at timestamptz,
  locked_until timestamptz,
  login_count integer not null default 0,
  last_login_at timestamptz,
  password_changed_at timestamptz not null default now(),
  created_at timestamptz not null default now()
);
create unique index accounts_username_key on accounts (lower(username));
create unique index accounts_email_key on accounts (lower(email)) where email is not null;
create unique index accounts_phone_key on accounts (phone) where phone is not null;

create table files (
  id text primary key,
  company_id text,
  content_type text not null,
  bytes bytea not null,
  created_at timestamptz not null default now()
);

create table companies (
  id text primary key,
  name text not null,
  client_key text not null,
  icon_file_id text references files (id) on delete set null,
  default_language text not null default 'en' check (default_language in ('en', 'zh')),
  owner_account_id text not null references accounts (id),
  created_at timestamptz not null default now()
);
create index companies_owner on companies (owner_account_id);

create table company_members (
  company_id text not null references companies (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'external_admin', 'member')),
  created_at timestamptz not null default now(),
  primary key (company_id, account_id)
);
create index company_members_account on company_members (account_id);

create table console_sessions (
  id text primary key,
  token_hash text not null unique,
  account_id text not null references accounts (id) on delete cascade,
  variant text not null check (variant in ('admin', 'dev')),
  id_token text,
  refresh_token_sealed text,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  idle_expires_at timestamptz not null,
  absolute_expires_at timestamptz not null,
  revoked_at timestamptz
);
create index console_sessions_account on console_sessions (account_id);

create table login_events (
  id text primary key,
  company_id text,
  account_id text,
  identifier text not null,
  client_id text,
  ip text,
  user_agent text,
  result text not null check (result in ('success', 'failure')),
  failure_cause text,
  created_at timestamptz not null default now()
);
create index login_events_company_time on login_events (company_id, created_at desc);
create index login_events_account_time on login_events (account_id, created_at desc);

create table sign_in_counters (
  scope text not null,
  key text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (scope, key, window_start)
);

create table oidc_payloads (
  model text not null,
  id text not null,
  payload jsonb not null,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  primary key (model, id)
);
create index oidc_payloads_grant on oidc_payloads (grant_id) where grant_id is not null;
create index oidc_payloads_uid on oidc_payloads (uid) where uid is not null;
create index oidc_payloads_user_code on oidc_payloads (user_code) where user_code is not null;
create index oidc_payloads_expiry on oidc_payloads (expires_at);

create table signing_keys (
  kid text primary key,
  alg text not null,
  status text not null check (status in ('active', 'retired')),
  private_jwk_sealed text not null,
  created_at timestamptz not null default now(),
  retired_at timestamptz
);

create table audit_events (
  id text primary key,
  company_id text,
  actor_account_id text,
  action text not null,
  target_type text not null,
  target_id text,
  before jsonb,
  after jsonb,
  ip text,
  created_at timestamptz not null default now()
);
create index audit_events_company_time on audit_events (company_id, created_at desc);
`,
  },
  {
    id: 2,
    name: 'licences',
    sql: `
create table installation (
  id integer primary key check (id = 1),
  application_code text not null,
  created_at timestamptz not null default now()
);

create table licenses (
  id text primary key,
  license_id text not null,
  customer text not null,
  payload jsonb not null,
  raw text not null,
  active boolean not null default true,
  imported_by text references accounts (id) on delete set null,
  imported_at timestamptz not null default now()
);
create unique index licenses_one_active on licenses (active) where active;
`,
  },
  {
    id: 3,
    name: 'portal sessions',
    sql: `
alter table console_sessions drop constraint console_sessions_variant_check;
alter table console_sessions add constraint console_sessions_variant_check
  check (variant in ('admin', 'dev', 'portal'));
`,
  },
  {
    id: 4,
    name: 'credential versions',
    sql: `
alter table accounts add column credential_version integer not null default 0;
alter table console_sessions add column credential_version integer not null default 0;
`,
  },
  {
    id: 5,
    name: 'organisation',
    sql: `
alter table accounts add column nickname text;
alter table accounts add column photo_file_id text references files (id) on delete set null;
alter table accounts add column must_change_password boolean not null default false;
alter table accounts add column home_company_id text references companies (id) on delete set null;
create index accounts_home_company on accounts (home_company_id);

alter table company_members add column status text not null default 'enabled'
  check (status in ('enabled', 'disabled', 'locked'));
alter table company_members add column updated_at timestamptz not null default now();
create index company_members_company_created on company_members (company_id, created_at desc, account_id);

create table departments (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  parent_id text references departments (id),
  name text not null,
  manager_account_id text references accounts (id) on delete set null,
  sort_order integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index departments_one_root on departments (company_id) where parent_id is null;
create unique index departments_sibling_name on departments (company_id, coalesce(parent_id, ''), lower(name));
create index departments_parent on departments (parent_id);

create table department_members (
  department_id text not null references departments (id) on delete cascade,
  company_id text not null,
  account_id text not null,
  created_at timestamptz not null default now(),
  primary key (department_id, account_id),
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade
);
create index department_members_member on department_members (company_id, account_id);

create table import_tasks (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  created_by text references accounts (id) on delete set null,
  status text not null check (status in ('importing', 'success', 'failed')),
  file_name text,
  total integer not null default 0,
  created integer not null default 0,
  errors jsonb,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index import_tasks_company on import_tasks (company_id, created_at desc);

create table sign_in_links (
  token_hash text primary key,
  account_id text not null references accounts (id) on delete cascade,
  company_id text references companies (id) on delete cascade,
  created_by text references accounts (id) on delete set null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index sign_in_links_account on sign_in_links (account_id);
`,
  },
  {
    id: 6,
    name: 'user-search',
    // The user list finds a keyword anywhere in username, name, email and phone among 100 000
    // people: the four are kept in one stored lowercase text (computing it per row doubled the
    // time of a broad search), whose trigram index answers '%keyword%' without reading every account.
    sql: `
create extension if not exists pg_trgm;
alter table accounts add column search_text text not null generated always as (lower(
  username || chr(31) || coalesce(display_name, '') || chr(31) || coalesce(email, '') || chr(31) || coalesce(phone, '')
)) stored;
create index accounts_search_trgm on accounts using gin (search_text gin_trgm_ops);
create index company_members_company_status on company_members (company_id, status);
`,
  },
  {
    id: 7,
    name: 'safety',
    // A company's safety settings (general: login methods, password rules, lock-out; mfa:
    // policy, allowed kinds, its own lock-out), absent until first changed (the defaults of the
    // contract apply). Second factors: OTP seeds sealed with the master key and the last
    // accepted time step (a code is accepted once); FIDO2 credentials with their counter;
    // single-use recovery codes stored hashed. Wrong second-factor codes count apart from
    // wrong passwords.
    sql: `
create table company_safety (
  company_id text primary key references companies (id) on delete cascade,
  general jsonb,
  mfa jsonb,
  updated_at timestamptz not null default now()
);
alter table accounts add column mfa_failed_count integer not null default 0;
alter table accounts add column mfa_locked_until timestamptz;
create table mfa_factors (
  id text primary key,
  account_id text not null references accounts (id) on delete cascade,
  type text not null,
  name text not null,
  status text not null check (status in ('bound', 'unbound')),
  secret_sealed text,
  last_used_step bigint,
  credential_id text unique,
  public_key bytea,
  sign_count bigint,
  transports jsonb,
  created_at timestamptz not null default now(),
  bound_at timestamptz,
  last_used_at timestamptz
);
create index mfa_factors_account on mfa_factors (account_id, created_at);
create table mfa_recovery_codes (
  account_id text not null references accounts (id) on delete cascade,
  code_hash text not null,
  created_at timestamptz not null default now(),
  used_at timestamptz,
  primary key (account_id, code_hash)
);
`,
  },
  {
    id: 8,
    name: 'webauthn challenges',
    // (FIDO2 helper) A WebAuthn ceremony's challenge, bound to what asked for it (a user-centre
    // session or a sign-in interaction) and short-lived; it is deleted when used, so each
    // challenge answers one ceremony.
    sql: `
create table webauthn_challenges (
  challenge text primary key,
  purpose text not null,
  subject text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index webauthn_challenges_expires on webauthn_challenges (expires_at);
`,
  },
  {
    id: 9,
    name: 'credentials changed at',
    // When an account's credentials last changed (password set or reset, second factors
    // removed: every change raises credential_version). The provider compares it with the
    // time of a single sign-on session's sign-in, so such a change ends those sessions too.
    sql: `
alter table accounts add column credentials_changed_at timestamptz;
create function accounts_credentials_changed() returns trigger language plpgsql as $$
begin
  if new.credential_version is distinct from old.credential_version then
    new.credentials_changed_at := now();
  end if;
  return new;
end
$$;
create trigger accounts_credentials_changed before update on accounts
  for each row execute function accounts_credentials_changed();
`,
  },
  {
    id: 10,
    name: 'applications',
    // Applications of a company: each is an OIDC client of the provider (looked up by the
    // adapter on every request, so a change takes effect at once everywhere) or a form-fill app.
    sql: `
create table apps (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  name text not null,
  description text,
  type text not null check (type in ('self_built', 'third_party')),
  protocol text not null check (protocol in ('oidc', 'form')),
  template text,
  status text not null default 'to_be_configured'
    check (status in ('to_be_configured', 'opened', 'disabled')),
  logo_file_id text references files (id) on delete set null,
  client_id text not null unique,
  client_secret_sealed text not null,
  redirect_uris jsonb not null default '[]',
  post_logout_redirect_uris jsonb not null default '[]',
  initiate_login_uri text,
  home_url text,
  scopes jsonb not null default '["openid","profile","email","phone","offline_access"]',
  signing_alg text not null default 'ES256' check (signing_alg in ('ES256', 'RS256')),
  token_auth_method text not null default 'client_secret_basic',
  require_pkce boolean not null default true,
  authorization_code_ttl integer not null default 60,
  id_token_ttl integer not null default 1209600,
  access_token_ttl integer not null default 1209600,
  refresh_token_ttl integer not null default 2592000,
  default_access text not null default 'allow_all' check (default_access in ('allow_all', 'prohibit_all')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index apps_company on apps (company_id, created_at desc);

create table app_assignments (
  app_id text not null references apps (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (app_id, account_id)
);
create index app_assignments_account on app_assignments (account_id);
-- Revoking what one client holds (a deleted app, a rotated secret, an assignment taken away).
create index oidc_payloads_client on oidc_payloads ((payload->>'clientId'));

create table app_api_accounts (
  id text primary key,
  app_id text not null references apps (id) on delete cascade,
  company_id text not null references companies (id) on delete cascade,
  name text not null,
  client_id text not null unique,
  secret_sealed text not null,
  expires_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz not null default now()
);
create index app_api_accounts_app on app_api_accounts (app_id);

create table app_form_configs (
  app_id text primary key references apps (id) on delete cascade,
  login_url text not null,
  username_field text not null,
  password_field text not null,
  extra_fields jsonb not null default '[]',
  credential_mode text not null check (credential_mode in ('user', 'shared')),
  shared_username text,
  shared_password_sealed text,
  updated_at timestamptz not null default now()
);

create table app_form_credentials (
  app_id text not null references apps (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  username text not null,
  password_sealed text not null,
  updated_at timestamptz not null default now(),
  primary key (app_id, account_id)
);
`,
  },
  {
    id: 11,
    name: 'sliding budgets, known devices and revocation',
    sql: `
-- Sliding windows (lib/rate-windows.ts): one row per budget, a count per minute of the window,
-- oldest first; last_minute is the epoch minute of the newest slot. Replaces the clock-hour
-- counters, which let a full budget be spent again at the top of every hour.
drop table sign_in_counters;
create table rate_windows (
  key text primary key,
  last_minute bigint not null,
  counts integer[] not null,
  updated_at timestamptz not null default now()
);
create index rate_windows_updated on rate_windows (updated_at);

-- The counts of a window moved on to now_minute: slots that fell out of it are dropped.
create function rate_shift(counts integer[], last_minute bigint, now_minute bigint, minutes integer)
returns integer[] language sql immutable as $$
  select case
    when counts is null or cardinality(counts) <> minutes or now_minute - last_minute >= minutes
      then array_fill(0, array[minutes])
    when now_minute <= last_minute then counts
    else counts[(now_minute - last_minute + 1)::int : minutes]
      || array_fill(0, array[(now_minute - last_minute)::int])
  end
$$;

-- One call for several budgets at once (an account's and an address's):
--   reserve: takes one from every budget, or none when any is spent (answers whether it took);
--   add:     takes one from every budget regardless (answers whether all had room before);
--   release: gives one back to every budget (an attempt that turned out right);
--   peek:    answers whether every budget has room, changing nothing.
-- Rows are locked in key order, so parallel calls never wait on each other in a cycle.
create function rate_hit(p_keys text[], p_limits integer[], p_minutes integer[], p_mode text)
returns boolean language plpgsql as $$
declare
  now_minute bigint := floor(extract(epoch from now()) / 60)::bigint;
  r record;
  cur integer[];
  room boolean := true;
  j integer;
begin
  for r in select k.key, k.ord::int as ord from unnest(p_keys) with ordinality as k(key, ord) order by k.key loop
    if p_mode = 'peek' then
      select rate_shift(w.counts, w.last_minute, now_minute, p_minutes[r.ord]) into cur
        from rate_windows w where w.key = r.key;
    else
      insert into rate_windows (key, last_minute, counts)
        values (r.key, now_minute, array_fill(0, array[p_minutes[r.ord]]))
        on conflict (key) do nothing;
      select rate_shift(w.counts, w.last_minute, now_minute, p_minutes[r.ord]) into cur
        from rate_windows w where w.key = r.key for update;
    end if;
    if cur is not null and (select coalesce(sum(c), 0) from unnest(cur) c) >= p_limits[r.ord] then
      room := false;
    end if;
  end loop;
  if p_mode = 'peek' or (p_mode = 'reserve' and not room) then
    return room;
  end if;
  for r in select k.key, k.ord::int as ord from unnest(p_keys) with ordinality as k(key, ord) loop
    select rate_shift(w.counts, w.last_minute, now_minute, p_minutes[r.ord]) into cur
      from rate_windows w where w.key = r.key;
    if p_mode = 'release' then
      for j in reverse cardinality(cur)..1 loop
        if cur[j] > 0 then
          cur[j] := cur[j] - 1;
          exit;
        end if;
      end loop;
    else
      cur[cardinality(cur)] := cur[cardinality(cur)] + 1;
    end if;
    update rate_windows set counts = cur, last_minute = now_minute, updated_at = now() where key = r.key;
  end loop;
  return room;
end
$$;

-- Browsers that signed in to an account before (a signed device cookie): their failures are
-- counted on their own, so an attacker's failures elsewhere do not lock the owner out.
create table sign_in_devices (
  account_id text not null references accounts (id) on delete cascade,
  device_id text not null,
  created_at timestamptz not null default now(),
  last_success_at timestamptz not null default now(),
  failed_count integer not null default 0,
  last_failed_at timestamptz,
  locked_until timestamptz,
  primary key (account_id, device_id)
);

-- Failures of identifiers that name no account, locked out like accounts: during a lock-out no
-- password is checked, and an unknown identifier must not answer differently from a known one.
create table sign_in_unknown (
  identifier text primary key,
  failed_count integer not null default 0,
  last_failed_at timestamptz not null default now(),
  locked_until timestamptz
);
create index sign_in_unknown_failed on sign_in_unknown (last_failed_at);

-- Addresses from which a client authenticated with its secret: failed client authentications
-- from elsewhere do not stop it.
create table oidc_client_addresses (
  client_id text not null,
  ip text not null,
  last_success_at timestamptz not null default now(),
  primary key (client_id, ip)
);

-- Whose grant, token or single sign-on session a provider row is: revoked all at once.
alter table oidc_payloads add column account_id text;
update oidc_payloads set account_id = payload->>'accountId' where payload ? 'accountId';
create index oidc_payloads_account on oidc_payloads (account_id) where account_id is not null;

-- Every credential change (credential_version rises), disable and removal of an account ends
-- every grant, refresh and access token and single sign-on session it has, whichever code path
-- made the change. A disable also ends its console and user-centre sessions for good (they
-- would otherwise work again once it is enabled); a credential change ends them through the
-- credential version they compare on every request, which lets the person's own password
-- change carry their current session over; a deleted account's go with it.
create function accounts_revoke_access() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE'
     or new.credential_version is distinct from old.credential_version
     or (new.status <> 'enabled' and old.status = 'enabled') then
    delete from oidc_payloads where account_id = old.id;
  end if;
  if tg_op = 'UPDATE' and new.status <> 'enabled' and old.status = 'enabled' then
    update console_sessions set revoked_at = now() where account_id = old.id and revoked_at is null;
  end if;
  return null;
end
$$;
create trigger accounts_revoke_access after update or delete on accounts
  for each row execute function accounts_revoke_access();

-- A user record disabled, locked or removed by its company: the person's grants and tokens at
-- that company's applications end (the company's access rule refuses new ones).
create function company_members_revoke_access() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or (new.status <> 'enabled' and old.status = 'enabled') then
    delete from oidc_payloads
      where account_id = old.account_id
        and payload->>'clientId' in (select client_id from apps where company_id = old.company_id);
  end if;
  return null;
end
$$;
create trigger company_members_revoke_access after update or delete on company_members
  for each row execute function company_members_revoke_access();

-- A company manages an account fully (its status included) only while the account belongs to
-- no other company: such accounts take the status of their record there.
update accounts a set status = 'disabled'
  where a.status = 'enabled' and a.home_company_id is not null
    and exists (select 1 from company_members m where m.account_id = a.id
      and m.company_id = a.home_company_id and m.status <> 'enabled')
    and not exists (select 1 from company_members o where o.account_id = a.id
      and o.company_id <> a.home_company_id);
`,
  },
  {
    id: 12,
    name: 'company quotas',
    // How many users and applications each company may have, within the installation licence.
    // New companies get the configured defaults; companies from before quotas have no row, which
    // means no limit beyond the licence, so an upgrade refuses nothing that worked before.
    sql: `
create table company_quotas (
  company_id text not null references companies (id) on delete cascade,
  module text not null check (module in ('user', 'app')),
  quota integer check (quota between 0 and 100000000),
  updated_at timestamptz not null default now(),
  primary key (company_id, module)
);
`,
  },
  {
    id: 13,
    name: 'background jobs',
    // Background work any instance may run (modules/jobs): a queued job is claimed with
    // FOR UPDATE SKIP LOCKED and held by a lease its runner renews; jobs of one key run one at a
    // time (a unique index on running keys settles two claims in a race). A periodic job is one
    // row (its id names its kind) that goes back to the queue after each run.
    sql: `
create table jobs (
  id text primary key,
  kind text not null,
  key text,
  payload jsonb not null default '{}',
  status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
  run_after timestamptz not null default now(),
  every_seconds integer check (every_seconds > 0),
  attempts integer not null default 0,
  max_attempts integer check (max_attempts > 0),
  locked_by text,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create unique index jobs_one_running on jobs (key) where status = 'running';
create index jobs_due on jobs (run_after, created_at) where status = 'queued';
create index jobs_key on jobs (key, status) where key is not null;
create index jobs_finished on jobs (finished_at) where status in ('done', 'failed');
`,
  },
  {
    id: 14,
    name: 'import queue',
    // User imports run as jobs (kind user-import, one per company at a time): the task keeps the
    // address it was uploaded from (for its audit event) and when its turn came; the uploaded file
    // waits in the database until the task ends. Jobs of a kind with a platform-wide limit run in
    // numbered slots, and a unique index on running slots settles two claims in a race.
    sql: `
alter table import_tasks
  add column created_ip text,
  add column started_at timestamptz;
create table import_task_files (
  task_id text primary key references import_tasks (id) on delete cascade,
  content bytea not null
);
alter table jobs add column slot integer;
create unique index jobs_one_per_slot on jobs (kind, slot) where status = 'running' and slot is not null;
`,
  },
  {
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
  },
  {
    id: 16,
    name: 'application logout and consent',
    // Logout to applications (OIDC Back-Channel and Front-Channel Logout 1.0), and what a
    // person allowed a third-party application (the consent page remembers it per person).
    sql: `
alter table apps add column backchannel_logout_uri text;
alter table apps add column frontchannel_logout_uri text;

create table app_consents (
  app_id text not null references apps (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  scopes jsonb not null default '[]',
  claims jsonb not null default '[]',
  updated_at timestamptz not null default now(),
  primary key (app_id, account_id)
);
create index app_consents_account on app_consents (account_id);
`,
  },
  {
    id: 17,
    name: 'identity sources and directory sync',
    sql: `
-- LDAP / Active Directory, DingTalk, WeChat and WeCom sources of a company. Settings are JSON
-- (their shape is the contract's); the one secret of each (bind password, app secret) is sealed.
create table identity_sources (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  type text not null check (type in ('ldap', 'dingtalk', 'weixin', 'work_weixin')),
  name text not null,
  enabled boolean not null default true,
  settings jsonb not null,
  secret_sealed text,
  sync_interval_minutes integer not null default 0,
  next_sync_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index identity_sources_company on identity_sources (company_id, created_at);
create index identity_sources_due on identity_sources (next_sync_at) where sync_interval_minutes > 0;

-- A person of the company and the entry of a source that is them (entryUUID, objectGUID,
-- unionid, userid). It goes with the person's record in the company.
create table identity_links (
  source_id text not null references identity_sources (id) on delete cascade,
  company_id text not null,
  account_id text not null,
  external_id text not null,
  -- LDAP: the entry's DN and the username it signs in with; scan: the provider's nickname.
  external_dn text,
  external_name text,
  -- Disabled by a sync (gone from the directory, or disabled there): only such people are enabled again by one.
  disabled_by_sync boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (source_id, external_id),
  unique (source_id, account_id),
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade
);
create index identity_links_account on identity_links (account_id);

-- The departments a source maintains (a group, an organisational unit, a DingTalk or WeCom department).
create table identity_source_departments (
  source_id text not null references identity_sources (id) on delete cascade,
  external_id text not null,
  department_id text not null references departments (id) on delete cascade,
  primary key (source_id, external_id),
  unique (department_id)
);

-- Directory entries whose username, email or phone an account outside the company has, as
-- already counted to the company (a fingerprint of those identifiers): counted once, not per run.
create table identity_source_conflicts (
  source_id text not null references identity_sources (id) on delete cascade,
  external_id text not null,
  fingerprint text not null,
  primary key (source_id, external_id)
);

create table sync_runs (
  id text primary key,
  source_id text not null references identity_sources (id) on delete cascade,
  company_id text not null references companies (id) on delete cascade,
  mode text not null check (mode in ('preview', 'apply', 'sync')),
  trigger text not null check (trigger in ('manual', 'schedule')),
  status text not null check (status in ('queued', 'running', 'succeeded', 'failed')),
  requested_by text references accounts (id) on delete set null,
  preview_run_id text references sync_runs (id) on delete set null,
  counts jsonb,
  errors jsonb not null default '[]',
  -- A digest of the plan's rows: an apply of a preview must plan the same.
  plan_hash text,
  -- A preview keeps the directory as it read it, so that applying it plans against the same data.
  snapshot jsonb,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index sync_runs_source on sync_runs (source_id, created_at desc);
create unique index sync_runs_applied_once on sync_runs (preview_run_id) where preview_run_id is not null;

create table sync_run_rows (
  run_id text not null references sync_runs (id) on delete cascade,
  kind text not null,
  seq integer not null,
  row jsonb not null,
  primary key (run_id, kind, seq)
);

-- Scan sign-in and binding: the OAuth state, single use and short-lived, bound to the sign-in
-- interaction (or to the user-centre session that binds). Stored hashed.
create table scan_states (
  id text primary key,
  source_id text not null references identity_sources (id) on delete cascade,
  purpose text not null check (purpose in ('sign_in', 'bind')),
  interaction_uid text,
  session_id text,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index scan_states_expires on scan_states (expires_at);
`,
  },
  {
    id: 18,
    name: 'permissions and console roles',
    // Spec §3 Resource, Role, Authorization: an application's resources with their action types,
    // the company's roles and their people, and authorizations of a person, role or department
    // (with its sub departments) on an application's resources, with restrictions. Spec §6:
    // custom console roles of a company, held by delegated administrators.
    sql: `
-- Composite keys, so that a row of one company can only name rows of the same company.
create unique index apps_company_id on apps (company_id, id);
create unique index departments_company_id on departments (company_id, id);

create table console_roles (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  name text not null,
  description text,
  grants jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index console_roles_name on console_roles (company_id, lower(name));
create unique index console_roles_company_id on console_roles (company_id, id);

-- A delegated administrator reaches the console through exactly one console role of the company.
alter table company_members add column console_role_id text;
alter table company_members drop constraint company_members_role_check;
alter table company_members add constraint company_members_role_check
  check (role in ('owner', 'admin', 'external_admin', 'delegated_admin', 'member'));
alter table company_members add constraint company_members_console_role
  check ((role = 'delegated_admin') = (console_role_id is not null));
alter table company_members add constraint company_members_console_role_fk
  foreign key (company_id, console_role_id) references console_roles (company_id, id);

create table permission_resources (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  app_id text not null,
  name text not null,
  type text not null check (type in ('menu', 'api', 'button', 'data')),
  description text,
  data text,
  actions jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (company_id, app_id) references apps (company_id, id) on delete cascade
);
create unique index permission_resources_name on permission_resources (app_id, lower(name));
create unique index permission_resources_company_id on permission_resources (company_id, id);
create index permission_resources_company_app on permission_resources (company_id, app_id, name);

create table permission_roles (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  name text not null,
  description text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index permission_roles_name on permission_roles (company_id, lower(name));
create unique index permission_roles_company_id on permission_roles (company_id, id);

create table permission_role_members (
  role_id text not null,
  company_id text not null,
  account_id text not null,
  created_at timestamptz not null default now(),
  primary key (role_id, account_id),
  foreign key (company_id, role_id) references permission_roles (company_id, id) on delete cascade,
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade
);
create index permission_role_members_person on permission_role_members (company_id, account_id);

create table permission_authorizations (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  app_id text not null,
  subject_type text not null check (subject_type in ('user', 'role', 'department')),
  subject_user_id text,
  subject_role_id text,
  subject_department_id text,
  effect text not null check (effect in ('allow', 'reject')),
  resource_scope text not null check (resource_scope in ('all', 'specific')),
  action_scope text not null check (action_scope in ('all', 'specific')),
  actions jsonb not null default '[]',
  valid_from timestamptz,
  valid_until timestamptz,
  time_windows jsonb not null default '[]',
  time_zone text not null default 'UTC',
  ip_ranges jsonb not null default '[]',
  description text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (company_id, app_id) references apps (company_id, id) on delete cascade,
  foreign key (company_id, subject_user_id) references company_members (company_id, account_id) on delete cascade,
  foreign key (company_id, subject_role_id) references permission_roles (company_id, id) on delete cascade,
  foreign key (company_id, subject_department_id) references departments (company_id, id) on delete cascade,
  check ((subject_type = 'user') = (subject_user_id is not null)
    and (subject_type = 'role') = (subject_role_id is not null)
    and (subject_type = 'department') = (subject_department_id is not null))
);
create index permission_authorizations_app on permission_authorizations (company_id, app_id);
create index permission_authorizations_user on permission_authorizations (company_id, subject_user_id);
create index permission_authorizations_role on permission_authorizations (subject_role_id);
create index permission_authorizations_department on permission_authorizations (subject_department_id);

create table permission_authorization_resources (
  authorization_id text not null references permission_authorizations (id) on delete cascade,
  company_id text not null,
  resource_id text not null,
  primary key (authorization_id, resource_id),
  foreign key (company_id, resource_id) references permission_resources (company_id, id) on delete cascade
);
create index permission_authorization_resources_resource on permission_authorization_resources (resource_id);

-- Decisions are taken from a cache in each server instance; every change that can alter one is
-- announced on this channel, whichever code path made it: p:<company> (the company's resources,
-- roles, authorizations, department tree), u:<company>:<account> (a person's roles, departments,
-- record), a:<account> (an account's status), c:<client id> (an application's credentials).
create function permission_notify_company() returns trigger language plpgsql as $$
begin
  perform pg_notify('tessera_permissions', 'p:' || coalesce(new.company_id, old.company_id));
  return null;
end
$$;
create function permission_notify_person() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' then
    perform pg_notify('tessera_permissions', 'u:' || old.company_id || ':' || old.account_id);
  end if;
  if tg_op <> 'DELETE' then
    perform pg_notify('tessera_permissions', 'u:' || new.company_id || ':' || new.account_id);
  end if;
  return null;
end
$$;
create function permission_notify_account() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or new.status is distinct from old.status then
    perform pg_notify('tessera_permissions', 'a:' || old.id);
  end if;
  return null;
end
$$;
create function permission_notify_client() returns trigger language plpgsql as $$
begin
  perform pg_notify('tessera_permissions', 'c:' || old.client_id);
  return null;
end
$$;
create trigger permission_resources_notify after insert or update or delete on permission_resources
  for each row execute function permission_notify_company();
create trigger permission_roles_notify after insert or update or delete on permission_roles
  for each row execute function permission_notify_company();
create trigger permission_authorizations_notify after insert or update or delete on permission_authorizations
  for each row execute function permission_notify_company();
create trigger permission_authorization_resources_notify
  after insert or update or delete on permission_authorization_resources
  for each row execute function permission_notify_company();
create trigger departments_permission_notify after insert or update or delete on departments
  for each row execute function permission_notify_company();
create trigger permission_role_members_notify after insert or update or delete on permission_role_members
  for each row execute function permission_notify_person();
create trigger department_members_permission_notify after insert or update or delete on department_members
  for each row execute function permission_notify_person();
create trigger company_members_permission_notify after insert or update or delete on company_members
  for each row execute function permission_notify_person();
create trigger accounts_permission_notify after update or delete on accounts
  for each row execute function permission_notify_account();
create trigger apps_permission_notify after update or delete on apps
  for each row execute function permission_notify_client();
`,
  },
  {
    id: 19,
    name: 'saml applications',
    // SAML 2.0: an application can be a service provider of its company's identity provider.
    // Sign-ins run through the OIDC provider's session (modules/saml); these tables hold the
    // company's signing keys, each app's service provider settings, sign-ins under way, ids of
    // messages received (replays) and the sessions at service providers (single logout).
    sql: `
alter table apps drop constraint apps_protocol_check;
alter table apps add constraint apps_protocol_check check (protocol in ('oidc', 'form', 'saml'));

create table saml_signing_keys (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  status text not null check (status in ('active', 'next', 'retired')),
  private_key_sealed text not null,
  certificate text not null,
  not_after timestamptz not null,
  created_at timestamptz not null default now(),
  activated_at timestamptz,
  retired_at timestamptz
);
create unique index saml_signing_keys_active on saml_signing_keys (company_id) where status = 'active';
create unique index saml_signing_keys_next on saml_signing_keys (company_id) where status = 'next';

create table app_saml_configs (
  app_id text primary key references apps (id) on delete cascade,
  company_id text not null references companies (id) on delete cascade,
  entity_id text,
  acs jsonb not null default '[]',
  slo_url text,
  slo_binding text not null default 'redirect' check (slo_binding in ('post', 'redirect')),
  slo_response_url text,
  signing_certificates jsonb not null default '[]',
  encryption_certificate text,
  name_id_format text not null default 'unspecified'
    check (name_id_format in ('unspecified', 'emailAddress', 'persistent', 'transient')),
  name_id_source text not null default 'username' check (name_id_source in ('username', 'email', 'persistent')),
  attributes jsonb not null default '[]',
  sign_response boolean not null default true,
  sign_assertion boolean not null default true,
  signature_algorithm text not null default 'rsa-sha256'
    check (signature_algorithm in ('rsa-sha256', 'rsa-sha512', 'rsa-sha1')),
  encrypt_assertion boolean not null default false,
  require_signed_requests boolean not null default false,
  default_relay_state text,
  metadata_url text,
  updated_at timestamptz not null default now()
);
-- A service provider is found by its entity id among its company's applications.
create unique index app_saml_configs_entity on app_saml_configs (company_id, entity_id) where entity_id is not null;

create table saml_flows (
  id text primary key,
  app_id text not null references apps (id) on delete cascade,
  request_id text,
  acs_url text not null,
  relay_state text,
  passive boolean not null default false,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  consumed_at timestamptz
);
create index saml_flows_expiry on saml_flows (expires_at);

create table saml_seen_messages (
  app_id text not null references apps (id) on delete cascade,
  message_id text not null,
  expires_at timestamptz not null,
  primary key (app_id, message_id)
);
create index saml_seen_messages_expiry on saml_seen_messages (expires_at);

create table saml_sessions (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  app_id text not null references apps (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  sso_session_uid text not null,
  name_id text not null,
  name_id_format text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  ended_at timestamptz,
  logout_request_id text
);
create index saml_sessions_sso on saml_sessions (sso_session_uid);
create index saml_sessions_account on saml_sessions (account_id);
create index saml_sessions_expiry on saml_sessions (expires_at);

-- A single logout under way through the service providers of an ended single sign-on session:
-- its short id is the RelayState of the LogoutRequests (at most 80 bytes, SAML bindings §3.4.3).
create table saml_logout_chains (
  id text primary key,
  sso_session_uid text not null,
  account_id text not null,
  next_url text not null,
  expires_at timestamptz not null
);

-- A SAML session ends with the person's single sign-on session: the revocations of migration 11
-- (credential change, disable, removal of the account; a company's disable or removal of its
-- record) end the person's sessions at service providers too.
create function saml_sessions_end_with_account() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE'
     or new.credential_version is distinct from old.credential_version
     or (new.status <> 'enabled' and old.status = 'enabled') then
    delete from saml_sessions where account_id = old.id;
  end if;
  return null;
end
$$;
create trigger saml_sessions_end_with_account after update or delete on accounts
  for each row execute function saml_sessions_end_with_account();

create function saml_sessions_end_with_member() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or (new.status <> 'enabled' and old.status = 'enabled') then
    delete from saml_sessions where account_id = old.account_id and company_id = old.company_id;
  end if;
  return null;
end
$$;
create trigger saml_sessions_end_with_member after update or delete on company_members
  for each row execute function saml_sessions_end_with_member();
`,
  },
  {
    id: 20,
    name: 'exchange agent and devices',
    sql: `
-- A company's Exchange agent (one row, made when its settings are first read) and its device rules.
create table exchange_settings (
  company_id text primary key references companies (id) on delete cascade,
  enabled boolean not null default false,
  exchange_url text,
  credential_mode text not null default 'service' check (credential_mode in ('service', 'personal')),
  service_username text,
  service_password_sealed text,
  activation text not null default 'approval' check (activation in ('approval', 'automatic')),
  user_device_limit integer not null default 3 check (user_device_limit between 1 and 50),
  default_device_permission text not null default 'user' check (default_device_permission in ('user', 'admin')),
  device_password_digits integer not null default 16 check (device_password_digits between 8 and 64),
  rotation_days integer not null default 7 check (rotation_days between 1 and 90),
  -- The registration token, sealed (administrators see it), and its keyed hash (phones are matched on it).
  registration_token_sealed text not null,
  registration_token_hmac text not null unique,
  token_rotated_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Spec §6: each person's permission on device management; a new person gets the company's default
-- whichever way they are added (created, imported, made administrator).
alter table company_members add column device_permission text not null default 'user'
  check (device_permission in ('user', 'admin'));
create function company_members_device_permission() returns trigger language plpgsql as $$
begin
  new.device_permission := coalesce(
    (select s.default_device_permission from exchange_settings s where s.company_id = new.company_id), 'user');
  return new;
end
$$;
create trigger company_members_device_permission before insert on company_members
  for each row execute function company_members_device_permission();

-- A phone of a person in a company, as its ActiveSync DeviceId names it. The password is stored
-- hashed; a new one is also kept sealed until its person has seen it once in the user centre.
create table exchange_devices (
  id text primary key,
  company_id text not null,
  account_id text not null,
  device_id text not null,
  device_type text not null,
  name text not null,
  os text,
  user_agent text,
  activation text not null check (activation in ('to_be_activated', 'active')),
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  access_permission text not null default 'full' check (access_permission in ('full', 'receive_only')),
  policy jsonb,
  password_hash text,
  password_pending_sealed text,
  password_set_at timestamptz,
  registered_at timestamptz not null default now(),
  activated_at timestamptz,
  last_login_at timestamptz,
  last_offline_at timestamptz,
  online_until timestamptz,
  last_seen_at timestamptz,
  last_ip text,
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade,
  unique (company_id, account_id, device_id)
);
create index exchange_devices_account on exchange_devices (account_id, device_id);
create index exchange_devices_company on exchange_devices (company_id, registered_at desc);

-- A person's own Exchange sign-in, sealed (companies whose agent signs in with each person's own).
create table exchange_credentials (
  company_id text not null,
  account_id text not null,
  username text not null,
  password_sealed text not null,
  updated_at timestamptz not null default now(),
  primary key (company_id, account_id),
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade
);

-- The device a login event is about (the agent's decisions).
alter table login_events add column device_id text;
create index login_events_device on login_events (device_id, created_at desc) where device_id is not null;
`,
  },
];

/** Arbitrary constant that names Tessera's migration lock among advisory locks. */
const MIGRATION_LOCK = 7_316_420_961;

/**
 * Applies pending migrations in one transaction under an advisory lock, so two instances
 * starting together apply them once and a failure leaves nothing half done.
 */
export async function migrate(db: Kysely<Database>): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    await sql`create table if not exists schema_migrations (
      id integer primary key, name text not null, applied_at timestamptz not null default now())`.execute(
      trx,
    );
    const applied = new Set(
      (await trx.selectFrom('schema_migrations').select('id').execute()).map((r) => r.id),
    );
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.id)) continue;
      await sql.raw(migration.sql).execute(trx);
      await trx.insertInto('schema_migrations').values({ id: migration.id, name: migration.name }).execute();
      done.push(migration.name);
    }
    return done;
  });
}
