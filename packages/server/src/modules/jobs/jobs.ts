import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import * as repo from './jobs.repo.ts';

/**
 * Runs the jobs of the jobs table (jobs.repo.ts) in this instance, for every kind a module
 * registers. A job is picked up at once when it is queued (a NOTIFY wakes every instance) or at
 * the next poll. Any instance may run any job, so handlers are written to be repeatable: a job
 * whose instance stopped mid-way runs again (when it has tries left) on another one.
 *
 * - `register(kind, handler, { concurrency })` says what runs a kind, and optionally how many of
 *   its jobs may run at once on the whole platform (all instances together); `enqueue(job, trx?)`
 *   queues one (inside the caller's transaction when given, so a rollback queues nothing).
 * - `every(kind, seconds)` keeps one periodic job of the kind for all instances.
 * - A handler that throws is retried with exponential back-off while it has tries left
 *   (`maxAttempts` of the job), then left as failed with its last error.
 * - `drain()` runs everything due (tests, tools); `close()` stops, waits for running jobs, then
 *   aborts the `signal` of those still under way and waits for them to end.
 */

export type Job = repo.Job;
export type NewJob = repo.NewJob;

export interface JobContext {
  /** Extends the lease of a long job at once; false when the job was taken away (lease lost). */
  heartbeat(): Promise<boolean>;
  /** Aborted when the instance shuts down and its wait for running jobs is over: stop soon. */
  signal: AbortSignal;
}

export interface KindOptions {
  /** Jobs of the kind running at once on the platform (all instances together); default no limit. */
  concurrency?: number;
  /**
   * A job of the kind that succeeds leaves no row (a failed one is kept, with its error). For
   * work queued all day long, such as syslog delivery (up to one job every 2 s per company), whose
   * finished rows nobody reads: kept for the 7 days of `jobs.purge`, they would be the bulk of the
   * table (300 000 rows per forwarding company).
   */
  dropWhenDone?: boolean;
}

export interface JobHandler {
  run(job: Job, context: JobContext): Promise<void>;
  /** The job's instance stopped while it ran and no try is left: record what that means. */
  interrupted?(job: Job): Promise<void>;
}

interface Logger {
  error(object: unknown, message: string): void;
  warn(object: unknown, message: string): void;
}

export const JOBS_CHANNEL = 'tessera_jobs';

/** Back-off after failure number n: min(base · 2^(n-1), max), in ms. */
export const backoffDelay = (attempts: number, backoff: { baseMs: number; maxMs: number }) =>
  Math.min(backoff.baseMs * 2 ** Math.max(0, attempts - 1), backoff.maxMs);

const PURGE_KIND = 'jobs.purge';

export function createJobs(deps: {
  db: Db;
  log: Logger;
  /** Subscribes to the NOTIFY channel that announces new jobs (optional: polling alone works). */
  listen?(channel: string, onMessage: () => void): Promise<() => Promise<void>>;
  /** Jobs this instance runs at once (kinds with a platform-wide limit apart: that bounds them). */
  concurrency?: number;
  pollMs?: number;
  leaseSeconds?: number;
  backoff?: { baseMs: number; maxMs: number };
}) {
  const { db, log } = deps;
  const workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const concurrency = deps.concurrency ?? 2;
  const pollMs = deps.pollMs ?? 5_000;
  const leaseSeconds = deps.leaseSeconds ?? 60;
  const backoff = deps.backoff ?? { baseMs: 5_000, maxMs: 5 * 60_000 };
  const handlers = new Map<string, JobHandler>();
  /** Platform-wide limits of the kinds that have one. */
  const limits = new Map<string, number>();
  /** Kinds whose successful jobs are deleted rather than kept as done. */
  const dropWhenDone = new Set<string>();
  /** Aborted when `close` stops waiting for running jobs. */
  const stopping = new AbortController();
  const schedules = new Map<string, number>();
  const running = new Set<Promise<void>>();
  /** Running jobs of kinds without a platform-wide limit: these take this instance's places. */
  let general = 0;
  let stopped = true;
  let pollTimer: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let pumping: Promise<void> | undefined;

  const kinds = () => [...handlers.keys()];
  const claimable = () => kinds().map((kind) => ({ kind, limit: limits.get(kind) ?? null }));

  async function runJob(job: Job) {
    const handler = handlers.get(job.kind);
    const context: JobContext = {
      heartbeat: () => repo.renewLease(db, job.id, workerId, leaseSeconds),
      signal: stopping.signal,
    };
    const renew = setInterval(
      () => {
        context.heartbeat().catch((error) => log.warn({ err: error }, 'renewing a job lease failed'));
      },
      (leaseSeconds * 1000) / 3,
    );
    renew.unref();
    try {
      if (!handler) throw new Error(`no handler for jobs of kind ${job.kind}`);
      await handler.run(job, context);
      if (dropWhenDone.has(job.kind)) await repo.deleteFinishedJob(db, job.id, workerId);
      else await repo.finishJob(db, job.id, workerId, { ok: true });
    } catch (error) {
      log.warn({ err: error, job: { id: job.id, kind: job.kind, attempts: job.attempts } }, 'a job failed');
      const message = error instanceof Error ? error.message : String(error);
      await repo
        .finishJob(db, job.id, workerId, {
          ok: false,
          error: message,
          retryAfterMs: backoffDelay(job.attempts, backoff),
        })
        .catch((finishError) => log.error({ err: finishError }, 'recording a failed job failed'));
    } finally {
      clearInterval(renew);
    }
  }

  /**
   * Claims and starts jobs while there are free places; answers when no job could be claimed.
   * Jobs of kinds with a platform-wide limit are bounded by it, not by this instance's places.
   */
  async function fill(): Promise<void> {
    while (!stopped) {
      const open = claimable().filter((kind) => kind.limit !== null || general < concurrency);
      if (!open.length) return;
      const job = await repo.claimJob(db, open, workerId, leaseSeconds);
      if (!job) return;
      const counted = !limits.has(job.kind);
      if (counted) general++;
      const work: Promise<void> = runJob(job).finally(() => {
        running.delete(work);
        if (counted) general--;
        pump(); // a place came free: there may be more to do
      });
      running.add(work);
    }
  }

  /** One fill at a time; a call during a fill runs another right after it. */
  function pump() {
    if (stopped) return;
    const next = (pumping ?? Promise.resolve()).then(fill);
    const tracked = next.catch((error) => log.warn({ err: error }, 'claiming jobs failed'));
    pumping = tracked.finally(() => {
      if (pumping === tracked) pumping = undefined;
    });
  }

  async function reap() {
    for (const job of await repo.reapExpiredJobs(db)) {
      log.warn({ job: { id: job.id, kind: job.kind } }, 'a job was interrupted: its instance stopped');
      await handlers.get(job.kind)?.interrupted?.(job);
    }
  }

  const poll = () => {
    reap()
      .catch((error) => log.warn({ err: error }, 'taking back interrupted jobs failed'))
      .finally(pump);
  };

  /** Whether the running jobs ended within `ms`. */
  async function settleWithin(ms: number) {
    if (!running.size) return true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...running]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
    return running.size === 0;
  }

  handlers.set(PURGE_KIND, { run: () => repo.purgeFinishedJobs(db) });
  schedules.set(PURGE_KIND, 3600);

  return {
    workerId,
    register(kind: string, handler: JobHandler, options: KindOptions = {}) {
      handlers.set(kind, handler);
      if (options.concurrency !== undefined) limits.set(kind, options.concurrency);
      if (options.dropWhenDone) dropWhenDone.add(kind);
    },
    /** Runs `kind` every `seconds` on one instance of all (the first run is due at start). */
    every(kind: string, seconds: number, handler: JobHandler['run']) {
      handlers.set(kind, { run: handler });
      schedules.set(kind, seconds);
    },
    /** Makes a periodic job due now (after a change it should act on soon). */
    runSoon: (kind: string) => repo.runPeriodicSoon(db, kind).then(() => pump()),
    /**
     * Queues a job (with `trx`, inside the caller's transaction: the NOTIFY is delivered at
     * commit, and a rollback queues nothing); answers its id, or undefined if `unlessQueued`
     * found one waiting.
     */
    async enqueue(job: NewJob, trx: Db = db) {
      const id = await repo.insertJob(trx, job);
      if (id) await sql`select pg_notify(${JOBS_CHANNEL}, ${job.kind})`.execute(trx);
      if (trx === db) pump();
      return id;
    },
    async start() {
      if (!stopped) return;
      stopped = false;
      for (const [kind, seconds] of schedules) await repo.schedulePeriodic(db, kind, seconds);
      unlisten = await deps.listen?.(JOBS_CHANNEL, pump);
      pollTimer = setInterval(poll, pollMs);
      pollTimer.unref();
      poll();
    },
    /** Runs every due job (and what they queue) until none is left: for tests and tools. */
    async drain() {
      const wasStopped = stopped;
      if (wasStopped) {
        stopped = false;
        for (const [kind, seconds] of schedules) await repo.schedulePeriodic(db, kind, seconds);
      }
      try {
        await reap();
        for (;;) {
          pump();
          await pumping;
          if (running.size) {
            await Promise.race(running);
            continue;
          }
          if (!(await repo.countDueJobs(db, kinds()))) return;
          // Due jobs whose key or slot another worker holds: give that one a moment.
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        if (wasStopped) stopped = true;
      }
    },
    /**
     * Stops claiming and waits for the jobs under way (up to `waitMs`); then aborts their signal
     * and waits up to `waitMs` again for them to record how they ended (past that, their leases
     * run out and another instance takes them back).
     */
    async close(waitMs = 10_000) {
      stopped = true;
      clearInterval(pollTimer);
      await unlisten?.();
      await pumping;
      if (!(await settleWithin(waitMs))) {
        stopping.abort();
        await settleWithin(waitMs);
      }
    },
  };
}

export type Jobs = ReturnType<typeof createJobs>;
