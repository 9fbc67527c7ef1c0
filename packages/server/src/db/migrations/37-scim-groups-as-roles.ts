import type { Migration } from '../migrations.ts';

export const m37: Migration = {
  id: 37,
  name: 'scim groups as roles',
  // A SCIM token's Groups may be the company's permission roles instead of its departments
  // (issue 31). A role a SCIM client created or named keeps the client's externalId here, as
  // departments do in scim_groups.
  sql: `
alter table scim_tokens drop constraint scim_tokens_groups_as_check;
alter table scim_tokens add constraint scim_tokens_groups_as_check
  check (groups_as in ('departments', 'roles'));

create table scim_roles (
  company_id text not null references companies (id) on delete cascade,
  role_id text primary key references permission_roles (id) on delete cascade,
  external_id text
);
create unique index scim_roles_external_id on scim_roles (company_id, external_id) where external_id is not null;
`,
};
