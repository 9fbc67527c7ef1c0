import type { Migration } from '../migrations.ts';

export const m23: Migration = {
  id: 23,
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
};
