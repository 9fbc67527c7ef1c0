import type { Migration } from '../migrations.ts';

export const m13: Migration = {
  id: 13,
  name: 'background jobs',
  // Background work any instance may run (modules/jobs): a queued job is claimed with
  // FOR UPDATE SKIP LOCKED and held by a lease its runner renews; jobs of one key run one at a
  // time (a unique index on running keys settles two claims in a race). A periodic job is one
  // row (its id names its kind) that goes back to the queue after each run.
  sql: `
create table jobs (
  id text primary key,
  kind text not null,
  key text,
  payload jsonb not null default '{}',
  status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
  run_after timestamptz not null default now(),
  every_seconds integer check (every_seconds > 0),
  attempts integer not null default 0,
  max_attempts integer check (max_attempts > 0),
  locked_by text,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create unique index jobs_one_running on jobs (key) where status = 'running';
create index jobs_due on jobs (run_after, created_at) where status = 'queued';
create index jobs_key on jobs (key, status) where key is not null;
create index jobs_finished on jobs (finished_at) where status in ('done', 'failed');
`,
};
