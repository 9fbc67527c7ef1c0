import type { Migration } from '../migrations.ts';

export const m03: Migration = {
  id: 3,
  name: 'portal sessions',
  sql: `
alter table console_sessions drop constraint console_sessions_variant_check;
alter table console_sessions add constraint console_sessions_variant_check
  check (variant in ('admin', 'dev', 'portal'));
`,
};
