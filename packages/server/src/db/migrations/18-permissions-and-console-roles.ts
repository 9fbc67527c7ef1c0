import type { Migration } from '../migrations.ts';

export const m18: Migration = {
  id: 18,
  name: 'permissions and console roles',
  // Spec §3 Resource, Role, Authorization: an application's resources with their action types,
  // the company's roles and their people, and authorizations of a person, role or department
  // (with its sub departments) on an application's resources, with restrictions. Spec §6:
  // custom console roles of a company, held by delegated administrators.
  sql: `
-- Composite keys, so that a row of one company can only name rows of the same company.
create unique index apps_company_id on apps (company_id, id);
create unique index departments_company_id on departments (company_id, id);

create table console_roles (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  name text not null,
  description text,
  grants jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index console_roles_name on console_roles (company_id, lower(name));
create unique index console_roles_company_id on console_roles (company_id, id);

-- A delegated administrator reaches the console through exactly one console role of the company.
alter table company_members add column console_role_id text;
alter table company_members drop constraint company_members_role_check;
alter table company_members add constraint company_members_role_check
  check (role in ('owner', 'admin', 'external_admin', 'delegated_admin', 'member'));
alter table company_members add constraint company_members_console_role
  check ((role = 'delegated_admin') = (console_role_id is not null));
alter table company_members add constraint company_members_console_role_fk
  foreign key (company_id, console_role_id) references console_roles (company_id, id);

create table permission_resources (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  app_id text not null,
  name text not null,
  type text not null check (type in ('menu', 'api', 'button', 'data')),
  description text,
  data text,
  actions jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (company_id, app_id) references apps (company_id, id) on delete cascade
);
create unique index permission_resources_name on permission_resources (app_id, lower(name));
create unique index permission_resources_company_id on permission_resources (company_id, id);
create index permission_resources_company_app on permission_resources (company_id, app_id, name);

create table permission_roles (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  name text not null,
  description text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index permission_roles_name on permission_roles (company_id, lower(name));
create unique index permission_roles_company_id on permission_roles (company_id, id);

create table permission_role_members (
  role_id text not null,
  company_id text not null,
  account_id text not null,
  created_at timestamptz not null default now(),
  primary key (role_id, account_id),
  foreign key (company_id, role_id) references permission_roles (company_id, id) on delete cascade,
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade
);
create index permission_role_members_person on permission_role_members (company_id, account_id);

create table permission_authorizations (
  id text primary key,
  company_id text not null references companies (id) on delete cascade,
  app_id text not null,
  subject_type text not null check (subject_type in ('user', 'role', 'department')),
  subject_user_id text,
  subject_role_id text,
  subject_department_id text,
  effect text not null check (effect in ('allow', 'reject')),
  resource_scope text not null check (resource_scope in ('all', 'specific')),
  action_scope text not null check (action_scope in ('all', 'specific')),
  actions jsonb not null default '[]',
  valid_from timestamptz,
  valid_until timestamptz,
  time_windows jsonb not null default '[]',
  time_zone text not null default 'UTC',
  ip_ranges jsonb not null default '[]',
  description text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (company_id, app_id) references apps (company_id, id) on delete cascade,
  foreign key (company_id, subject_user_id) references company_members (company_id, account_id) on delete cascade,
  foreign key (company_id, subject_role_id) references permission_roles (company_id, id) on delete cascade,
  foreign key (company_id, subject_department_id) references departments (company_id, id) on delete cascade,
  check ((subject_type = 'user') = (subject_user_id is not null)
    and (subject_type = 'role') = (subject_role_id is not null)
    and (subject_type = 'department') = (subject_department_id is not null))
);
create index permission_authorizations_app on permission_authorizations (company_id, app_id);
create index permission_authorizations_user on permission_authorizations (company_id, subject_user_id);
create index permission_authorizations_role on permission_authorizations (subject_role_id);
create index permission_authorizations_department on permission_authorizations (subject_department_id);

create table permission_authorization_resources (
  authorization_id text not null references permission_authorizations (id) on delete cascade,
  company_id text not null,
  resource_id text not null,
  primary key (authorization_id, resource_id),
  foreign key (company_id, resource_id) references permission_resources (company_id, id) on delete cascade
);
create index permission_authorization_resources_resource on permission_authorization_resources (resource_id);

-- Decisions are taken from a cache in each server instance; every change that can alter one is
-- announced on this channel, whichever code path made it: p:<company> (the company's resources,
-- roles, authorizations, department tree), u:<company>:<account> (a person's roles, departments,
-- record), a:<account> (an account's status), c:<client id> (an application's credentials).
create function permission_notify_company() returns trigger language plpgsql as $$
begin
  perform pg_notify('tessera_permissions', 'p:' || coalesce(new.company_id, old.company_id));
  return null;
end
$$;
create function permission_notify_person() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' then
    perform pg_notify('tessera_permissions', 'u:' || old.company_id || ':' || old.account_id);
  end if;
  if tg_op <> 'DELETE' then
    perform pg_notify('tessera_permissions', 'u:' || new.company_id || ':' || new.account_id);
  end if;
  return null;
end
$$;
create function permission_notify_account() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or new.status is distinct from old.status then
    perform pg_notify('tessera_permissions', 'a:' || old.id);
  end if;
  return null;
end
$$;
create function permission_notify_client() returns trigger language plpgsql as $$
begin
  perform pg_notify('tessera_permissions', 'c:' || old.client_id);
  return null;
end
$$;
create trigger permission_resources_notify after insert or update or delete on permission_resources
  for each row execute function permission_notify_company();
create trigger permission_roles_notify after insert or update or delete on permission_roles
  for each row execute function permission_notify_company();
create trigger permission_authorizations_notify after insert or update or delete on permission_authorizations
  for each row execute function permission_notify_company();
create trigger permission_authorization_resources_notify
  after insert or update or delete on permission_authorization_resources
  for each row execute function permission_notify_company();
create trigger departments_permission_notify after insert or update or delete on departments
  for each row execute function permission_notify_company();
create trigger permission_role_members_notify after insert or update or delete on permission_role_members
  for each row execute function permission_notify_person();
create trigger department_members_permission_notify after insert or update or delete on department_members
  for each row execute function permission_notify_person();
create trigger company_members_permission_notify after insert or update or delete on company_members
  for each row execute function permission_notify_person();
create trigger accounts_permission_notify after update or delete on accounts
  for each row execute function permission_notify_account();
create trigger apps_permission_notify after update or delete on apps
  for each row execute function permission_notify_client();
`,
};
