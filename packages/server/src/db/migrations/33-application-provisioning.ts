import type { Migration } from '../migrations.ts';

export const m33: Migration = {
  id: 33,
  name: 'application provisioning',
  // Outbound SCIM 2.0 (modules/provisioning): an application's SCIM target (its bearer token
  // sealed), who was sent to it (person -> remote id, with what was sent last, so a run sends only
  // differences and never creates twice) and the runs, each the job of its application.
  sql: `
create table app_provisioning_targets (
  app_id text primary key references apps (id) on delete cascade,
  company_id text not null references companies (id) on delete cascade,
  base_url text not null,
  token_sealed text not null,
  user_name_from text not null default 'username' check (user_name_from in ('username', 'email')),
  attributes jsonb not null default '["name", "emails"]',
  lifecycle text not null default 'full' check (lifecycle in ('full', 'create_only')),
  on_loss text not null default 'deactivate' check (on_loss in ('deactivate', 'delete')),
  enabled boolean not null default true,
  updated_at timestamptz not null default now()
);
create index app_provisioning_targets_company on app_provisioning_targets (company_id);

-- No reference to accounts: a person deleted here must still be deactivated there.
create table app_provisioned_people (
  app_id text not null references apps (id) on delete cascade,
  account_id text not null,
  remote_id text not null,
  user_name text not null,
  sent jsonb not null,
  sent_hash text not null,
  active boolean not null default true,
  updated_at timestamptz not null default now(),
  primary key (app_id, account_id)
);

create table app_provisioning_runs (
  id text primary key,
  app_id text not null references apps (id) on delete cascade,
  company_id text not null references companies (id) on delete cascade,
  trigger text not null check (trigger in ('manual', 'schedule', 'change')),
  requested_by text references accounts (id) on delete set null,
  status text not null default 'queued'
    check (status in ('queued', 'running', 'retrying', 'succeeded', 'failed')),
  attempts integer not null default 0,
  counts jsonb,
  errors jsonb not null default '[]',
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index app_provisioning_runs_app on app_provisioning_runs (app_id, created_at desc);
`,
};
