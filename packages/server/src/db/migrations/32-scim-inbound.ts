import type { Migration } from '../migrations.ts';

export const m32: Migration = {
  id: 32,
  name: 'scim inbound',
  // SCIM 2.0 service provider (modules/scim): the bearer tokens a company gives its HR system,
  // Entra ID or Okta (stored as SHA-256 of 256 random bits), the company's SCIM settings, and
  // what SCIM says of a person that Tessera has no column for (externalId, name parts, the
  // enterprise extension). Groups are departments and carry their externalId here too.
  sql: `
create table scim_tokens (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  name text not null,
  token_hash text not null unique,
  groups_as text not null default 'departments' check (groups_as in ('departments')),
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  last_used_ip text
);
create index scim_tokens_company on scim_tokens (company_id, created_at);

create table scim_settings (
  company_id text primary key references companies (id) on delete cascade,
  allow_passwords boolean not null default false,
  updated_at timestamptz not null default now()
);

create table scim_users (
  company_id text not null,
  account_id text not null,
  external_id text,
  attributes jsonb not null default '{}',
  primary key (company_id, account_id),
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade
);
create unique index scim_users_external_id on scim_users (company_id, external_id) where external_id is not null;

create table scim_groups (
  company_id text not null references companies (id) on delete cascade,
  department_id text primary key references departments (id) on delete cascade,
  external_id text
);
create unique index scim_groups_external_id on scim_groups (company_id, external_id) where external_id is not null;
`,
};
