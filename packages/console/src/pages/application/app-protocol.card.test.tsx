import { recommendedTokenLifetimes } from '@tessera/contract/constants';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../api/http-client.ts';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AppProtocolCard } from './app-protocol.card.tsx';
import type { AppDetail } from './app-view.ts';
import { appDetail } from './test-fixtures.ts';

const UPDATE = '/api/v1/manage/app/update';

async function renderCard(
  update: (body: unknown) => unknown = (body) => ({ ...appDetail(), ...(body as object) }),
) {
  let app = appDetail();
  const setup = renderWithConsole(
    <AppProtocolCard app={app} onChange={(changed: AppDetail) => (app = changed)} />,
    (path, body) => (path === UPDATE ? update(body) : {}),
  );
  render(setup.ui);
  await screen.findByTestId('protocol-form');
  return setup;
}

const updates = (callApi: { mock: { calls: unknown[][] } }) =>
  callApi.mock.calls.filter(([path]) => path === UPDATE);
const save = () => fireEvent.click(screen.getByText('Save').closest('button') as HTMLButtonElement);
const callbackInput = (index: number) =>
  screen.getByLabelText(`Login callback URLs ${index}`) as HTMLInputElement;
const lifetimeInput = (label: string) =>
  within(screen.getByTestId('lifetimes')).getByLabelText(label) as HTMLInputElement;

describe('<AppProtocolCard> login callback URLs', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it.each([
    ['http://sales.example.com/callback', 'http is allowed for localhost only; use https'],
    ['https://*.example.com/callback', 'Wildcards are not allowed: enter each callback address exactly'],
    ['javascript:alert(1)', 'This kind of address is not allowed as a callback (use https)'],
    ['https://sales.example.com/cb#top', 'A callback address cannot contain a # fragment'],
    ['https://bob:pw@sales.example.com/cb', 'A callback address cannot contain a user name or password'],
    ['sales.example.com/callback', 'Enter a complete address, such as https://app.example.com/callback'],
  ])('refuses %s with the server wording and sends nothing', async (uri, message) => {
    const { callApi } = await renderCard();
    fireEvent.change(callbackInput(1), { target: { value: uri } });
    save();
    await screen.findByText(message);
    expect(updates(callApi)).toEqual([]);
  });

  it('refuses the same address twice', async () => {
    const { callApi } = await renderCard();
    fireEvent.click(screen.getAllByText('Add address')[0]?.closest('button') as HTMLButtonElement);
    fireEvent.change(callbackInput(2), { target: { value: 'https://sales.example.com/callback' } });
    save();
    await screen.findByText('This address is already in the list');
    expect(updates(callApi)).toEqual([]);
  });

  it('saves valid addresses (http on localhost too) with the other settings', async () => {
    const { callApi } = await renderCard();
    fireEvent.click(screen.getAllByText('Add address')[0]?.closest('button') as HTMLButtonElement);
    fireEvent.change(callbackInput(2), { target: { value: 'http://localhost:3000/callback' } });
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.[1]).toMatchObject({
      appId: 'app-1',
      redirectUris: ['https://sales.example.com/callback', 'http://localhost:3000/callback'],
      postLogoutRedirectUris: [],
      initiateLoginUri: null,
      scopes: ['openid', 'profile'],
      signingAlg: 'ES256',
      requirePkce: true,
      lifetimes: { authorizationCode: 120, idToken: 3600, accessToken: 3600, refreshToken: 86_400 },
    });
  });

  it('keeps PKCE on for a public client', async () => {
    await renderCard();
    fireEvent.click(screen.getByLabelText(/^none/));
    await waitFor(() =>
      expect((screen.getByRole('switch', { name: 'Require PKCE' }) as HTMLButtonElement).disabled).toBe(true),
    );
  });

  it('turns PKCE off for an app that cannot send it', async () => {
    const { callApi } = await renderCard();
    fireEvent.click(screen.getByRole('switch', { name: 'Require PKCE' }));
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.[1]).toMatchObject({ requirePkce: false });
  });

  it('shows the field the server refuses on that field', async () => {
    await renderCard(() => {
      throw new ApiError('Refused', 400, 'request.invalid', [
        { field: 'redirectUris.0', message: 'The server does not like this address' },
      ]);
    });
    save();
    const message = await screen.findByText('The server does not like this address');
    expect(message.closest('.ant-form-item')?.contains(callbackInput(1))).toBe(true);
  });
});

describe('<AppProtocolCard> logout to the application', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  const logoutInput = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

  it('refuses a logout URI under the rules of callback URLs, and a non-web one', async () => {
    const { callApi } = await renderCard();
    fireEvent.change(logoutInput('Back-channel logout URI'), {
      target: { value: 'http://sales.example.com/bc' },
    });
    fireEvent.change(logoutInput('Front-channel logout URI'), {
      target: { value: 'com.example.app:/logout' },
    });
    save();
    await screen.findByText('http is allowed for localhost only; use https');
    await screen.findByText('This kind of address is not allowed as a callback (use https)');
    expect(updates(callApi)).toEqual([]);
  });

  it('saves both URIs, and an emptied one as none', async () => {
    const { callApi } = await renderCard();
    fireEvent.change(logoutInput('Back-channel logout URI'), {
      target: { value: ' https://sales.example.com/oidc/backchannel ' },
    });
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.[1]).toMatchObject({
      backchannelLogoutUri: 'https://sales.example.com/oidc/backchannel',
      frontchannelLogoutUri: null,
    });
  });
});

describe('<AppProtocolCard> token lifetimes', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('shows the recommended value of each lifetime (spec §9)', async () => {
    await renderCard();
    const lifetimes = screen.getByTestId('lifetimes').textContent ?? '';
    for (const value of ['Recommended: 60', 'Recommended: 1,209,600', 'Recommended: 2,592,000'])
      expect(lifetimes).toContain(value);
  });

  it('fills 60 / 1209600 / 1209600 / 2592000 with "use recommended" and saves them', async () => {
    const { callApi } = await renderCard();
    expect(lifetimeInput('Authorization code').value).toBe('120');
    fireEvent.click(screen.getByText('Use the recommended lifetimes').closest('button') as HTMLButtonElement);
    await waitFor(() => expect(lifetimeInput('Authorization code').value).toBe('60'));
    expect(lifetimeInput('ID token').value).toBe('1209600');
    expect(lifetimeInput('Access token').value).toBe('1209600');
    expect(lifetimeInput('Refresh token').value).toBe('2592000');
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.[1]).toMatchObject({ lifetimes: { ...recommendedTokenLifetimes } });
  });

  it('requires the access token lifetime (spec §5) and keeps each within its range', async () => {
    const { callApi } = await renderCard();
    fireEvent.change(lifetimeInput('Access token'), { target: { value: '' } });
    fireEvent.change(lifetimeInput('Authorization code'), { target: { value: '601' } });
    save();
    await screen.findByText('Please enter the expiry in seconds');
    await screen.findByText('Enter a whole number of seconds from 1 to 600');
    expect(updates(callApi)).toEqual([]);
  });
});
