import type { Migration } from '../migrations.ts';

export const m34: Migration = {
  id: 34,
  name: 'ldap applications',
  // The LDAP server (modules/ldap-server): an application can be an LDAP client of its company's
  // read-only directory. Its service account binds with a secret shown once and kept only as a
  // SHA-256 hash (the secret is 256 random bits, so a fast hash is enough); the switch says
  // whether people may bind with their password alone where the company asks for a second factor.
  sql: `
alter table apps drop constraint apps_protocol_check;
alter table apps add constraint apps_protocol_check check (protocol in ('oidc', 'form', 'saml', 'cas', 'ldap'));

create table app_ldap_configs (
  app_id text primary key references apps (id) on delete cascade,
  company_id text not null references companies (id) on delete cascade,
  secret_hash text,
  secret_rotated_at timestamptz,
  allow_password_with_mfa boolean not null default false,
  updated_at timestamptz not null default now()
);
create index app_ldap_configs_company on app_ldap_configs (company_id);
`,
};
