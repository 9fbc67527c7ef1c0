import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { JobsTable } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';

/**
 * The jobs table (migration 13): background work that any instance may run. A queued job is
 * claimed with `FOR UPDATE SKIP LOCKED`, so instances never wait for each other's claims, and is
 * held by a lease its runner renews; a lease that ran out means the instance stopped. Jobs of the
 * same key (one directory source, one syslog target) run one at a time: the claim skips a key
 * that has a running job, and a unique index on running keys settles two claims in a race.
 */

export interface Job {
  id: string;
  kind: string;
  key: string;
  payload: Record<string, unknown>;
  attempts: number;
}

const asJob = (
  row: Pick<JobsTable, 'id' | 'kind' | 'key'> & { payload: unknown; attempts: number },
): Job => ({
  id: row.id,
  kind: row.kind,
  key: row.key,
  payload: (row.payload ?? {}) as Record<string, unknown>,
  attempts: row.attempts,
});

export async function insertJob(
  db: Db,
  job: { kind: string; key: string; payload?: Record<string, unknown>; runAfter?: Date },
): Promise<string> {
  const id = newId();
  await db
    .insertInto('jobs')
    .values({
      id,
      kind: job.kind,
      key: job.key,
      payload: JSON.stringify(job.payload ?? {}),
      status: 'queued',
      run_after: job.runAfter ?? sql<Date>`now()`,
    })
    .execute();
  return id;
}

/** Whether a job of the key is queued or running (a schedule does not queue a second one). */
export async function hasPendingJob(db: Db, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('key', '=', key)
    .where('status', 'in', ['queued', 'running'])
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/**
 * Claims the oldest due job of the given kinds whose key has no running job, for `leaseSeconds`.
 * Answers undefined when there is none, or when another instance claimed a job of the same key
 * at the same moment (the unique index on running keys refuses the second claim).
 */
export async function claimJob(
  db: Db,
  kinds: readonly string[],
  workerId: string,
  leaseSeconds: number,
): Promise<Job | undefined> {
  if (!kinds.length) return undefined;
  try {
    const { rows } = await sql<
      Pick<JobsTable, 'id' | 'kind' | 'key'> & { payload: unknown; attempts: number }
    >`
      update jobs set status = 'running', locked_by = ${workerId},
        lease_until = now() + make_interval(secs => ${leaseSeconds}),
        attempts = attempts + 1, started_at = now()
      where id = (
        select j.id from jobs j
        where j.status = 'queued' and j.run_after <= now() and j.kind = any(${[...kinds]}::text[])
          and not exists (select 1 from jobs r where r.key = j.key and r.status = 'running')
        order by j.run_after, j.created_at
        limit 1
        for update skip locked)
      returning id, kind, key, payload, attempts`.execute(db);
    return rows[0] ? asJob(rows[0]) : undefined;
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return undefined;
    throw error;
  }
}

/** Extends the lease of a job this worker holds; false when it lost it (it was reaped). */
export async function renewLease(db: Db, jobId: string, workerId: string, leaseSeconds: number) {
  const row = await db
    .updateTable('jobs')
    .set({ lease_until: sql<Date>`now() + make_interval(secs => ${leaseSeconds})` })
    .where('id', '=', jobId)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'running')
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}

export async function finishJob(
  db: Db,
  jobId: string,
  workerId: string,
  outcome: { ok: true } | { ok: false; error: string },
): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      status: outcome.ok ? 'done' : 'failed',
      last_error: outcome.ok ? null : outcome.error.slice(0, 2000),
      finished_at: sql<Date>`now()`,
      lease_until: null,
    })
    .where('id', '=', jobId)
    .where('locked_by', '=', workerId)
    .execute();
}

/** Fails the running jobs whose lease ran out (their instance stopped) and answers them. */
export async function reapExpiredJobs(db: Db): Promise<Job[]> {
  const rows = await db
    .updateTable('jobs')
    .set({
      status: 'failed',
      last_error: 'interrupted: the lease ran out',
      finished_at: sql<Date>`now()`,
    })
    .where('status', '=', 'running')
    .where('lease_until', '<', sql<Date>`now()`)
    .returning(['id', 'kind', 'key', 'payload', 'attempts'])
    .execute();
  return rows.map(asJob);
}

/** Forgets finished jobs after a week. */
export async function purgeFinishedJobs(db: Db): Promise<void> {
  await db
    .deleteFrom('jobs')
    .where('status', 'in', ['done', 'failed'])
    .where('finished_at', '<', sql<Date>`now() - interval '7 days'`)
    .execute();
}

/** How many jobs of the kinds are due now (queued, run_after passed). */
export async function countDueJobs(db: Db, kinds: readonly string[]): Promise<number> {
  if (!kinds.length) return 0;
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'queued')
    .where('kind', 'in', [...kinds])
    .where('run_after', '<=', sql<Date>`now()`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
