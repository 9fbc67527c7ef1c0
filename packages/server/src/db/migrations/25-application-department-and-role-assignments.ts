import type { Migration } from '../migrations.ts';

export const m25: Migration = {
  id: 25,
  name: 'application department and role assignments',
  // Besides people, an application is assigned to departments (their sub departments included)
  // and to permission roles, each with an optional expiry. The access check walks up from the
  // person's departments (departments keep only their parent), so the lookups below are by
  // (app, department) and (app, role); a deleted department or role takes its assignments along.
  sql: `
create table app_department_assignments (
  app_id text not null references apps (id) on delete cascade,
  department_id text not null references departments (id) on delete cascade,
  company_id text not null references companies (id) on delete cascade,
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (app_id, department_id)
);
create index app_department_assignments_department on app_department_assignments (department_id);

create table app_role_assignments (
  app_id text not null references apps (id) on delete cascade,
  role_id text not null,
  company_id text not null,
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (app_id, role_id),
  foreign key (company_id, role_id) references permission_roles (company_id, id) on delete cascade
);
create index app_role_assignments_role on app_role_assignments (role_id);
-- The walk starts from the person's departments in every company (My apps spans them all).
create index department_members_account on department_members (account_id);
`,
};
