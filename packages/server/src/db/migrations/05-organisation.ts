import type { Migration } from '../migrations.ts';

export const m05: Migration = {
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
};
