import { defaultSafetySettings } from '@tessera/contract/constants';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../api/http-client.ts';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole, typeInto } from '../org/test-services.tsx';
import { GeneralSafetyPage } from './general-safety.page.tsx';

const stored = {
  loginMethods: [...defaultSafetySettings.loginMethods],
  password: { ...defaultSafetySettings.password },
  lockout: { ...defaultSafetySettings.lockout },
  selfServiceReset: true,
};

async function renderPage(update: (body: unknown) => unknown = (body) => body) {
  const setup = renderWithConsole(<GeneralSafetyPage />, (path, body) =>
    path === '/api/v1/manage/safety/general/update' ? update(body) : stored,
  );
  render(setup.ui);
  await screen.findByLabelText('Minimum length');
  return setup;
}

// By its text: role queries compute every accessible name, which is slow in jsdom.
const save = () => fireEvent.click(screen.getByText('Save').closest('button') as HTMLButtonElement);
const updates = (callApi: { mock: { calls: unknown[][] } }) =>
  callApi.mock.calls.filter(([path]) => path === '/api/v1/manage/safety/general/update');

describe('<GeneralSafetyPage>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['safety']);
  });

  it.each(['5', '31'])(
    'refuses a minimum length of %s with the server wording, and sends nothing',
    async (value) => {
      const { callApi } = await renderPage();
      typeInto('Minimum length', value);
      save();
      await screen.findByText('The minimum password length must be between 6 and 30');
      expect(updates(callApi)).toEqual([]);
    },
  );

  it('refuses a change cycle of 10 days', async () => {
    const { callApi } = await renderPage();
    typeInto('Forced change cycle', '10');
    save();
    await screen.findByText('The forced change cycle is 0 (unlimited) or at least 30 days');
    expect(updates(callApi)).toEqual([]);
  });

  it('saves a change cycle of 30, then of 0 (unlimited)', async () => {
    const { callApi } = await renderPage();
    typeInto('Forced change cycle', '30');
    typeInto('Minimum length', '12');
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.[1]).toEqual({
      ...stored,
      password: { ...stored.password, minLength: 12, changeCycleDays: 30 },
    });
    typeInto('Forced change cycle', '0');
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(2));
    expect(updates(callApi)[1]?.[1]).toMatchObject({ password: { changeCycleDays: 0 } });
  });

  it('turns self-service password reset off (issue 29)', async () => {
    const { callApi } = await renderPage();
    const toggle = screen.getByTestId('self-service-reset');
    expect(toggle.getAttribute('aria-checked')).toBe('true');
    fireEvent.click(toggle);
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.[1]).toMatchObject({ selfServiceReset: false });
  });

  it('keeps password sign-in on and shows the refused fields the server names', async () => {
    const { callApi } = await renderPage(() => {
      throw new ApiError('Refused by the server', 400, 'request.invalid', [
        { field: 'lockout.maxFailures', message: 'Too many for the server' },
      ]);
    });
    expect((screen.getByRole('checkbox', { name: 'Password' }) as HTMLInputElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Passkey (FIDO2, without a password)' }));
    save();
    await screen.findByText('Too many for the server');
    expect(updates(callApi)[0]?.[1]).toMatchObject({ loginMethods: ['password', 'passkey'] });
  });

  it('offers signing in with an email code and an SMS code, and saves them in the contract order', async () => {
    const { callApi } = await renderPage();
    const sms = screen.getByRole('checkbox', { name: 'SMS code (to a verified phone)' }) as HTMLInputElement;
    const email = screen.getByRole('checkbox', {
      name: 'Email code (to a verified email address)',
    }) as HTMLInputElement;
    expect([sms.checked, sms.disabled, email.checked, email.disabled]).toEqual([false, false, false, false]);
    fireEvent.click(sms);
    fireEvent.click(email);
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.[1]).toEqual({
      ...stored,
      loginMethods: ['password', 'email_code', 'sms_code'],
    });
  });

  it('names the code methods in Chinese', async () => {
    initI18n('zh');
    await loadPhrases(['safety']);
    try {
      const setup = renderWithConsole(<GeneralSafetyPage />, () => stored);
      render(setup.ui);
      expect(await screen.findByText('邮箱验证码（发送到已验证的邮箱）')).toBeTruthy();
      expect(screen.getByText('短信验证码（发送到已验证的手机）')).toBeTruthy();
    } finally {
      initI18n('en');
      await loadPhrases(['safety']);
    }
  });
});
