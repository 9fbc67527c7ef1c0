import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Job } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';

/**
 * Background jobs in the database (migration 13), so that any number of instances share them:
 * - `enqueueJob` adds one;
 * - `claimJob` takes the oldest due one of some kinds with FOR UPDATE SKIP LOCKED (two instances
 *   never take the same) and holds it for a lease; a job whose lease ran out (its instance
 *   stopped) is due again;
 * - `completeJob` removes it; `retryJob` puts it back for later, or marks it failed once its
 *   attempts are spent (kept for inspection, purged after 30 days);
 * - `moveScheduleOn` is the periodic part: one instance at a time moves a schedule's next run on
 *   and is the one that enqueues that period's job.
 */

export interface NewJob {
  kind: string;
  payload?: unknown;
  /** Not before (default now). */
  runAt?: Date;
  maxAttempts?: number;
}

export async function enqueueJob(db: Db, job: NewJob): Promise<string> {
  const id = newId();
  await db
    .insertInto('jobs')
    .values({
      id,
      kind: job.kind,
      payload: JSON.stringify(job.payload ?? {}),
      run_at: job.runAt ?? new Date(),
      max_attempts: job.maxAttempts ?? 5,
    })
    .execute();
  return id;
}

/** The oldest due job of these kinds, now held by `worker` for `leaseSeconds`; undefined when none is due. */
export async function claimJob(
  db: Db,
  kinds: readonly string[],
  worker: string,
  leaseSeconds: number,
): Promise<Job | undefined> {
  if (!kinds.length) return undefined;
  const result = await sql<Job>`
    update jobs set attempts = attempts + 1, locked_by = ${worker},
      locked_until = now() + make_interval(secs => ${leaseSeconds})
    where id = (
      select id from jobs
      where kind = any(${[...kinds]}::text[]) and failed_at is null and run_at <= now()
        and (locked_until is null or locked_until < now())
      order by run_at
      limit 1
      for update skip locked)
    returning *`.execute(db);
  return result.rows[0];
}

/** Done: the job is removed (only by the worker that holds it). */
export async function completeJob(db: Db, id: string, worker: string): Promise<void> {
  await db.deleteFrom('jobs').where('id', '=', id).where('locked_by', '=', worker).execute();
}

/**
 * Failed this time: due again after `delaySeconds`, or failed for good when its attempts are
 * spent. Answers whether it will run again.
 */
export async function retryJob(
  db: Db,
  id: string,
  worker: string,
  error: string,
  delaySeconds: number,
): Promise<boolean> {
  const row = await db
    .updateTable('jobs')
    .set({
      locked_until: null,
      locked_by: null,
      last_error: error.slice(0, 2000),
      run_at: sql<Date>`now() + make_interval(secs => ${delaySeconds})`,
      failed_at: sql<Date | null>`case when attempts >= max_attempts then now() end`,
    })
    .where('id', '=', id)
    .where('locked_by', '=', worker)
    .returning('failed_at')
    .executeTakeFirst();
  return Boolean(row && !row.failed_at);
}

/** Makes sure a periodic schedule exists (its first run is due at once); a changed period is taken over. */
export async function ensureSchedule(db: Db, kind: string, everySeconds: number): Promise<void> {
  await db
    .insertInto('job_schedules')
    .values({ kind, every_seconds: everySeconds, next_run_at: new Date() })
    .onConflict((oc) => oc.column('kind').doUpdateSet({ every_seconds: everySeconds }))
    .execute();
}

/**
 * If the schedule is due, moves its next run one period on and answers true: the caller (one
 * instance only, the row is locked) enqueues this period's job in the same transaction.
 */
export async function moveScheduleOn(db: Db, kind: string): Promise<boolean> {
  const row = await db
    .updateTable('job_schedules')
    .set({ next_run_at: sql<Date>`now() + make_interval(secs => every_seconds)` })
    .where('kind', '=', kind)
    .where('next_run_at', '<=', sql<Date>`now()`)
    .returning('kind')
    .executeTakeFirst();
  return Boolean(row);
}

/** Forgets jobs that failed for good a month ago. */
export async function purgeFailedJobs(db: Db): Promise<void> {
  await db.deleteFrom('jobs').where('failed_at', '<', sql<Date>`now() - interval '30 days'`).execute();
}
