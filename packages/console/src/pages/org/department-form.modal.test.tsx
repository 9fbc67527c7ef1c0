import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { DepartmentFormModal, type DepartmentFormTarget } from './department-form.modal.tsx';
import type { Department } from './org-types.ts';
import { renderWithConsole } from './test-services.tsx';

const node = (departmentId: string, name: string, parentId: string | null, children: Department[] = []) => ({
  departmentId,
  name,
  parentId,
  managerId: null,
  managerName: null,
  memberCount: 0,
  totalMemberCount: 0,
  children,
});
const tree: Department = node('root', 'Acme', null, [node('eng', 'Engineering', 'root')]);

function renderModal(target: DepartmentFormTarget) {
  const onSaved = vi.fn();
  const setup = renderWithConsole(
    <DepartmentFormModal target={target} tree={tree} onClose={() => {}} onSaved={onSaved} />,
    (path, body) =>
      path === '/api/v1/manage/department/create'
        ? { departmentId: 'new', name: (body as { name: string }).name }
        : { list: [], total: 0 },
  );
  render(setup.ui);
  return { ...setup, onSaved };
}

/** The department the parent field shows. */
const shownParent = () =>
  screen.getByLabelText('Superior department').closest('.ant-select')?.querySelector('.ant-select-content')
    ?.textContent ?? screen.getByLabelText('Superior department').closest('.ant-select')?.textContent;

const createWith = async (callApi: ReturnType<typeof vi.fn>, name: string) => {
  fireEvent.change(screen.getByLabelText('Department name'), { target: { value: name } });
  fireEvent.click(screen.getByRole('button', { name: 'New department' }));
  const created = () => callApi.mock.calls.find(([path]) => path === '/api/v1/manage/department/create');
  await waitFor(() => expect(created()).toBeTruthy());
  return created()?.[1];
};

describe('<DepartmentFormModal> parent of a new department (issue 35 item 9)', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['org']);
  });

  it('shows the parent it was opened under, and puts it at the top level in one click', async () => {
    const { callApi } = renderModal({ mode: 'create', parentId: 'eng' });
    await waitFor(() => expect(shownParent()).toContain('Engineering'));
    const topLevel = screen.getByRole('button', { name: 'Top level' });
    expect(topLevel.getAttribute('title')).toBe('Directly under Acme');
    fireEvent.click(topLevel);
    await waitFor(() => expect(shownParent()).toContain('Acme'));
    expect((screen.getByRole('button', { name: 'Top level' }) as HTMLButtonElement).disabled).toBe(true);
    expect(await createWith(callApi, 'Sales')).toEqual({ name: 'Sales', parentId: 'root', managerId: null });
  });

  it('starts at the top level when opened without a parent', async () => {
    const { callApi } = renderModal({ mode: 'create' });
    await waitFor(() => expect(shownParent()).toContain('Acme'));
    expect(await createWith(callApi, 'Finance')).toEqual({
      name: 'Finance',
      parentId: 'root',
      managerId: null,
    });
  });
});
