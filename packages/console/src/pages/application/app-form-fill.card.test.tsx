import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../api/http-client.ts';
import { ApiError } from '../../api/http-client.ts';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole, typeInto } from '../org/test-services.tsx';
import { AppFormFillCard } from './app-form-fill.card.tsx';
import { calls, click } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

type FormConfig = ApiResponse<'/api/v1/manage/app/form/detail'>;

const UPDATE = '/api/v1/manage/app/form/update';

const stored = (overrides: Partial<FormConfig> = {}): FormConfig => ({
  loginUrl: 'https://legacy.example.com/login',
  usernameField: 'user',
  passwordField: 'pass',
  extraFields: [{ name: 'tenant', value: 'acme' }],
  credentialMode: 'user',
  sharedUsername: null,
  sharedPasswordSet: false,
  ...overrides,
});

async function renderCard(config: FormConfig, refuse?: () => never) {
  const setup = renderWithConsole(<AppFormFillCard app={appDetail({ protocol: 'form' })} />, (path, body) => {
    if (path === '/api/v1/manage/app/form/detail') return config;
    if (path === UPDATE && refuse) refuse();
    if (path === UPDATE)
      return { ...config, ...(body as object), sharedPasswordSet: config.sharedPasswordSet };
    throw new Error(`unexpected call ${path}`);
  });
  render(setup.ui);
  await screen.findByTestId('form-fill');
  return setup;
}

const form = () => within(screen.getByTestId('form-fill'));
const save = () => click(form().getByText('Save'));
const updates = (callApi: { mock: { calls: unknown[][] } }) =>
  calls(callApi, UPDATE) as Record<string, unknown>[];

describe('<AppFormFillCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('saves the login form fields (the address trimmed) with the extra fields', async () => {
    const { callApi } = await renderCard(stored());
    expect(calls(callApi, '/api/v1/manage/app/form/detail')).toEqual([{ appId: 'app-1' }]);
    typeInto('Login URL', ' https://legacy.example.com/signin ');
    typeInto('User name field', 'login');
    click(form().getByText('Add field'));
    const names = form().getAllByLabelText('Field name');
    fireEvent.change(names[1] as HTMLElement, { target: { value: 'remember' } });
    fireEvent.change(form().getAllByLabelText('Value')[1] as HTMLElement, { target: { value: 'on' } });
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]).toEqual({
      appId: 'app-1',
      loginUrl: 'https://legacy.example.com/signin',
      usernameField: 'login',
      passwordField: 'pass',
      extraFields: [
        { name: 'tenant', value: 'acme' },
        { name: 'remember', value: 'on' },
      ],
      credentialMode: 'user',
    });
  });

  it('sends the shared password only when one is typed (empty keeps the stored one)', async () => {
    const { callApi } = await renderCard(
      stored({ credentialMode: 'shared', sharedUsername: 'robot', sharedPasswordSet: true }),
    );
    expect((screen.getByLabelText('Shared password') as HTMLInputElement).placeholder).toBe('Unchanged');
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.credentialMode).toBe('shared');
    expect(updates(callApi)[0]?.sharedUsername).toBe('robot');
    expect(updates(callApi)[0]?.sharedPassword).toBeUndefined();
    // The saved settings come back into the form (clearing the password field): type only after.
    await waitFor(() =>
      expect(form().getByText('Save').closest('button')?.className).not.toContain('ant-btn-loading'),
    );

    typeInto('Shared password', 'N3w-Secret');
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(2));
    expect(updates(callApi)[1]?.sharedPassword).toBe('N3w-Secret');
  });

  it('leaves the shared account out for users who store their own', async () => {
    const { callApi } = await renderCard(stored({ credentialMode: 'shared', sharedUsername: 'robot' }));
    typeInto('Shared password', 'typed-then-switched');
    fireEvent.click(screen.getByLabelText('Each user stores their own', { exact: false }));
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.credentialMode).toBe('user');
    expect(updates(callApi)[0]?.sharedUsername).toBeUndefined();
    expect(updates(callApi)[0]?.sharedPassword).toBeUndefined();
  });

  it.each([
    ['User name field', 'user name'],
    ['Password field', 'pass"word'],
    ['Field name', '<tenant>'],
  ])('refuses %s "%s" with the field name message and sends nothing', async (label, value) => {
    const { callApi } = await renderCard(stored());
    fireEvent.change(form().getAllByLabelText(label)[0] as HTMLElement, { target: { value } });
    save();
    await screen.findByText('A field name cannot contain spaces, quotes or angle brackets');
    expect(updates(callApi)).toEqual([]);
  });

  // Issue 12: the password is posted to the login address, so it is protected on the way.
  it.each(['http://legacy.example.com/login', 'http://10.1.2.3/login'])(
    'refuses the login address %s (http, not localhost) and sends nothing',
    async (url) => {
      const { callApi } = await renderCard(stored());
      typeInto('Login URL', url);
      save();
      await screen.findByText(
        'The password is posted to this address: use https (http is allowed for localhost only)',
      );
      expect(updates(callApi)).toEqual([]);
    },
  );

  it('accepts http on localhost', async () => {
    const { callApi } = await renderCard(stored());
    typeInto('Login URL', 'http://localhost:8081/login');
    save();
    await waitFor(() => expect(updates(callApi)).toHaveLength(1));
    expect(updates(callApi)[0]?.loginUrl).toBe('http://localhost:8081/login');
  });

  it('flags a stored http address at once', async () => {
    await renderCard(stored({ loginUrl: 'http://legacy.example.com/login' }));
    await screen.findByText(
      'The password is posted to this address: use https (http is allowed for localhost only)',
    );
  });

  it("shows the server's refusal on the login address", async () => {
    await renderCard(stored(), () => {
      throw new ApiError('Refused', 400, 'app.login_url_http', [
        { field: 'loginUrl', message: 'The server refuses this address' },
      ]);
    });
    save();
    const message = await screen.findByText('The server refuses this address');
    expect(message.closest('.ant-form-item')?.contains(screen.getByLabelText('Login URL'))).toBe(true);
  });

  it('asks for an empty field name', async () => {
    const { callApi } = await renderCard(stored());
    typeInto('Password field', '  ');
    save();
    await screen.findByText('Please enter the field name');
    expect(updates(callApi)).toEqual([]);
  });
});
