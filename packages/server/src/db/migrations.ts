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
    name: 'radius, certificate authorities, UKEY and soft-lock factors',
    // RADIUS clients (their source range is a cidr, so that `inet <<= cidr` matches a request's
    // address), the departments that may use them, Access-Challenge states (single use, shared by
    // every instance); certificate authorities with sealed keys and their latest CRL; issued
    // certificates; signature factors (a public key or an issued certificate on mfa_factors) and
    // their single-use challenges. Login events carry a RADIUS request's NAS and calling station.
    sql: `
alter table login_events add column nas_ip text, add column calling_station_id text;

create table radius_clients (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  name text not null,
  source cidr not null,
  secret_sealed text not null,
  enabled boolean not null default true,
  access text not null default 'all' check (access in ('all', 'restricted')),
  otp_mode text not null default 'challenge' check (otp_mode in ('challenge', 'appended')),
  accepts bigint not null default 0,
  rejects bigint not null default 0,
  challenges bigint not null default 0,
  dropped_no_authenticator bigint not null default 0,
  dropped_bad_authenticator bigint not null default 0,
  last_request_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index radius_clients_name_key on radius_clients (company_id, lower(name));

-- Who may use a restricted client: people of these departments (and their sub departments).
create table radius_client_departments (
  client_id text not null references radius_clients (id) on delete cascade,
  department_id text not null references departments (id) on delete cascade,
  primary key (client_id, department_id)
);

create table radius_challenges (
  state_hash text primary key,
  client_id text not null references radius_clients (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  username text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index radius_challenges_expiry on radius_challenges (expires_at);

create table certificate_authorities (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  name text not null,
  algorithm text not null check (algorithm in ('rsa', 'ecc', 'sm2')),
  strength text not null,
  source text not null check (source in ('created', 'imported')),
  subject text not null,
  serial_number text not null,
  not_before timestamptz not null,
  not_after timestamptz not null,
  fingerprint text not null,
  certificate_der bytea not null,
  private_key_sealed text not null,
  crl_number bigint not null default 0,
  crl_der bytea,
  crl_next_update timestamptz,
  created_by text,
  created_at timestamptz not null default now()
);
create unique index certificate_authorities_fingerprint_key on certificate_authorities (company_id, fingerprint);
create index certificate_authorities_company on certificate_authorities (company_id, created_at);

create table issued_certificates (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  ca_id text not null references certificate_authorities (id) on delete cascade,
  account_id text references accounts (id) on delete set null,
  subject text not null,
  serial_number text not null,
  algorithm text not null check (algorithm in ('rsa', 'ecc', 'sm2')),
  strength text not null,
  source text not null check (source in ('csr', 'generated')),
  not_before timestamptz not null,
  not_after timestamptz not null,
  fingerprint text not null,
  certificate_der bytea not null,
  revoked_at timestamptz,
  revocation_reason text,
  created_by text,
  created_at timestamptz not null default now()
);
create unique index issued_certificates_serial_key on issued_certificates (ca_id, serial_number);
create index issued_certificates_company on issued_certificates (company_id, created_at desc);
create index issued_certificates_account on issued_certificates (account_id);
create index issued_certificates_fingerprint on issued_certificates (fingerprint);

-- Signature factors: public_key holds the SubjectPublicKeyInfo (DER), key_id a UKEY's KeyId or
-- a soft lock's container id, certificate_id the issued certificate of a ukey_cert factor.
alter table mfa_factors
  add column key_id text,
  add column key_algorithm text,
  add column key_strength text,
  add column certificate_id text references issued_certificates (id) on delete cascade;

create table signature_challenges (
  challenge_hash text primary key,
  account_id text not null references accounts (id) on delete cascade,
  purpose text not null check (purpose in ('bind', 'second_factor')),
  subject text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index signature_challenges_expiry on signature_challenges (expires_at);
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
