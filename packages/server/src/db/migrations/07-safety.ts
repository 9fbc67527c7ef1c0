import type { Migration } from '../migrations.ts';

export const m07: Migration = {
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
};
