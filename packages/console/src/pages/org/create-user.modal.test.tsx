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
  emailVerifiedAt: null,
  phoneVerifiedAt: null,
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

const rules = {
  minLength: 12,
  maxLength: 128,
  classes: ['lower', 'upper', 'digit'],
  forbidUsername: true,
  forbidCommon: true,
};

/** The platform (mail on or off), the company's password rules, and the created user. */
const answers =
  (mailEnabled = true, createdAnswer: unknown = created) =>
  (path: string) => {
    if (path === '/api/v1/manage/system/info') return { version: '1.0.0', mailEnabled };
    if (path === '/api/v1/manage/user/password-rules') return rules;
    return createdAnswer;
  };

const createCall = (callApi: { mock: { calls: unknown[][] } }) =>
  callApi.mock.calls.find(([path]) => path === '/api/v1/manage/user/create')?.[1] as
    | Record<string, unknown>
    | undefined;

function renderModal(answer: (path: string, body: unknown) => unknown = answers()) {
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
    expect(createCall(callApi)).toBeUndefined();
  });

  it('refuses a username with special characters', async () => {
    const { callApi } = renderModal();
    typeInto('Username', 'alice smith!');
    submit();
    await screen.findByText(/The username cannot contain special characters/);
    expect(createCall(callApi)).toBeUndefined();
  });

  it("says 'Entered Passwords Differ' when the confirmation does not match", async () => {
    const { callApi } = renderModal();
    typeInto('Username', 'alice');
    typePasswords('Secret-123', 'Secret-124');
    submit();
    await screen.findByText('Entered Passwords Differ');
    expect(createCall(callApi)).toBeUndefined();
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
    typePasswords('Secret-12345', 'Secret-12345');
    submit();
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith(created));
    expect(callApi).toHaveBeenCalledWith('/api/v1/manage/user/create', {
      username: 'alice',
      name: 'Alice Liddell',
      nickname: null,
      email: 'alice@example.com',
      phone: '+8613800000000',
      password: 'Secret-12345',
      confirmPassword: 'Secret-12345',
      departmentIds: undefined,
      mustChangePassword: true,
    });
  });

  it('marks the field a server error is about', async () => {
    renderModal(() => {
      throw new ApiError('This username is already taken', 409, 'user.username_taken');
    });
    typeInto('Username', 'alice');
    typePasswords('Secret-12345', 'Secret-12345');
    submit();
    await screen.findByText('This username is already taken');
  });

  // Issue 35: the rules before sending, a generated password, an invitation by email.
  it("shows the company's password rules before anything is sent, and checks the length", async () => {
    const { callApi } = renderModal();
    expect((await screen.findByTestId('password-rules')).textContent).toBe(
      'Password rules of the company: At least 12 characters; Contains a lowercase letter, an uppercase letter, a digit; Does not contain the username; Is not a common password',
    );
    typeInto('Username', 'alice');
    typePasswords('Short-1', 'Short-1');
    submit();
    await screen.findAllByText('At least 12 characters');
    expect(createCall(callApi)).toBeUndefined();
  });

  it('generates a password that meets the rules, shows it once with a copy button, and creates with it', async () => {
    const { callApi, onCreated } = renderModal();
    await screen.findByTestId('password-rules');
    fireEvent.click(screen.getByText('Generate'));
    const shown = (await screen.findByTestId('generated-password')).textContent ?? '';
    expect(shown.length).toBeGreaterThanOrEqual(12);
    for (const kind of [/[a-z]/, /[A-Z]/, /[0-9]/]) expect(shown).toMatch(kind);
    expect(screen.getByRole('button', { name: /copy/i })).toBeTruthy();
    expect(screen.getByText(/it is shown only once/)).toBeTruthy();
    expect(screen.queryByLabelText('Confirm password')).toBeNull();
    typeInto('Username', 'alice');
    submit();
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(createCall(callApi)).toMatchObject({
      password: shown,
      confirmPassword: shown,
      mustChangePassword: true,
    });
    expect(createCall(callApi)).not.toHaveProperty('invite');
  });

  it('invites by email: needs the address, sends no password, says where the invitation went', async () => {
    const { callApi, onCreated } = renderModal(answers(true, { ...created, invitedTo: 'alice@example.com' }));
    await waitFor(() =>
      expect(screen.getByRole('radio', { name: 'Invite by email' })).toHaveProperty('disabled', false),
    );
    fireEvent.click(screen.getByText('Invite by email'));
    await screen.findByText(/chooses their own password there/);
    typeInto('Username', 'alice');
    submit();
    await screen.findByText('Enter an email address to send the invitation to');
    expect(createCall(callApi)).toBeUndefined();
    typeInto('Email', 'alice@example.com');
    submit();
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith(created));
    expect(createCall(callApi)).toMatchObject({
      email: 'alice@example.com',
      password: '',
      confirmPassword: '',
      invite: true,
      mustChangePassword: true,
    });
  });

  it('offers no invitation while mail is off, and says why on hover', async () => {
    renderModal(answers(false));
    await waitFor(() =>
      expect(screen.getByRole('radio', { name: 'Invite by email' })).toHaveProperty('disabled', true),
    );
    fireEvent.mouseEnter(screen.getByText('Invite by email'));
    await screen.findByText(/Mail is not set up on this platform: ask the platform administrator/);
  });
});
