import type { Migration } from '../migrations.ts';

export const m10: Migration = {
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
};
