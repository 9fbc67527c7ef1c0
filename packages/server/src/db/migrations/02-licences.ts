import type { Migration } from '../migrations.ts';

export const m02: Migration = {
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
};
