import type { Migration } from '../migrations.ts';

export const m14: Migration = {
  id: 14,
  name: 'import queue',
  // User imports run as jobs (kind user-import, one per company at a time): the task keeps the
  // address it was uploaded from (for its audit event) and when its turn came; the uploaded file
  // waits in the database until the task ends. Jobs of a kind with a platform-wide limit run in
  // numbered slots, and a unique index on running slots settles two claims in a race.
  sql: `
alter table import_tasks
  add column created_ip text,
  add column started_at timestamptz;
create table import_task_files (
  task_id text primary key references import_tasks (id) on delete cascade,
  content bytea not null
);
alter table jobs add column slot integer;
create unique index jobs_one_per_slot on jobs (kind, slot) where status = 'running' and slot is not null;
`,
};
