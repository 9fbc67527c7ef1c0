import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import type { OrgUser } from './org-types.ts';
import { ResetPasswordModal } from './reset-password.modal.tsx';
import { renderWithConsole, typePasswords } from './test-services.tsx';

const user = { userId: 'u1', username: 'alice', name: null, nickname: null } as OrgUser;

function renderModal() {
  const onDone = vi.fn();
  const setup = renderWithConsole(
    <ResetPasswordModal user={user} onClose={() => {}} onDone={onDone} />,
    () => user,
  );
  render(setup.ui);
  return { ...setup, onDone };
}

const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Reset password' }));

describe('<ResetPasswordModal>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['org']);
  });

  it("says 'Entered Passwords Differ' when the confirmation does not match", async () => {
    const { callApi } = renderModal();
    typePasswords('Secret-123', 'Secret-124');
    submit();
    await screen.findByText('Entered Passwords Differ');
    expect(callApi).not.toHaveBeenCalled();
  });

  it('sets the password, forcing a change by default', async () => {
    const { callApi, onDone } = renderModal();
    typePasswords('Secret-123', 'Secret-123');
    submit();
    await waitFor(() => expect(onDone).toHaveBeenCalledWith(user));
    expect(callApi).toHaveBeenCalledWith('/api/v1/manage/user/password/reset', {
      userId: 'u1',
      password: 'Secret-123',
      confirmPassword: 'Secret-123',
      mustChangePassword: true,
    });
  });
});
