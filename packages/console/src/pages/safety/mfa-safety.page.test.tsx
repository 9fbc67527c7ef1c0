import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { MfaSafetyPage } from './mfa-safety.page.tsx';

const stored = { mode: 'off', types: ['otp'], lockout: { maxFailures: 5, lockMinutes: 15 } };

async function renderPage() {
  const setup = renderWithConsole(<MfaSafetyPage />, (_path, body) => body ?? stored);
  render(setup.ui);
  await screen.findByText('Required for administrators');
  return setup;
}

/** The checkbox of an MFA kind (role queries over this many labelled boxes are slow in jsdom). */
const box = (type: string) =>
  screen.getByTestId(`mfa-type-${type}`).closest('label')?.querySelector('input') as HTMLInputElement;
// By its text: role queries compute every accessible name, which is slow in jsdom.
const save = () => fireEvent.click(screen.getByText('Save').closest('button') as HTMLButtonElement);

describe('<MfaSafetyPage>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['safety']);
  });

  it('lists every kind of spec §3, each with what it is, all of them choosable', async () => {
    await renderPage();
    for (const type of [
      'fido2',
      'otp',
      'otp_sm3',
      'ukey_keyid',
      'ukey_pubkey',
      'ukey_cert',
      'soft_lock',
      'email',
      'sms',
    ])
      expect(box(type).disabled).toBe(false);
    expect(box('otp').checked).toBe(true);
    expect(screen.getByText(/certificate issued by one of this company’s CAs/)).toBeTruthy();
  });

  it('asks for a kind while MFA is on, and saves the mode and the chosen kinds', async () => {
    const { callApi } = await renderPage();
    fireEvent.click(screen.getByText('Required for everyone'));
    fireEvent.click(box('otp'));
    save();
    await screen.findByText('Choose at least one kind while MFA is on');
    fireEvent.click(box('fido2'));
    save();
    await waitFor(() =>
      expect(callApi).toHaveBeenCalledWith('/api/v1/manage/safety/mfa/update', {
        mode: 'required',
        types: ['fido2'],
        lockout: { maxFailures: 5, lockMinutes: 15 },
      }),
    );
  });

  it('offers codes sent by email and SMS as kinds, with what they need, and saves them', async () => {
    const { callApi } = await renderPage();
    expect(screen.getByText('Email code')).toBeTruthy();
    expect(screen.getByText(/code sent by SMS to the person’s verified phone/)).toBeTruthy();
    fireEvent.click(screen.getByText('Optional'));
    fireEvent.click(box('sms'));
    fireEvent.click(box('email'));
    save();
    await waitFor(() =>
      expect(callApi).toHaveBeenCalledWith('/api/v1/manage/safety/mfa/update', {
        mode: 'optional',
        types: ['otp', 'email', 'sms'],
        lockout: { maxFailures: 5, lockMinutes: 15 },
      }),
    );
  });
});
