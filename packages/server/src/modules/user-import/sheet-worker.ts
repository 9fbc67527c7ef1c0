import { Worker } from 'node:worker_threads';
import { SheetProblem, type SheetProblemData } from './sheet-problem.ts';
import type { ImportSheet } from './sheet-reader.ts';

/**
 * Reads an uploaded workbook in a worker thread, so that inflating and scanning it never holds
 * the event loop, with a heap limit and a deadline: past either, the worker is ended and the
 * import fails with the reason. The main thread receives the plain rows only.
 */

interface SheetWorkerLimits {
  /** Old-generation heap of the worker, MiB. */
  heapMb: number;
  /** Wall-clock time the reading may take. */
  deadlineMs: number;
}

export const sheetWorkerLimits: SheetWorkerLimits = { heapMb: 192, deadlineMs: 60_000 };

const here = import.meta.url;
/** Run from TypeScript (tsx in development and tests) or from a compiled build with a sibling .js. */
const fromSource = here.endsWith('.ts');
const entry = new URL(fromSource ? './sheet.worker.ts' : './sheet.worker.js', here);
/** The worker's nice value (0 normal, 19 lowest). */
const WORKER_NICE = 10;

type WorkerAnswer =
  | { ok: true; sheet: ImportSheet }
  | { ok: false; problem: SheetProblemData }
  | { ok: false; error: string };

/**
 * The worker's first statement, before anything is loaded: on Linux it lowers its own thread's
 * CPU priority (nice 10; threads it starts inherit it), so that a busy import yields the CPU to
 * the requests the main thread answers. Elsewhere it does nothing.
 */
const LOWER_PRIORITY = `try {
  const id = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(id, ${WORKER_NICE});
} catch {}`;

function startWorker(workerData: unknown, limits: SheetWorkerLimits): Worker {
  // From TypeScript (tsx in development and tests), the worker registers tsx's loader itself: on
  // Node 20 a worker does not get the parent's --import hooks for its entry module. It resolves
  // the workspace packages to their TypeScript sources too (the `source` export condition).
  const load = fromSource
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`
    : `import(${JSON.stringify(entry.href)})`;
  return new Worker(`${LOWER_PRIORITY}\n${load};`, {
    eval: true,
    workerData,
    // The worker needs no other flag of the parent's (and some are not allowed in a worker).
    execArgv: fromSource ? ['--conditions=source'] : [],
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
  });
}

/** Reads the workbook; rejects with a SheetProblem for the file, or an Error (also when `signal` aborts). */
export function readSheetInWorker(
  bytes: Uint8Array,
  limits: SheetWorkerLimits = sheetWorkerLimits,
  signal?: AbortSignal,
): Promise<ImportSheet> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('stopped before the file was read'));
    const worker = startWorker({ bytes }, limits);
    let settled = false;
    const onAbort = () => settle(() => reject(new Error('stopped while the file was read')));
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      outcome();
      void worker.terminate();
    };
    const deadline = setTimeout(
      () =>
        settle(() => reject(new SheetProblem('import.read_timeout', { seconds: limits.deadlineMs / 1000 }))),
      limits.deadlineMs,
    );
    worker.once('message', (answer: WorkerAnswer) =>
      settle(() => {
        if (answer.ok) resolve(answer.sheet);
        else if ('problem' in answer) {
          const { reason, params, row, column } = answer.problem;
          reject(new SheetProblem(reason, params, { row, column }));
        } else reject(new Error(`the sheet reader failed: ${answer.error}`));
      }),
    );
    worker.once('error', (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new SheetProblem('import.read_memory', { max: limits.heapMb })
            : error,
        ),
      ),
    );
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`the sheet reader stopped (exit code ${code})`))),
    );
  });
}
