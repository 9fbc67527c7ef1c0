import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from './test-services.tsx';
import { UserMfaCard } from './user-mfa.card.tsx';

const user = { userId: 'u1', username: 'alice', name: 'Alice Liddell' };
const factors = [
  {
    factorId: 'f-otp',
    type: 'otp',
    name: 'Phone app',
    status: 'bound',
    boundAt: '2026-11-01T08:00:00.000Z',
    lastUsedAt: null,
  },
  {
    factorId: 'f-key',
    type: 'fido2',
    name: 'Desk key',
    status: 'bound',
    boundAt: '2026-11-02T08:00:00.000Z',
    lastUsedAt: '2026-11-20T09:30:00.000Z',
  },
];

async function renderCard() {
  const setup = renderWithConsole(<UserMfaCard user={user} />, (path) =>
    path === '/api/v1/manage/mfa/admin/user/del' ? { removed: 1 } : { list: factors, recoveryCodesLeft: 7 },
  );
  render(setup.ui);
  await screen.findByText('Phone app');
  return setup;
}

const confirm = async (okName: string) => {
  const popup = await screen.findByRole('tooltip');
  expect(popup.textContent).toContain('Their sessions end at once');
  fireEvent.click(within(popup).getByRole('button', { name: okName }));
};

describe('<UserMfaCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['org']);
  });

  it("lists the user's factors and the recovery codes left", async () => {
    const { callApi } = await renderCard();
    expect(callApi).toHaveBeenCalledWith('/api/v1/manage/mfa/admin/user', { userId: 'u1' });
    const otp = screen.getByTestId('factor-f-otp');
    expect(otp.textContent).toContain('OTP');
    expect(otp.textContent).toContain('Bound');
    expect(otp.textContent).toContain('Last used: never');
    expect(screen.getByTestId('factor-f-key').textContent).toContain('FIDO2 / passkey');
    expect(screen.getByTestId('recovery-codes-left').textContent).toBe('Recovery codes left: 7 of 10');
  });

  it('unbinds one factor after the confirmation, then reloads', async () => {
    const { callApi } = await renderCard();
    fireEvent.click(screen.getByRole('button', { name: 'Unbind Desk key' }));
    await confirm('Unbind');
    await waitFor(() =>
      expect(callApi).toHaveBeenCalledWith('/api/v1/manage/mfa/admin/user/del', {
        userId: 'u1',
        factorId: 'f-key',
      }),
    );
    await waitFor(() =>
      expect(callApi.mock.calls.filter(([path]) => path === '/api/v1/manage/mfa/admin/user')).toHaveLength(2),
    );
  });

  it('unbinds every factor without a factor id', async () => {
    const { callApi } = await renderCard();
    fireEvent.click(screen.getByRole('button', { name: 'Unbind all' }));
    await confirm('Unbind all');
    await waitFor(() =>
      expect(callApi).toHaveBeenCalledWith('/api/v1/manage/mfa/admin/user/del', { userId: 'u1' }),
    );
  });

  it('says when no factor is bound', async () => {
    const setup = renderWithConsole(<UserMfaCard user={user} />, () => ({ list: [], recoveryCodesLeft: 0 }));
    render(setup.ui);
    await screen.findByText('No MFA factor is bound yet');
    expect(screen.queryByRole('button', { name: 'Unbind all' })).toBeNull();
  });

  it('binds a key: the public key is required, then sent with the kind and name', async () => {
    const { callApi } = await renderCard();
    fireEvent.click(screen.getByTestId('bind-key'));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Bind a key to Alice Liddell');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Bind a key' }));
    await within(dialog).findByText('Please paste the public key (PEM)');
    expect(callApi.mock.calls.some(([path]) => path === '/api/v1/manage/mfa/admin/user/bind')).toBe(false);
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'Office key' } });
    fireEvent.change(within(dialog).getByLabelText('Public key (PEM)'), {
      target: { value: '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----' },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Bind a key' }));
    await waitFor(() =>
      expect(callApi).toHaveBeenCalledWith('/api/v1/manage/mfa/admin/user/bind', {
        userId: 'u1',
        type: 'ukey_pubkey',
        name: 'Office key',
        publicKey: '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----',
      }),
    );
  });
});
