import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole, typeInto, typePasswords } from '../org/test-services.tsx';
import { AddAdministratorModal } from './add-administrator.modal.tsx';

function renderModal() {
  const onAdded = vi.fn();
  const setup = renderWithConsole(
    <AddAdministratorModal open onClose={() => {}} onAdded={onAdded} />,
    () => ({ userId: 'u1', username: 'alice' }),
  );
  render(setup.ui);
  return { ...setup, onAdded };
}

const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Add administrator' }));

describe('<AddAdministratorModal>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['settings']);
  });

  it('requires a username, a password and its confirmation', async () => {
    const { callApi } = renderModal();
    submit();
    await screen.findByText('Please enter the password');
    await screen.findByText('Please enter the password again');
    expect(callApi).not.toHaveBeenCalled();
  });

  it("says 'Entered Passwords Differ' when the confirmation does not match", async () => {
    const { callApi } = renderModal();
    typeInto('Username', 'alice');
    typePasswords('Secret-123', 'Secret-124');
    submit();
    await screen.findByText('Entered Passwords Differ');
    expect(callApi).not.toHaveBeenCalled();
  });

  it('adds the administrator with the trimmed username', async () => {
    const { callApi, onAdded } = renderModal();
    typeInto('Username', ' alice ');
    typePasswords('Secret-123', 'Secret-123');
    submit();
    await waitFor(() => expect(onAdded).toHaveBeenCalled());
    expect(callApi).toHaveBeenCalledWith('/api/v1/manage/company/user/create', {
      username: 'alice',
      role: 'admin',
      password: 'Secret-123',
      email: undefined,
    });
  });
});
