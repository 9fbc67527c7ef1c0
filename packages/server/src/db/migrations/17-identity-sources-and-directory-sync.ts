import type { Migration } from '../migrations.ts';

export const m17: Migration = {
  id: 17,
  name: 'identity sources and directory sync',
  sql: `
-- LDAP / Active Directory, DingTalk, WeChat and WeCom sources of a company. Settings are JSON
-- (their shape is the contract's); the one secret of each (bind password, app secret) is sealed.
create table identity_sources (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  type text not null check (type in ('ldap', 'dingtalk', 'weixin', 'work_weixin')),
  name text not null,
  enabled boolean not null default true,
  settings jsonb not null,
  secret_sealed text,
  sync_interval_minutes integer not null default 0,
  next_sync_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index identity_sources_company on identity_sources (company_id, created_at);
create index identity_sources_due on identity_sources (next_sync_at) where sync_interval_minutes > 0;

-- A person of the company and the entry of a source that is them (entryUUID, objectGUID,
-- unionid, userid). It goes with the person's record in the company.
create table identity_links (
  source_id text not null references identity_sources (id) on delete cascade,
  company_id text not null,
  account_id text not null,
  external_id text not null,
  -- LDAP: the entry's DN and the username it signs in with; scan: the provider's nickname.
  external_dn text,
  external_name text,
  -- Disabled by a sync (gone from the directory, or disabled there): only such people are enabled again by one.
  disabled_by_sync boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (source_id, external_id),
  unique (source_id, account_id),
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade
);
create index identity_links_account on identity_links (account_id);

-- The departments a source maintains (a group, an organisational unit, a DingTalk or WeCom department).
create table identity_source_departments (
  source_id text not null references identity_sources (id) on delete cascade,
  external_id text not null,
  department_id text not null references departments (id) on delete cascade,
  primary key (source_id, external_id),
  unique (department_id)
);

-- Directory entries whose username, email or phone an account outside the company has, as
-- already counted to the company (a fingerprint of those identifiers): counted once, not per run.
create table identity_source_conflicts (
  source_id text not null references identity_sources (id) on delete cascade,
  external_id text not null,
  fingerprint text not null,
  primary key (source_id, external_id)
);

create table sync_runs (
  id text primary key,
  source_id text not null references identity_sources (id) on delete cascade,
  company_id text not null references companies (id) on delete cascade,
  mode text not null check (mode in ('preview', 'apply', 'sync')),
  trigger text not null check (trigger in ('manual', 'schedule')),
  status text not null check (status in ('queued', 'running', 'succeeded', 'failed')),
  requested_by text references accounts (id) on delete set null,
  preview_run_id text references sync_runs (id) on delete set null,
  counts jsonb,
  errors jsonb not null default '[]',
  -- A digest of the plan's rows: an apply of a preview must plan the same.
  plan_hash text,
  -- A preview keeps the directory as it read it, so that applying it plans against the same data.
  snapshot jsonb,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index sync_runs_source on sync_runs (source_id, created_at desc);
create unique index sync_runs_applied_once on sync_runs (preview_run_id) where preview_run_id is not null;

create table sync_run_rows (
  run_id text not null references sync_runs (id) on delete cascade,
  kind text not null,
  seq integer not null,
  row jsonb not null,
  primary key (run_id, kind, seq)
);

-- Scan sign-in and binding: the OAuth state, single use and short-lived, bound to the sign-in
-- interaction (or to the user-centre session that binds). Stored hashed.
create table scan_states (
  id text primary key,
  source_id text not null references identity_sources (id) on delete cascade,
  purpose text not null check (purpose in ('sign_in', 'bind')),
  interaction_uid text,
  session_id text,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index scan_states_expires on scan_states (expires_at);
`,
};
