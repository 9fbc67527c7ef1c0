import type { Migration } from '../migrations.ts';

export const m33: Migration = {
  id: 33,
  name: 'application provisioning',
  // Outbound SCIM 2.0 (modules/provisioning): an application's SCIM target (its bearer token
  // sealed), who was sent to it (person -> remote id, with what was sent last, so a run sends only
  // differences and never creates twice) and the runs, each the job of its application. Triggers
  // mark a company's targets when something that decides access or a SCIM User changes.
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
  -- Set by the triggers below when something the access rule or a SCIM User reads changed; a
  -- periodic job queues a run of each such target and clears it.
  changed_at timestamptz,
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

-- Changes that may change who an application is given, or what is sent of a person: mark the
-- company's targets (once until the next run is queued: a bulk change writes the mark once).
create function provisioning_changed_in_company() returns trigger language plpgsql as $$
begin
  update app_provisioning_targets set changed_at = now()
    where company_id = (case when tg_op = 'DELETE' then old.company_id else new.company_id end)
      and enabled and changed_at is null;
  return null;
end $$;
create function provisioning_changed_for_app() returns trigger language plpgsql as $$
begin
  update app_provisioning_targets set changed_at = now()
    where app_id = (case when tg_op = 'DELETE' then old.app_id else new.app_id end)
      and enabled and changed_at is null;
  return null;
end $$;
create function provisioning_changed_person() returns trigger language plpgsql as $$
begin
  update app_provisioning_targets set changed_at = now()
    where company_id in (select company_id from company_members where account_id = old.id)
      and enabled and changed_at is null;
  return null;
end $$;
create trigger app_assignments_provisioning after insert or update or delete on app_assignments
  for each row execute function provisioning_changed_for_app();
create trigger app_department_assignments_provisioning after insert or update or delete on app_department_assignments
  for each row execute function provisioning_changed_in_company();
create trigger app_role_assignments_provisioning after insert or update or delete on app_role_assignments
  for each row execute function provisioning_changed_in_company();
create trigger permission_role_members_provisioning after insert or delete on permission_role_members
  for each row execute function provisioning_changed_in_company();
create trigger department_members_provisioning after insert or delete on department_members
  for each row execute function provisioning_changed_in_company();
create trigger company_members_provisioning after insert or update of status or delete on company_members
  for each row execute function provisioning_changed_in_company();
create trigger apps_provisioning after update of status, default_access on apps
  for each row execute function provisioning_changed_in_company();
create trigger departments_provisioning after update of parent_id, name on departments
  for each row execute function provisioning_changed_in_company();
create trigger accounts_provisioning
  after update of username, email, phone, display_name, nickname, status on accounts
  for each row execute function provisioning_changed_person();
`,
};
