import type { Migration } from '../migrations.ts';

export const m01: Migration = {
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
};
