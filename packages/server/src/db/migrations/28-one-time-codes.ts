import type { Migration } from '../migrations.ts';

export const m28: Migration = {
  id: 28,
  name: 'one-time codes and verified addresses',
  // Codes sent by email or SMS: to sign in, as a second factor, to reset a forgotten password,
  // to confirm an address, to answer a RADIUS challenge. Stored hashed, bound to the request
  // that asked for them (the row id), single use, with a count of wrong tries. A row without
  // an account is a decoy: a request for an unknown person behaves like any other.
  // A person's email and phone count as theirs once they typed a code sent there; an
  // administrator's change of either clears it.
  sql: `
create table one_time_codes (
  id text primary key,
  company_id text references companies (id) on delete cascade,
  account_id text references accounts (id) on delete cascade,
  purpose text not null check (purpose in ('sign_in', 'second_factor', 'password_reset', 'verify_address', 'radius')),
  channel text not null check (channel in ('email', 'sms')),
  address text not null,
  code_hash text not null,
  tries integer not null default 0,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index one_time_codes_address on one_time_codes (address, created_at);
create index one_time_codes_account on one_time_codes (account_id, created_at);
create index one_time_codes_expiry on one_time_codes (expires_at);
alter table accounts add column email_verified_at timestamptz, add column phone_verified_at timestamptz;
`,
};
