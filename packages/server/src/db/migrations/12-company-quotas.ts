import type { Migration } from '../migrations.ts';

export const m12: Migration = {
  id: 12,
  name: 'company quotas',
  // How many users and applications each company may have, within the installation licence.
  // New companies get the configured defaults; companies from before quotas have no row, which
  // means no limit beyond the licence, so an upgrade refuses nothing that worked before.
  sql: `
create table company_quotas (
  company_id text not null references companies (id) on delete cascade,
  module text not null check (module in ('user', 'app')),
  quota integer check (quota between 0 and 100000000),
  updated_at timestamptz not null default now(),
  primary key (company_id, module)
);
`,
};
