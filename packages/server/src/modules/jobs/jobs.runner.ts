import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import {
  claimJob,
  completeJob,
  enqueueJob,
  ensureSchedule,
  moveScheduleOn,
  purgeFailedJobs,
  retryJob,
} from './jobs.repo.ts';

/** Does one job; throwing makes it run again later (see `retryJob`). */
export type JobHandler = (payload: unknown) => Promise<void>;

export interface JobRunnerOptions {
  db: Db;
  log: { warn(object: object, message: string): void; error(object: object, message: string): void };
  /** How often due jobs and schedules are looked at (default 15 s). */
  pollSeconds?: number;
  /** How long a claimed job is held before another instance may take it over (default 10 min). */
  leaseSeconds?: number;
}

/**
 * Runs the jobs of this instance: one at a time, polling the table (any instance may run any
 * job; see jobs.repo.ts). Handlers and periodic schedules are registered before `start`.
 */
export function createJobRunner(options: JobRunnerOptions) {
  const { db, log } = options;
  const worker = `${process.pid}-${randomUUID()}`;
  const handlers = new Map<string, JobHandler>();
  const schedules = new Map<string, number>();
  const leaseSeconds = options.leaseSeconds ?? 600;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;

  /** Enqueues this period's job of every due schedule (one instance wins each period). */
  async function enqueueScheduled() {
    for (const kind of schedules.keys()) {
      await db.transaction().execute(async (trx) => {
        if (await moveScheduleOn(trx, kind)) await enqueueJob(trx, { kind, maxAttempts: 1 });
      });
    }
  }

  async function runOne(): Promise<boolean> {
    const job = await claimJob(db, [...handlers.keys()], worker, leaseSeconds);
    if (!job) return false;
    const handler = handlers.get(job.kind) as JobHandler;
    try {
      await handler(job.payload);
      await completeJob(db, job.id, worker);
    } catch (error) {
      // Backoff: 30 s, 2 min, 8 min... at most an hour.
      const delay = Math.min(3600, 30 * 4 ** Math.max(0, job.attempts - 1));
      const again = await retryJob(db, job.id, worker, String((error as Error)?.stack ?? error), delay);
      log.warn({ err: error, job: job.kind, again }, 'a background job failed');
    }
    return true;
  }

  /** Runs every job that is due now (and the schedules' jobs); answers how many ran. */
  async function runDue(): Promise<number> {
    await enqueueScheduled();
    let count = 0;
    while (!stopped && (await runOne())) count++;
    return count;
  }

  const tick = () => {
    if (running || stopped) return;
    running = runDue()
      .catch((error) => {
        log.error({ err: error }, 'running background jobs failed');
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
  };

  return {
    /** The handler of a kind of job. */
    handle(kind: string, handler: JobHandler) {
      handlers.set(kind, handler);
    },
    /** A job of `kind` every `everySeconds` (the kind needs a handler). */
    async every(kind: string, everySeconds: number) {
      schedules.set(kind, everySeconds);
      await ensureSchedule(db, kind, everySeconds);
    },
    enqueue: (kind: string, payload?: unknown) => enqueueJob(db, { kind, payload }),
    runDue,
    start() {
      stopped = false;
      timer = setInterval(tick, (options.pollSeconds ?? 15) * 1000);
      timer.unref();
      tick();
    },
    /** Stops polling and waits for the job under way. */
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
    purgeFailed: () => purgeFailedJobs(db),
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
