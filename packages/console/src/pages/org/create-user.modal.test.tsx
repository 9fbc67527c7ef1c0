import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api/http-client.ts';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { CreateUserModal } from './create-user.modal.tsx';
import type { OrgUser } from './org-types.ts';
import { renderWithConsole, typeInto, typePasswords } from './test-services.tsx';

const created: OrgUser = {
  userId: 'u1',
  username: 'alice',
  name: null,
  nickname: null,
  email: null,
  phone: null,
  photo: null,
  status: 'enabled',
  role: 'member',
  isOwner: false,
  managed: true,
  mustChangePassword: true,
  loginCount: 0,
  lastLoginAt: null,
  failedCount: 0,
  lastFailedAt: null,
  lockedUntil: null,
  departments: [],
  createdAt: '2026-01-01T00:00:00.000Z',
};

function renderModal(answer: (path: string, body: unknown) => unknown = () => created) {
  const onCreated = vi.fn();
  const setup = renderWithConsole(
    <CreateUserModal open tree={undefined} onClose={() => {}} onCreated={onCreated} />,
    answer,
  );
  render(setup.ui);
  return { ...setup, onCreated };
}

const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Create user' }));

describe('<CreateUserModal>', () => {
  beforeAll(async () => {
    initI18n('en');
    // The route table loads the org phrases with the screen; here the modal is rendered alone.
    await loadPhrases(['org']);
  });

  it('requires a username and a password', async () => {
    const { callApi } = renderModal();
    submit();
    await screen.findByText('Please enter the username');
    await screen.findByText('Please enter the password');
    expect(callApi).not.toHaveBeenCalled();
  });

  it('refuses a username with special characters', async () => {
    const { callApi } = renderModal();
    typeInto('Username', 'alice smith!');
    submit();
    await screen.findByText(/The username cannot contain special characters/);
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

  it('checks the email and the phone', async () => {
    renderModal();
    typeInto('Email', 'not-an-address');
    typeInto('Phone', '12ab');
    submit();
    await screen.findByText('Please enter a valid email address');
    await screen.findByText('Please enter a valid phone number (digits, optionally starting with +)');
  });

  it('creates the user with trimmed fields, forcing a password change by default', async () => {
    const { callApi, onCreated } = renderModal();
    typeInto('Username', '  alice ');
    typeInto('Name', ' Alice Liddell ');
    typeInto('Email', 'alice@example.com');
    typeInto('Phone', '+86 138-0000-0000');
    typePasswords('Secret-123', 'Secret-123');
    submit();
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith(created));
    expect(callApi).toHaveBeenCalledWith('/api/v1/manage/user/create', {
      username: 'alice',
      name: 'Alice Liddell',
      nickname: null,
      email: 'alice@example.com',
      phone: '+8613800000000',
      password: 'Secret-123',
      confirmPassword: 'Secret-123',
      departmentIds: undefined,
      mustChangePassword: true,
    });
  });

  it('marks the field a server error is about', async () => {
    renderModal(() => {
      throw new ApiError('This username is already taken', 409, 'user.username_taken');
    });
    typeInto('Username', 'alice');
    typePasswords('Secret-123', 'Secret-123');
    submit();
    await screen.findByText('This username is already taken');
  });
});
