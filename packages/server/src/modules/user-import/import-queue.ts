import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import * as repo from './import.repo.ts';

/**
 * The queue of user imports, kept in the import_tasks table so that any number of instances can
 * share it: at most one import per company runs at a time, and at most `concurrency` on the whole
 * platform. An instance takes work when a file is uploaded to it, when one of its imports ends,
 * and every few seconds (work uploaded to, or freed by, another instance). While it runs tasks
 * it renews their claim; a task whose claim is not renewed for `leaseMs` belonged to a process
 * that stopped, and is failed by whichever instance looks next.
 */

export interface ImportQueueOptions {
  /** Imports running at once on the platform. */
  concurrency: number;
  /** A running task whose claim is older than this is taken as interrupted. */
  leaseMs: number;
  /** How often the queue is looked at, and claims renewed. */
  pollMs: number;
}

export const importQueueDefaults: ImportQueueOptions = { concurrency: 2, leaseMs: 60_000, pollMs: 5_000 };

interface Logger {
  error(object: unknown, message: string): void;
}

export function createImportQueue(deps: {
  db: Db;
  log: Logger;
  options: ImportQueueOptions;
  /** Runs one claimed task to its end (it records the outcome itself). */
  run(task: repo.ClaimedTask): Promise<void>;
}) {
  const { db, log, options } = deps;
  const instanceId = newId();
  const leaseSeconds = options.leaseMs / 1000;
  /** Tasks this instance runs, by id. */
  const running = new Map<string, Promise<void>>();
  let closing = false;
  let pumping: Promise<void> | undefined;
  let again = false;

  /** Claims and starts tasks until none may start. One pass at a time; a call during a pass asks for another. */
  function pump(): Promise<void> {
    if (closing) return Promise.resolve();
    if (pumping) {
      again = true;
      return pumping;
    }
    pumping = (async () => {
      try {
        do {
          again = false;
          if (!(await repo.anyOpenTask(db))) continue;
          for (;;) {
            if (closing) return;
            const task = await repo.claimNextTask(db, {
              instanceId,
              concurrency: options.concurrency,
              leaseSeconds,
            });
            if (!task) break;
            launch(task);
          }
        } while (again && !closing);
      } catch (error) {
        log.error({ err: error }, 'the import queue could not be read');
      } finally {
        pumping = undefined;
      }
    })();
    return pumping;
  }

  function launch(task: repo.ClaimedTask) {
    const work = deps
      .run(task)
      .catch((error) => log.error({ err: error, taskId: task.id }, 'user import failed'))
      .finally(() => {
        running.delete(task.id);
        void pump();
      });
    running.set(task.id, work);
  }

  const tick = async () => {
    try {
      await repo.renewClaims(db, instanceId, [...running.keys()]);
    } catch (error) {
      log.error({ err: error }, 'import claims could not be renewed');
    }
    await pump();
  };
  const timer = setInterval(() => void tick(), options.pollMs);
  timer.unref();

  return {
    /** Looks for work now (after an upload). */
    pump,
    /** Start-up: fails tasks whose instance stopped, then takes what waits. */
    async start() {
      await repo.failAbandonedTasks(db, leaseSeconds);
      void pump();
    },
    /** Stops taking work; answers the tasks still running here. */
    stop() {
      closing = true;
      clearInterval(timer);
      return running;
    },
  };
}
