import { importLimits } from '@tessera/contract/constants';
import type { ImportTask } from './org-types.ts';

/**
 * The user import as a state machine (spec §3 Import task: importing, success, failed):
 * choose a file → upload (the server answers with a task id) → poll `batch-task` until the task
 * ends (while importing, it may first wait in the queue) → success (how many were created) or
 * failed (the reason of every refused row, or why the file could not be read; nothing was
 * stored). An upload the server refuses (not .xlsx, too large, too many imports waiting) ends in
 * `refused` with its message.
 */
export type ImportState =
  | { phase: 'idle' }
  | { phase: 'uploading'; fileName: string }
  | { phase: 'importing'; fileName: string; taskId: string; task?: ImportTask }
  | { phase: 'success'; fileName: string; task: ImportTask }
  | { phase: 'failed'; fileName: string; task: ImportTask }
  | { phase: 'refused'; fileName: string; message: string };

export type ImportEvent =
  | { type: 'upload'; fileName: string }
  | { type: 'uploaded'; taskId: string }
  | { type: 'refused'; message: string }
  | { type: 'progress'; task: ImportTask }
  | { type: 'reset' };

export const initialImportState: ImportState = { phase: 'idle' };

/** The next state; an event that does not fit the current state is ignored. */
export function importReducer(state: ImportState, event: ImportEvent): ImportState {
  switch (event.type) {
    case 'reset':
      return initialImportState;
    case 'upload':
      return state.phase === 'uploading' || state.phase === 'importing'
        ? state
        : { phase: 'uploading', fileName: event.fileName };
    case 'uploaded':
      return state.phase === 'uploading'
        ? { phase: 'importing', fileName: state.fileName, taskId: event.taskId }
        : state;
    case 'refused':
      return state.phase === 'uploading' || state.phase === 'importing'
        ? { phase: 'refused', fileName: state.fileName, message: event.message }
        : state;
    case 'progress': {
      if (state.phase !== 'importing' || event.task.taskId !== state.taskId) return state;
      const { task } = event;
      if (task.status === 'success') return { phase: 'success', fileName: state.fileName, task };
      if (task.status === 'failed') return { phase: 'failed', fileName: state.fileName, task };
      return { ...state, task };
    }
  }
}

/** Whether the import is still running (the dialog keeps polling and cannot start another). */
export const importBusy = (state: ImportState) => state.phase === 'uploading' || state.phase === 'importing';

/** Waits between two polls: quick at first, then every two seconds. */
export const pollDelayMs = (attempt: number) => Math.min(2000, 500 * 2 ** Math.min(attempt, 2));

/** Polls in a row that may fail (network) before the import is given up on. */
export const MAX_POLL_FAILURES = 3;

/**
 * Polls the task until it ends, reporting every answer, and returns the final task. Stops, and
 * returns undefined, as soon as `stopped()` is true (the dialog was closed: the task goes on
 * on the server). A poll that fails is retried; after MAX_POLL_FAILURES failures in a row the
 * last error is thrown.
 */
export async function pollImportTask(input: {
  taskId: string;
  fetchTask(taskId: string): Promise<ImportTask>;
  onProgress(task: ImportTask): void;
  wait(ms: number): Promise<void>;
  stopped(): boolean;
}): Promise<ImportTask | undefined> {
  let failures = 0;
  for (let attempt = 0; ; attempt++) {
    await input.wait(pollDelayMs(attempt));
    if (input.stopped()) return undefined;
    let task: ImportTask;
    try {
      task = await input.fetchTask(input.taskId);
    } catch (error) {
      failures++;
      if (failures >= MAX_POLL_FAILURES) throw error;
      continue;
    }
    failures = 0;
    if (input.stopped()) return undefined;
    input.onProgress(task);
    if (task.status !== 'importing') return task;
  }
}

/** Why a chosen file cannot be imported, checked before the upload (the server checks again). */
export type ImportFileProblem = 'org.import.notXlsx' | 'org.import.tooLarge';

export function importFileProblem(file: { name: string; size: number }): ImportFileProblem | undefined {
  if (!/\.xlsx$/i.test(file.name)) return 'org.import.notXlsx';
  if (file.size > importLimits.fileBytes) return 'org.import.tooLarge';
  return undefined;
}

export const importAccept = `.xlsx,${importLimits.xlsxType}`;
