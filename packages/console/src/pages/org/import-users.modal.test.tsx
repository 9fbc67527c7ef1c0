import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { ImportUsersModal } from './import-users.modal.tsx';
import type { ImportTask } from './org-types.ts';
import { renderWithConsole } from './test-services.tsx';

const task = (status: ImportTask['status'], extra: Partial<ImportTask> = {}): ImportTask => ({
  taskId: 'task-7',
  status,
  queuePosition: null,
  fileName: 'people.xlsx',
  total: 2,
  created: 0,
  errors: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
  ...extra,
});

function renderImport(answers: ImportTask[]) {
  const onImported = vi.fn();
  const setup = renderWithConsole(<ImportUsersModal open onClose={() => {}} onImported={onImported} />, () =>
    answers.length > 1 ? answers.shift() : answers[0],
  );
  setup.uploadFile.mockResolvedValue({ taskId: 'task-7' });
  render(setup.ui);
  return { ...setup, onImported };
}

const choose = (name: string, size = 100) => {
  const input = document.querySelector('input[type=file]') as HTMLInputElement;
  const file = new File(['x'.repeat(size)], name, {
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  });
  fireEvent.change(input, { target: { files: [file] } });
};

describe('<ImportUsersModal>', () => {
  beforeAll(async () => {
    initI18n('en');
    // The route table loads the org phrases with the screen; here the modal is rendered alone.
    await loadPhrases(['org']);
  });

  it('uploads the file, polls the task and lists the reason of every refused row', async () => {
    const errors = [
      { row: 2, field: 'username', message: 'This username is already taken' },
      { row: 4, field: 'email', message: 'Please enter a valid email address' },
    ];
    const { uploadFile, callApi, onImported } = renderImport([task('importing'), task('failed', { errors })]);
    choose('people.xlsx');
    await screen.findByText('Importing people.xlsx…');
    await screen.findByText('Nothing was imported from people.xlsx. Rows refused: 2', undefined, {
      timeout: 5000,
    });
    expect(screen.getByText('This username is already taken')).toBeTruthy();
    expect(screen.getByText('Please enter a valid email address')).toBeTruthy();
    expect(uploadFile).toHaveBeenCalledWith('/api/v1/manage/user/batch-task/create', expect.any(File));
    expect(callApi).toHaveBeenCalledWith(
      '/api/v1/manage/user/batch-task',
      { taskId: 'task-7' },
      { silent: true },
    );
    expect(onImported).not.toHaveBeenCalled();
  });

  it('reports success and asks the list to reload', async () => {
    const { onImported } = renderImport([task('success', { created: 2 })]);
    choose('people.xlsx');
    await screen.findByText('Users imported from people.xlsx: 2', undefined, { timeout: 5000 });
    expect(onImported).toHaveBeenCalledTimes(1);
  });

  it('says while the import waits for its turn in the queue', async () => {
    renderImport([
      task('importing', { queuePosition: 3 }),
      task('importing', { queuePosition: 1 }),
      task('success', { created: 2 }),
    ]);
    choose('people.xlsx');
    await screen.findByText('people.xlsx is waiting for its turn (earlier imports of this company ahead: 2)');
    await screen.findByText('people.xlsx is waiting for its turn: other imports are running', undefined, {
      timeout: 5000,
    });
    await screen.findByText('Users imported from people.xlsx: 2', undefined, { timeout: 5000 });
  });

  it('gives the reason when the file as a whole could not be read, without a table of rows', async () => {
    const reason =
      'The workbook unpacks to more than 128 MiB; delete other sheets, images and unused cells, or split it into smaller files';
    renderImport([task('importing'), task('failed', { errors: [{ row: 0, field: null, message: reason }] })]);
    choose('people.xlsx');
    await screen.findByText('Nothing was imported from people.xlsx', undefined, { timeout: 5000 });
    expect(screen.getByText(reason)).toBeTruthy();
    expect(screen.queryByTestId('import-errors')).toBeNull();
  });

  it('refuses anything but .xlsx before uploading', async () => {
    const { uploadFile } = renderImport([task('success')]);
    choose('people.csv');
    await waitFor(() => expect(screen.getByText('Click or drag an .xlsx file here')).toBeTruthy());
    expect(uploadFile).not.toHaveBeenCalled();
  });
});
