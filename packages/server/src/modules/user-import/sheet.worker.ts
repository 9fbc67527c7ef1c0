import { parentPort, workerData } from 'node:worker_threads';
import { SheetProblem } from './sheet-problem.ts';
import { readImportSheet } from './sheet-reader.ts';

/**
 * Worker entry of sheet-worker.ts: reads one uploaded workbook and posts its rows, or the
 * problem that stopped it. Runs under the heap and time limits its parent set.
 */
const { bytes } = workerData as { bytes: Uint8Array };
try {
  parentPort?.postMessage({ ok: true, sheet: await readImportSheet(bytes) });
} catch (error) {
  parentPort?.postMessage(
    error instanceof SheetProblem
      ? { ok: false, problem: error.toData() }
      : { ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) },
  );
}
