import type { Migration } from '../migrations.ts';

export const m19: Migration = {
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
};
