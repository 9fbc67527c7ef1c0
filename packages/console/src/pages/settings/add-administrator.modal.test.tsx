import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole, typeInto, typePasswords } from '../org/test-services.tsx';
import { AddAdministratorModal } from './add-administrator.modal.tsx';

const alice = { userId: 'u-1', username: 'alice', name: 'Alice Liu', nickname: '' };
const helpDesk = { roleId: 'r-1', name: 'Help desk' };

function renderModal() {
  const onAdded = vi.fn();
  const setup = renderWithConsole(
    <AddAdministratorModal open onClose={() => {}} onAdded={onAdded} />,
    (path) => {
      if (path === '/api/v1/manage/console-role/list') return { list: [helpDesk] };
      if (path === '/api/v1/manage/user/list') return { list: [alice], total: 1 };
      return { userId: 'u1', username: 'alice' };
    },
  );
  render(setup.ui);
  return { ...setup, onAdded };
}

const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Add administrator' }));
async function createNew() {
  fireEvent.click(screen.getByRole('radio', { name: 'Create a new person' }));
  await screen.findByLabelText('Username');
}
const sent = (callApi: ReturnType<typeof renderModal>['callApi'], path: string) =>
  callApi.mock.calls.filter(([p]) => p === path).map(([, body]) => body);

async function chooseRole(label: string) {
  fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Role' }));
  fireEvent.click(await screen.findByTitle(label));
}

describe('<AddAdministratorModal>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['settings']);
  });

  it('gives a person of the company, found by search, a custom console role', async () => {
    const { callApi, onAdded } = renderModal();
    submit();
    await screen.findByText('Please choose a person');
    expect(sent(callApi, '/api/v1/manage/company/user/role')).toEqual([]);
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Person' }));
    fireEvent.click(await screen.findByTitle('Alice Liu (alice)'));
    await chooseRole('Help desk');
    submit();
    await waitFor(() => expect(onAdded).toHaveBeenCalled());
    expect(sent(callApi, '/api/v1/manage/company/user/role')).toEqual([
      { userId: 'u-1', role: 'delegated_admin', consoleRoleId: 'r-1' },
    ]);
    expect(sent(callApi, '/api/v1/manage/company/user/create')).toEqual([]);
  });

  it('requires a username, a password and its confirmation for a new person', async () => {
    const { callApi } = renderModal();
    await createNew();
    submit();
    await screen.findByText('Please enter the password');
    await screen.findByText('Please enter the password again');
    expect(sent(callApi, '/api/v1/manage/company/user/create')).toEqual([]);
  });

  it("says 'Entered Passwords Differ' when the confirmation does not match", async () => {
    const { callApi } = renderModal();
    await createNew();
    typeInto('Username', 'alice');
    typePasswords('Secret-123', 'Secret-124');
    submit();
    await screen.findByText('Entered Passwords Differ');
    expect(sent(callApi, '/api/v1/manage/company/user/create')).toEqual([]);
  });

  it('creates a new external administrator with the trimmed username', async () => {
    const { callApi, onAdded } = renderModal();
    await createNew();
    typeInto('Username', ' alice ');
    typePasswords('Secret-123', 'Secret-123');
    await chooseRole('External administrator');
    submit();
    await waitFor(() => expect(onAdded).toHaveBeenCalled());
    expect(sent(callApi, '/api/v1/manage/company/user/create')).toEqual([
      { username: 'alice', role: 'external_admin', password: 'Secret-123', email: undefined },
    ]);
  });
});
