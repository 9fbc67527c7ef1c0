import type { Migration } from '../migrations.ts';

export const m04: Migration = {
  id: 4,
  name: 'credential versions',
  sql: `
alter table accounts add column credential_version integer not null default 0;
alter table console_sessions add column credential_version integer not null default 0;
`,
};
