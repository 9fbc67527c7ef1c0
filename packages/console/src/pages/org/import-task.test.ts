import { describe, expect, it, vi } from 'vitest';
import {
  type ImportState,
  importBusy,
  importFileProblem,
  importReducer,
  initialImportState,
  MAX_POLL_FAILURES,
  pollDelayMs,
  pollImportTask,
} from './import-task.ts';
import type { ImportTask } from './org-types.ts';

const task = (status: ImportTask['status'], extra: Partial<ImportTask> = {}): ImportTask => ({
  taskId: 't1',
  status,
  queuePosition: null,
  fileName: 'people.xlsx',
  total: 3,
  created: status === 'success' ? 3 : 0,
  errors: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  finishedAt: status === 'importing' ? null : '2026-01-01T00:00:05.000Z',
  ...extra,
});

const run = (...events: Parameters<typeof importReducer>[1][]) =>
  events.reduce<ImportState>(importReducer, initialImportState);

describe('the import state machine', () => {
  it('goes idle → uploading → importing → success', () => {
    expect(run({ type: 'upload', fileName: 'people.xlsx' })).toEqual({
      phase: 'uploading',
      fileName: 'people.xlsx',
    });
    const importing = run({ type: 'upload', fileName: 'people.xlsx' }, { type: 'uploaded', taskId: 't1' });
    expect(importing).toEqual({ phase: 'importing', fileName: 'people.xlsx', taskId: 't1' });
    expect(importBusy(importing)).toBe(true);
    const done = importReducer(importReducer(importing, { type: 'progress', task: task('importing') }), {
      type: 'progress',
      task: task('success'),
    });
    expect(done).toMatchObject({ phase: 'success', task: { created: 3 } });
    expect(importBusy(done)).toBe(false);
  });

  it('ends failed with the reasons of the refused rows', () => {
    const errors = [{ row: 3, field: 'email', message: 'This email address is already in use' }];
    const state = run(
      { type: 'upload', fileName: 'people.xlsx' },
      { type: 'uploaded', taskId: 't1' },
      { type: 'progress', task: task('failed', { errors }) },
    );
    expect(state).toEqual({ phase: 'failed', fileName: 'people.xlsx', task: task('failed', { errors }) });
  });

  it('ends refused when the upload is refused', () => {
    const state = run(
      { type: 'upload', fileName: 'x.xlsx' },
      { type: 'refused', message: 'Only .xlsx files can be imported' },
    );
    expect(state).toEqual({
      phase: 'refused',
      fileName: 'x.xlsx',
      message: 'Only .xlsx files can be imported',
    });
  });

  it('ignores events that do not fit: another task, a second upload, answers after the end', () => {
    const importing = run({ type: 'upload', fileName: 'a.xlsx' }, { type: 'uploaded', taskId: 't1' });
    expect(importReducer(importing, { type: 'progress', task: task('success', { taskId: 'other' }) })).toBe(
      importing,
    );
    expect(importReducer(importing, { type: 'upload', fileName: 'b.xlsx' })).toBe(importing);
    const done = importReducer(importing, { type: 'progress', task: task('success') });
    expect(importReducer(done, { type: 'progress', task: task('failed') })).toBe(done);
    expect(importReducer(done, { type: 'uploaded', taskId: 't2' })).toBe(done);
    expect(importReducer(done, { type: 'reset' })).toEqual(initialImportState);
  });
});

describe('polling the import task', () => {
  const noWait = () => Promise.resolve();

  it('polls until the task ends and reports every answer', async () => {
    const answers = [task('importing'), task('importing'), task('success')];
    const fetchTask = vi.fn(async () => answers.shift() as ImportTask);
    const onProgress = vi.fn();
    const waits: number[] = [];
    const final = await pollImportTask({
      taskId: 't1',
      fetchTask,
      onProgress,
      wait: async (ms) => {
        waits.push(ms);
      },
      stopped: () => false,
    });
    expect(final?.status).toBe('success');
    expect(fetchTask).toHaveBeenCalledTimes(3);
    expect(fetchTask).toHaveBeenCalledWith('t1');
    expect(onProgress.mock.calls.map(([t]) => t.status)).toEqual(['importing', 'importing', 'success']);
    expect(waits).toEqual([500, 1000, 2000]);
  });

  it('retries a failed poll and gives up after several failures in a row', async () => {
    const flaky = vi
      .fn<(id: string) => Promise<ImportTask>>()
      .mockRejectedValueOnce(new Error('network'))
      .mockResolvedValueOnce(task('failed'));
    const final = await pollImportTask({
      taskId: 't1',
      fetchTask: flaky,
      onProgress: () => {},
      wait: noWait,
      stopped: () => false,
    });
    expect(final?.status).toBe('failed');

    const broken = vi.fn(async () => {
      throw new Error('network');
    });
    await expect(
      pollImportTask({
        taskId: 't1',
        fetchTask: broken,
        onProgress: () => {},
        wait: noWait,
        stopped: () => false,
      }),
    ).rejects.toThrow('network');
    expect(broken).toHaveBeenCalledTimes(MAX_POLL_FAILURES);
  });

  it('stops when told to, without reporting further', async () => {
    let stop = false;
    const onProgress = vi.fn(() => {
      stop = true;
    });
    const final = await pollImportTask({
      taskId: 't1',
      fetchTask: async () => task('importing'),
      onProgress,
      wait: noWait,
      stopped: () => stop,
    });
    expect(final).toBeUndefined();
    expect(onProgress).toHaveBeenCalledTimes(1);
  });

  it('waits longer between polls, up to two seconds', () => {
    expect([0, 1, 2, 3, 10].map(pollDelayMs)).toEqual([500, 1000, 2000, 2000, 2000]);
  });
});

describe('the import file check', () => {
  it('takes .xlsx only, up to the size limit', () => {
    expect(importFileProblem({ name: 'people.xlsx', size: 10 })).toBeUndefined();
    expect(importFileProblem({ name: 'PEOPLE.XLSX', size: 10 })).toBeUndefined();
    expect(importFileProblem({ name: 'people.xls', size: 10 })).toBe('org.import.notXlsx');
    expect(importFileProblem({ name: 'people.csv', size: 10 })).toBe('org.import.notXlsx');
    expect(importFileProblem({ name: 'people.xlsx', size: 11 * 1024 * 1024 })).toBe('org.import.tooLarge');
  });
});
