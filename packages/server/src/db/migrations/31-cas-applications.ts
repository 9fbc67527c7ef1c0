import type { Migration } from '../migrations.ts';

export const m31: Migration = {
  id: 31,
  name: 'cas applications',
  // CAS (Apereo CAS Protocol 3.0): an application can be a CAS service of its company's CAS
  // server. Sign-ins run through the OIDC provider's session (modules/cas); these tables hold each
  // app's CAS settings, sign-ins under way and the tickets (service, proxy and proxy-granting),
  // which also remember the sessions at services that single logout reaches.
  sql: `
alter table apps drop constraint apps_protocol_check;
alter table apps add constraint apps_protocol_check check (protocol in ('oidc', 'form', 'saml', 'cas'));

create table app_cas_configs (
  app_id text primary key references apps (id) on delete cascade,
  company_id text not null references companies (id) on delete cascade,
  service_patterns jsonb not null default '[]',
  attributes jsonb not null default '["username", "name", "email"]',
  ticket_ttl integer not null default 10 check (ticket_ttl between 1 and 300),
  allow_proxy boolean not null default false,
  slo_enabled boolean not null default true,
  slo_url text,
  updated_at timestamptz not null default now()
);
create index app_cas_configs_company on app_cas_configs (company_id);

create table cas_flows (
  id text primary key,
  app_id text not null references apps (id) on delete cascade,
  service text not null,
  renew boolean not null default false,
  gateway boolean not null default false,
  post_response boolean not null default false,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  consumed_at timestamptz
);
create index cas_flows_expiry on cas_flows (expires_at);

create table cas_tickets (
  id text primary key,
  kind text not null check (kind in ('ST', 'PT', 'PGT')),
  company_id text not null references companies (id) on delete cascade,
  app_id text not null references apps (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  sso_session_uid text not null,
  service text not null,
  renewed boolean not null default false,
  proxies jsonb not null default '[]',
  authenticated_at timestamptz not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  consumed_at timestamptz,
  validated_at timestamptz,
  logout_sent_at timestamptz
);
create index cas_tickets_session on cas_tickets (sso_session_uid) where kind = 'ST';
create index cas_tickets_expiry on cas_tickets (expires_at);
`,
};
