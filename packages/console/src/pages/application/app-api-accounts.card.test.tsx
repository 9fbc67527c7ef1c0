import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AppApiAccountsCard } from './app-api-accounts.card.tsx';
import { calls, click, confirmWith, lastDialog } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

const TOKEN_ENDPOINT = 'http://localhost:8080/oidc/token';

const account = (overrides: Record<string, unknown> = {}) => ({
  accountId: 'acc-1',
  name: 'Nightly sync',
  clientId: 'api-client-1',
  expiresAt: null,
  expired: false,
  lastUsedAt: null,
  createdAt: 1_790_000_000,
  ...overrides,
});

const accounts = [
  account(),
  account({
    accountId: 'acc-2',
    name: 'Old export',
    clientId: 'api-client-2',
    expiresAt: 1_700_000_000,
    expired: true,
  }),
];

async function renderCard(answer: (path: string, body: unknown) => unknown = () => undefined) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <AppApiAccountsCard app={appDetail()} />
    </FeedbackHost>,
    (path, body) => {
      const answered = answer(path, body);
      if (answered !== undefined) return answered;
      if (path === '/api/v1/manage/app/api-account/list')
        return { list: accounts, tokenEndpoint: TOKEN_ENDPOINT };
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  await screen.findByText('Nightly sync');
  return setup;
}

const rowOf = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;

describe('<AppApiAccountsCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('lists the accounts, tagging an expired one, with the token endpoint and a curl example', async () => {
    const { callApi } = await renderCard();
    expect(calls(callApi, '/api/v1/manage/app/api-account/list')).toEqual([{ appId: 'app-1' }]);
    expect(rowOf('Nightly sync').textContent).toContain('Permanent');
    expect(within(rowOf('Nightly sync')).queryByText('Expired')).toBeNull();
    expect(within(rowOf('Old export')).getByText('Expired')).toBeTruthy();
    expect(screen.getByText(TOKEN_ENDPOINT)).toBeTruthy();
    expect(screen.getByTestId('curl-example').textContent).toContain(`-u 'api-client-1:<secret>'`);
  });

  it('creates an account, shows its secret once, and reloads the list', async () => {
    const created = account({ accountId: 'acc-3', name: 'CI', clientId: 'api-client-3' });
    const { callApi } = await renderCard((path) =>
      path === '/api/v1/manage/app/api-account/create'
        ? { account: created, secret: 'new-secret-once' }
        : undefined,
    );
    click(screen.getByText('Create account'));
    const dialog = await lastDialog();
    fireEvent.change(within(dialog).getByLabelText('Account name'), { target: { value: '  CI ' } });
    click(within(dialog).getByText('Create account'));
    expect((await screen.findByTestId('secret-once')).textContent).toBe('new-secret-once');
    expect(calls(callApi, '/api/v1/manage/app/api-account/create')).toEqual([
      { appId: 'app-1', name: 'CI', expiresAt: null },
    ]);
    expect(within(await lastDialog()).getByText('api-client-3')).toBeTruthy();
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/app/api-account/list')).toHaveLength(2));
    click(screen.getByText('I have saved it'));
    await waitFor(() => expect(screen.queryByTestId('secret-once')).toBeNull());
  });

  it('asks for the account name before creating one', async () => {
    const { callApi } = await renderCard();
    click(screen.getByText('Create account'));
    const dialog = await lastDialog();
    click(within(dialog).getByText('Create account'));
    await screen.findByText('Please enter the account name');
    expect(calls(callApi, '/api/v1/manage/app/api-account/create')).toEqual([]);
  });

  it('resets a secret after the confirmation and shows the new one once', async () => {
    const { callApi } = await renderCard((path) =>
      path === '/api/v1/manage/app/api-account/secret/reset' ? { secret: 'reset-secret-once' } : undefined,
    );
    click(within(rowOf('Old export')).getByText('Reset secret'));
    await screen.findAllByText('Reset the secret of Old export?');
    expect(calls(callApi, '/api/v1/manage/app/api-account/secret/reset')).toEqual([]);
    await confirmWith('Reset secret');
    expect((await screen.findByTestId('secret-once')).textContent).toBe('reset-secret-once');
    expect(calls(callApi, '/api/v1/manage/app/api-account/secret/reset')).toEqual([
      { appId: 'app-1', accountId: 'acc-2' },
    ]);
    expect(within(await lastDialog()).getByText('api-client-2')).toBeTruthy();
  });

  it('deletes an account only after the confirmation and reloads the list', async () => {
    const { callApi } = await renderCard((path) =>
      path === '/api/v1/manage/app/api-account/del' ? { accountId: 'acc-1' } : undefined,
    );
    click(within(rowOf('Nightly sync')).getByText('Delete'));
    await screen.findAllByText('Delete Nightly sync?');
    expect(calls(callApi, '/api/v1/manage/app/api-account/del')).toEqual([]);
    await confirmWith('Delete');
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/api-account/del')).toEqual([
        { appId: 'app-1', accountId: 'acc-1' },
      ]),
    );
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/app/api-account/list')).toHaveLength(2));
  });
});
