import type { Migration } from '../migrations.ts';

export const m42: Migration = {
  id: 42,
  name: 'upstream groups and metadata refresh',
  // Upstream identity sources (OpenID Connect, SAML: issue 33) keep a person's departments in step
  // with the groups asserted at every sign-in. Like directory sync, which owns the departments it
  // maintains (identity_source_departments), an upstream source only takes away what it gave: each
  // membership it made is recorded here, and goes with the membership when an administrator
  // removes it. A membership the person already had (an administrator's, another source's) is
  // never recorded, so never removed by the source.
  //
  // A SAML source set up from a metadata URL reads it again once a day (and on demand): the state
  // of those refreshes, the last good one and the last failure shown on the source.
  sql: `
create table upstream_group_memberships (
  source_id text not null references identity_sources (id) on delete cascade,
  department_id text not null,
  account_id text not null,
  created_at timestamptz not null default now(),
  primary key (source_id, account_id, department_id),
  foreign key (department_id, account_id) references department_members (department_id, account_id) on delete cascade
);
create index upstream_group_memberships_membership on upstream_group_memberships (department_id, account_id);

create table saml_source_metadata_refreshes (
  source_id text primary key references identity_sources (id) on delete cascade,
  next_refresh_at timestamptz not null,
  refreshed_at timestamptz,
  failed_at timestamptz,
  error_reason text,
  error_params jsonb
);
`,
};
