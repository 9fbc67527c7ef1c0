import type { Migration } from '../migrations.ts';

export const m27: Migration = {
  id: 27,
  name: 'platform settings',
  // The installation's own settings that its platform administrator changes in the platform
  // console (one row): who may create companies. Until now anyone signed in could; an
  // installation that serves one company lets platform administrators only.
  sql: `
create table platform_settings (
  id boolean primary key default true check (id),
  company_creation text not null default 'everyone' check (company_creation in ('everyone', 'platform_admins')),
  updated_at timestamptz not null default now()
);
insert into platform_settings default values;
`,
};
