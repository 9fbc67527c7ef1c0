import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import * as repo from './jobs.repo.ts';

/**
 * Runs the jobs of the jobs table in this instance (see jobs.repo.ts), for every kind a module
 * registers: directory syncs now; syslog delivery and device-password rotation use the same
 * mechanism. A job is picked up at once when it is queued (a NOTIFY wakes every instance) or at
 * the next poll; recurring work (`every`) runs on each instance and must itself be safe to run
 * concurrently (it queues jobs through a statement that only one instance wins).
 */

export interface JobHandler {
  /** Does the work; a thrown error fails the job (it is not retried). */
  run(job: repo.Job): Promise<void>;
  /** The job's instance stopped while it ran (its lease ran out): record what that means. */
  interrupted?(job: repo.Job): Promise<void>;
}

interface Logger {
  error(object: unknown, message: string): void;
  warn(object: unknown, message: string): void;
}

export const JOBS_CHANNEL = 'tessera_jobs';

type NewJob = { kind: string; key: string; payload?: Record<string, unknown>; runAfter?: Date };

export function createJobRunner(deps: {
  db: Db;
  log: Logger;
  /** Subscribes to the NOTIFY channel that announces new jobs. */
  listen(channel: string, onMessage: () => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** Jobs this instance runs at once. */
  concurrency?: number;
  pollMs?: number;
  leaseSeconds?: number;
}) {
  const { db, log } = deps;
  const workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const concurrency = deps.concurrency ?? 2;
  const pollMs = deps.pollMs ?? 5_000;
  const leaseSeconds = deps.leaseSeconds ?? 60;
  const handlers = new Map<string, JobHandler>();
  const recurring: { everyMs: number; work: () => Promise<void>; timer?: NodeJS.Timeout }[] = [];
  const running = new Set<Promise<void>>();
  let stopped = true;
  let pollTimer: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let pumping: Promise<void> | undefined;

  const kinds = () => [...handlers.keys()];

  async function runJob(job: repo.Job) {
    const handler = handlers.get(job.kind);
    const renew = setInterval(
      () => {
        repo
          .renewLease(db, job.id, workerId, leaseSeconds)
          .catch((error) => log.warn({ err: error }, 'renewing a job lease failed'));
      },
      (leaseSeconds * 1000) / 3,
    );
    renew.unref();
    try {
      if (!handler) throw new Error(`no handler for jobs of kind ${job.kind}`);
      await handler.run(job);
      await repo.finishJob(db, job.id, workerId, { ok: true });
    } catch (error) {
      log.error({ err: error, jobId: job.id, kind: job.kind }, 'a job failed');
      await repo
        .finishJob(db, job.id, workerId, { ok: false, error: (error as Error).message ?? String(error) })
        .catch((finishError) => log.error({ err: finishError }, 'recording a failed job failed'));
    } finally {
      clearInterval(renew);
    }
  }

  /** Claims and starts jobs while there are free places; answers when no job could be claimed. */
  async function fill(): Promise<void> {
    while (!stopped && running.size < concurrency) {
      const job = await repo.claimJob(db, kinds(), workerId, leaseSeconds);
      if (!job) return;
      const work: Promise<void> = runJob(job).finally(() => {
        running.delete(work);
        // A place came free: there may be more to do.
        pump();
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
      log.warn({ jobId: job.id, kind: job.kind }, 'a job was interrupted: its instance stopped');
      await handlers.get(job.kind)?.interrupted?.(job);
    }
  }

  const poll = () => {
    reap()
      .catch((error) => log.warn({ err: error }, 'reaping interrupted jobs failed'))
      .finally(pump);
  };

  return {
    workerId,
    register(kind: string, handler: JobHandler) {
      handlers.set(kind, handler);
    },
    /** Runs `work` on this instance every `everyMs` while the runner runs. */
    every(everyMs: number, work: () => Promise<void>) {
      recurring.push({ everyMs, work });
    },
    /** Queues a job and wakes the runners of every instance. */
    async enqueue(job: NewJob) {
      const id = await repo.insertJob(db, job);
      await deps.notify(JOBS_CHANNEL, job.kind).catch(() => {});
      return id;
    },
    /**
     * Queues a job inside the caller's transaction, with whatever else it records: the NOTIFY
     * is delivered at commit (PostgreSQL holds notifications until then), so no runner looks for
     * the job before it exists, and a rollback queues nothing.
     */
    async enqueueIn(trx: Db, job: NewJob) {
      const id = await repo.insertJob(trx, job);
      await sql`select pg_notify(${JOBS_CHANNEL}, ${job.kind})`.execute(trx);
      return id;
    },
    async start() {
      if (!stopped) return;
      stopped = false;
      unlisten = await deps.listen(JOBS_CHANNEL, pump);
      pollTimer = setInterval(poll, pollMs);
      pollTimer.unref();
      for (const entry of recurring) {
        entry.timer = setInterval(() => {
          entry.work().catch((error) => log.warn({ err: error }, 'recurring job work failed'));
        }, entry.everyMs);
        entry.timer.unref();
      }
      poll();
    },
    /** Runs every due job (and what they queue) until none is left: for tests and shutdown-free tools. */
    async drain() {
      await reap();
      for (;;) {
        pump();
        await pumping;
        if (running.size) {
          await Promise.race(running);
          continue;
        }
        if (!(await repo.countDueJobs(db, kinds()))) return;
        // Due jobs that another worker holds the key of: wait for that one a little.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    /** Stops claiming and waits for the jobs under way (up to `waitMs`; their leases then run out). */
    async close(waitMs = 10_000) {
      stopped = true;
      clearInterval(pollTimer);
      for (const entry of recurring) clearInterval(entry.timer);
      await unlisten?.();
      await pumping;
      if (running.size) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...running]),
          new Promise((resolve) => {
            timer = setTimeout(resolve, waitMs);
          }),
        ]);
        clearTimeout(timer);
      }
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
