import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';

/**
 * The jobs table (migration 13): background work that any instance may run. A queued job is
 * claimed with `FOR UPDATE SKIP LOCKED`, so instances never wait for each other's claims, and is
 * held by a lease its runner renews; a lease that ran out means the instance stopped. Jobs of the
 * same key (one directory source, one company's syslog target) run one at a time: the claim skips
 * a key that has a running job, and a unique index on running keys settles two claims in a race.
 * A kind may have a platform-wide limit (user imports): its running jobs hold numbered slots,
 * settled the same way by a unique index on running slots (migration 14).
 */

export interface Job {
  id: string;
  kind: string;
  key: string | null;
  payload: Record<string, unknown>;
  /** Tries so far, this one included. */
  attempts: number;
}

export interface NewJob {
  kind: string;
  /** Jobs of one key run one at a time. */
  key?: string;
  payload?: Record<string, unknown>;
  /** When it may run first (default now). */
  runAfter?: Date;
  /** Tries before it is left failed (default 1: a failure is final); null: until it succeeds. */
  maxAttempts?: number | null;
  /** Queue nothing when a job of the key is already waiting (its run will see the same state). */
  unlessQueued?: boolean;
}

type JobRowOut = { id: string; kind: string; key: string | null; payload: unknown; attempts: number };

const asJob = (row: JobRowOut): Job => ({
  id: row.id,
  kind: row.kind,
  key: row.key,
  payload: (row.payload ?? {}) as Record<string, unknown>,
  attempts: row.attempts,
});

const lease = (seconds: number) => sql<Date>`now() + make_interval(secs => ${seconds})`;

/** Queues a job; answers its id, or undefined when `unlessQueued` found one waiting. */
export async function insertJob(db: Db, job: NewJob): Promise<string | undefined> {
  const id = newId();
  const maxAttempts = job.maxAttempts === undefined ? 1 : job.maxAttempts;
  const runAfter = job.runAfter ?? sql<Date>`now()`;
  const payload = JSON.stringify(job.payload ?? {});
  if (job.unlessQueued && job.key !== undefined) {
    const { rows } = await sql<{ id: string }>`
      insert into jobs (id, kind, key, payload, run_after, max_attempts)
      select ${id}, ${job.kind}, ${job.key}, ${payload}::jsonb, ${runAfter}, ${maxAttempts}
      where not exists (select 1 from jobs where key = ${job.key} and status = 'queued')
      returning id`.execute(db);
    return rows[0]?.id;
  }
  await db
    .insertInto('jobs')
    .values({
      id,
      kind: job.kind,
      key: job.key ?? null,
      payload,
      run_after: runAfter,
      every_seconds: null,
      max_attempts: maxAttempts,
      locked_by: null,
      last_error: null,
    })
    .execute();
  return id;
}

/** Keeps one periodic job of a kind for all instances (its id is derived from the kind). */
export async function schedulePeriodic(db: Db, kind: string, seconds: number): Promise<void> {
  await db
    .insertInto('jobs')
    .values({
      id: periodicId(kind),
      kind,
      key: periodicId(kind),
      payload: '{}',
      run_after: sql<Date>`now()`,
      every_seconds: seconds,
      max_attempts: null,
      locked_by: null,
      last_error: null,
    })
    .onConflict((oc) => oc.column('id').doUpdateSet({ every_seconds: seconds }))
    .execute();
}

export const periodicId = (kind: string) => `every:${kind}`;

/** Makes a periodic job due now, unless it is running. */
export async function runPeriodicSoon(db: Db, kind: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ run_after: sql<Date>`now()` })
    .where('id', '=', periodicId(kind))
    .where('status', '=', 'queued')
    .execute();
}

/** Whether a job of the key is queued or running. */
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

/** A kind of job this worker runs, and how many of its jobs may run at once on the platform (null: no limit). */
export interface ClaimableKind {
  kind: string;
  limit: number | null;
}

/**
 * Claims the oldest due job of the given kinds whose key has no running job and whose kind is
 * under its platform-wide limit, for `leaseSeconds`. A job of a limited kind runs in the lowest
 * free slot (0 to limit - 1). Answers undefined when there is none, or when another instance
 * claimed a job of the same key or slot at the same moment (unique indexes on running keys and
 * running slots refuse the second claim).
 */
export async function claimJob(
  db: Db,
  kinds: readonly ClaimableKind[],
  workerId: string,
  leaseSeconds: number,
): Promise<Job | undefined> {
  if (!kinds.length) return undefined;
  const names = kinds.map((k) => k.kind);
  const limits = kinds.map((k) => k.limit);
  try {
    const { rows } = await sql<JobRowOut>`
      update jobs set status = 'running', locked_by = ${workerId}, lease_until = ${lease(leaseSeconds)},
        attempts = jobs.attempts + 1, started_at = now(), slot = picked.slot
      from (
        select j.id, case when k.lim is null then null else (
            select min(s) from generate_series(0, k.lim - 1) s
            where not exists (select 1 from jobs r where r.kind = j.kind and r.status = 'running' and r.slot = s))
          end as slot
        from jobs j join unnest(${names}::text[], ${limits}::int[]) as k(kind, lim) on k.kind = j.kind
        where j.status = 'queued' and j.run_after <= now()
          and (j.key is null or not exists (select 1 from jobs r where r.key = j.key and r.status = 'running'))
          and (k.lim is null or (select count(*) from jobs r where r.kind = j.kind and r.status = 'running') < k.lim)
        order by j.run_after, j.created_at
        limit 1
        for update of j skip locked) picked
      where jobs.id = picked.id
      returning jobs.id, jobs.kind, jobs.key, jobs.payload, jobs.attempts`.execute(db);
    return rows[0] ? asJob(rows[0]) : undefined;
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return undefined;
    throw error;
  }
}

/** Extends the lease of a job this worker holds; false when it lost it (it was taken back). */
export async function renewLease(db: Db, jobId: string, workerId: string, leaseSeconds: number) {
  const row = await db
    .updateTable('jobs')
    .set({ lease_until: lease(leaseSeconds) })
    .where('id', '=', jobId)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'running')
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}

/**
 * Ends a run this worker holds. A periodic job goes back to the queue for its next turn (after
 * a failure, after the back-off or its period, whichever is sooner); a failed job with tries left
 * goes back after the back-off; otherwise the job stays as done or failed (purged after a week).
 */
export async function finishJob(
  db: Db,
  jobId: string,
  workerId: string,
  outcome: { ok: true } | { ok: false; error: string; retryAfterMs: number },
): Promise<void> {
  const error = outcome.ok ? null : outcome.error.slice(0, 2000);
  const retryMs = outcome.ok ? 0 : outcome.retryAfterMs;
  await sql`
    update jobs set
      status = case
        when every_seconds is not null then 'queued'
        when ${outcome.ok} then 'done'
        when max_attempts is null or attempts < max_attempts then 'queued'
        else 'failed' end,
      run_after = case
        when every_seconds is not null and ${outcome.ok} then now() + make_interval(secs => every_seconds)
        when every_seconds is not null then now() + make_interval(secs => least(every_seconds, ${retryMs / 1000}))
        else now() + make_interval(secs => ${retryMs / 1000}) end,
      attempts = case when every_seconds is not null and ${outcome.ok} then 0 else attempts end,
      last_error = ${error},
      locked_by = null,
      lease_until = null,
      slot = null,
      finished_at = now()
    where id = ${jobId} and locked_by = ${workerId} and status = 'running'`.execute(db);
}

/** A job that succeeded, deleted instead of kept as done (periodic jobs are never deleted). */
export async function deleteFinishedJob(db: Db, jobId: string, workerId: string): Promise<void> {
  await db
    .deleteFrom('jobs')
    .where('id', '=', jobId)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'running')
    .where('every_seconds', 'is', null)
    .execute();
}

/**
 * Takes back the running jobs whose lease ran out (their instance stopped): those with tries left
 * (and periodic ones) go back to the queue; the others are failed and answered, so that their
 * handlers can record what an interruption means.
 */
export async function reapExpiredJobs(db: Db): Promise<Job[]> {
  const { rows } = await sql<JobRowOut>`
    update jobs set
      status = case when every_seconds is not null or max_attempts is null or attempts < max_attempts
        then 'queued' else 'failed' end,
      last_error = 'interrupted: the lease ran out',
      locked_by = null,
      lease_until = null,
      slot = null,
      finished_at = now()
    where status = 'running' and lease_until < now()
    returning id, kind, key, payload, attempts, status`.execute(db);
  return rows.filter((row) => (row as JobRowOut & { status: string }).status === 'failed').map(asJob);
}

/** Forgets finished jobs after a week. */
export async function purgeFinishedJobs(db: Db): Promise<void> {
  await db
    .deleteFrom('jobs')
    .where('status', 'in', ['done', 'failed'])
    .where('finished_at', '<', sql<Date>`now() - interval '7 days'`)
    .execute();
}

/** How many jobs of the kinds are due now. */
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
