import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';

/**
 * Background work from the `jobs` table, safe with any number of server instances:
 *
 * - `enqueue(db, job)` adds a job (inside the caller's transaction when `db` is one); a job with
 *   a `key` is added only when no job with that key is pending, so a key names "the" job of a
 *   purpose (one company's syslog delivery, say).
 * - `every(kind, seconds)` keeps one periodic job of a kind: it runs, then waits `seconds`.
 * - `handle(kind, handler)` says what runs a kind. The handler gets the job and `heartbeat()`,
 *   which extends the lease; a handler that throws is retried with exponential back-off
 *   (`maxAttempts` tries, then the job stays as failed with its last error), a periodic job
 *   simply at its next turn or after the back-off, whichever comes first.
 * - `start()` polls for due jobs; `runDue()` claims and runs what is due once (tests, shutdown).
 *
 * A worker claims due jobs with `FOR UPDATE SKIP LOCKED` and holds each under a lease
 * (`locked_until`): a worker that dies leaves its job to be claimed again once the lease ends,
 * so a job runs at least once; handlers are written to be repeatable.
 */
export interface JobRow {
  id: string;
  kind: string;
  key: string | null;
  payload: unknown;
  attempts: number;
}

export interface JobContext {
  /** Extends the lease of a long job; answers false when the job was taken away (lease lost). */
  heartbeat(): Promise<boolean>;
}

export type JobHandler = (job: JobRow, context: JobContext) => Promise<void>;

export interface NewJob {
  kind: string;
  key?: string;
  payload?: unknown;
  /** When it may run first (default now). */
  runAt?: Date;
  /** Tries before it is left as failed (default 10; null: retried until it succeeds). */
  maxAttempts?: number | null;
}

export interface JobsOptions {
  db: Db;
  log?: { warn(object: unknown, message: string): void };
  /** How often to look for due jobs (ms). */
  pollMs?: number;
  /** How long a claim holds before another worker may take the job (ms). */
  leaseMs?: number;
  /** Back-off after failure number n: min(base * 2^(n-1), max), in ms. */
  backoff?: { baseMs: number; maxMs: number };
}

export const backoffDelay = (attempts: number, backoff: { baseMs: number; maxMs: number }) =>
  Math.min(backoff.baseMs * 2 ** Math.max(0, attempts - 1), backoff.maxMs);

export async function enqueue(db: Db, job: NewJob): Promise<void> {
  await db
    .insertInto('jobs')
    .values({
      id: newId(),
      kind: job.kind,
      key: job.key ?? null,
      payload: JSON.stringify(job.payload ?? {}),
      run_at: job.runAt ?? sql<Date>`now()`,
      every_seconds: null,
      max_attempts: job.maxAttempts === undefined ? 10 : job.maxAttempts,
      locked_by: null,
      last_error: null,
    })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

export function createJobs(options: JobsOptions) {
  const { db } = options;
  const pollMs = options.pollMs ?? 1_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const backoff = options.backoff ?? { baseMs: 5_000, maxMs: 5 * 60_000 };
  const workerId = `${hostname()}:${process.pid}:${newId().slice(0, 8)}`;
  const handlers = new Map<string, JobHandler>();
  const schedules = new Map<string, number>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<number> | undefined;
  let stopped = true;

  const lease = () => sql<Date>`now() + ${`${leaseMs} milliseconds`}::interval`;

  async function claim(limit: number): Promise<JobRow[]> {
    const kinds = [...handlers.keys()];
    if (!kinds.length) return [];
    const result = await sql<JobRow>`
      update jobs set locked_by = ${workerId}, locked_until = ${lease()}, attempts = attempts + 1
      where id in (
        select id from jobs
        where failed_at is null and run_at <= now() and kind = any(${kinds}::text[])
          and (locked_until is null or locked_until < now())
        order by run_at
        limit ${limit}
        for update skip locked)
      returning id, kind, key, payload, attempts`.execute(db);
    return result.rows;
  }

  async function complete(job: JobRow): Promise<void> {
    const every = schedules.get(job.kind);
    if (every !== undefined && job.key === periodicKey(job.kind)) {
      await db
        .updateTable('jobs')
        .set({
          run_at: sql<Date>`now() + ${`${every} seconds`}::interval`,
          attempts: 0,
          locked_by: null,
          locked_until: null,
          last_error: null,
        })
        .where('id', '=', job.id)
        .where('locked_by', '=', workerId)
        .execute();
      return;
    }
    await db.deleteFrom('jobs').where('id', '=', job.id).where('locked_by', '=', workerId).execute();
  }

  async function retry(job: JobRow, error: unknown): Promise<void> {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
    const every = schedules.get(job.kind);
    const delay = backoffDelay(job.attempts, backoff);
    const next = every !== undefined ? Math.min(delay, every * 1000) : delay;
    await db
      .updateTable('jobs')
      .set((eb) => ({
        run_at: sql<Date>`now() + ${`${next} milliseconds`}::interval`,
        locked_by: null,
        locked_until: null,
        last_error: message,
        failed_at: eb
          .case()
          .when(eb.and([eb('max_attempts', 'is not', null), eb('attempts', '>=', eb.ref('max_attempts'))]))
          .then(sql<Date>`now()`)
          .else(null)
          .end(),
      }))
      .where('id', '=', job.id)
      .where('locked_by', '=', workerId)
      .execute();
  }

  async function run(job: JobRow): Promise<void> {
    const handler = handlers.get(job.kind);
    if (!handler) return;
    const context: JobContext = {
      async heartbeat() {
        const result = await db
          .updateTable('jobs')
          .set({ locked_until: lease() })
          .where('id', '=', job.id)
          .where('locked_by', '=', workerId)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      },
    };
    try {
      await handler(job, context);
      await complete(job);
    } catch (error) {
      options.log?.warn({ err: error, job: { kind: job.kind, key: job.key } }, 'a background job failed');
      await retry(job, error);
    }
  }

  /** Claims what is due and runs it, a few at a time, until nothing is due; answers how many ran. */
  async function runDue(): Promise<number> {
    if (running) return running;
    running = (async () => {
      let count = 0;
      for (let round = 0; round < 50; round++) {
        const jobs = await claim(4);
        if (!jobs.length) break;
        await Promise.all(jobs.map(run));
        count += jobs.length;
      }
      return count;
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  const periodicKey = (kind: string) => `every:${kind}`;

  const tick = () => {
    if (stopped) return;
    runDue()
      .catch((error) => options.log?.warn({ err: error }, 'claiming background jobs failed'))
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(tick, pollMs);
          timer.unref();
        }
      });
  };

  return {
    workerId,
    enqueue: (job: NewJob, from: Db = db) => enqueue(from, job),
    handle(kind: string, handler: JobHandler) {
      handlers.set(kind, handler);
    },
    /** Runs `kind` every `seconds` (one schedule for all instances; the first run is due at once). */
    async every(kind: string, seconds: number) {
      schedules.set(kind, seconds);
      await db
        .insertInto('jobs')
        .values({
          id: newId(),
          kind,
          key: periodicKey(kind),
          payload: '{}',
          run_at: sql<Date>`now()`,
          every_seconds: seconds,
          max_attempts: null,
          locked_by: null,
          last_error: null,
        })
        .onConflict((oc) => oc.column('key').doUpdateSet({ every_seconds: seconds, failed_at: null }))
        .execute();
    },
    /** Makes a periodic job due now (after a change that it should act on soon). */
    async runSoon(kind: string) {
      await db
        .updateTable('jobs')
        .set({ run_at: sql<Date>`now()` })
        .where('key', '=', periodicKey(kind))
        .execute();
    },
    runDue,
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(tick, 0);
      timer.unref();
    },
    /** Stops polling and waits for the jobs under way. */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}

export type Jobs = ReturnType<typeof createJobs>;
