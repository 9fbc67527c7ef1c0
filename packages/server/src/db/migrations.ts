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
