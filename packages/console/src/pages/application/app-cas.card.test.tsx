import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AppCasCard } from './app-cas.card.tsx';
import type { CasSettings } from './cas-view.ts';
import { calls, click } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

const DETAIL = '/api/v1/manage/app/cas/detail';
const UPDATE = '/api/v1/manage/app/cas/update';

const settings = (overrides: Partial<CasSettings> = {}): CasSettings => ({
  serverUrl: 'http://localhost:8080/cas/company-1',
  servicePatterns: [{ kind: 'prefix', value: 'https://oa.example.com/' }],
  attributes: ['username', 'name', 'email'],
  ticketTtl: 10,
  allowProxy: false,
  sloUrl: null,
  sloEnabled: true,
  ...overrides,
});

async function renderCard(stored = settings()) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <AppCasCard app={appDetail({ protocol: 'cas' })} />
    </FeedbackHost>,
    (path, body) => {
      if (path === DETAIL) return stored;
      if (path === UPDATE) return { ...stored, ...(body as object) };
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  await screen.findByTestId('cas-form');
  return setup;
}

const form = () => within(screen.getByTestId('cas-form'));

describe('<AppCasCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('shows the CAS server address and saves the settings', async () => {
    const { callApi } = await renderCard();
    expect(screen.getByTestId('cas-server-url').textContent).toContain('http://localhost:8080/cas/company-1');
    click(form().getByText('Add a pattern'));
    fireEvent.change(form().getByLabelText('Service URL pattern 2'), {
      target: { value: ' https://hr.example.com/login ' },
    });
    fireEvent.click(form().getByLabelText('Phone'));
    fireEvent.click(form().getByLabelText('Allow proxying'));
    click(form().getByText('Save'));
    await waitFor(() => expect(calls(callApi, UPDATE)).toHaveLength(1));
    expect(calls(callApi, UPDATE)[0]).toEqual({
      appId: 'app-1',
      servicePatterns: [
        { kind: 'prefix', value: 'https://oa.example.com/' },
        { kind: 'prefix', value: 'https://hr.example.com/login' },
      ],
      attributes: ['username', 'name', 'email', 'phone'],
      ticketTtl: 10,
      allowProxy: true,
      sloEnabled: true,
      sloUrl: null,
    });
  });

  it('refuses an unanchored or catastrophic regular expression and a logout URL no pattern allows, before any call', async () => {
    const { callApi } = await renderCard(
      settings({ servicePatterns: [{ kind: 'regex', value: '^https://[a-z]+\\.example\\.com/.*$' }] }),
    );
    const pattern = form().getByLabelText('Service URL pattern 1');
    fireEvent.change(pattern, { target: { value: 'https://oa\\.example\\.com/.*' } });
    click(form().getByText('Save'));
    await form().findByText('A regular expression must start with ^ and end with $', {}, { timeout: 5000 });
    fireEvent.change(pattern, { target: { value: '^https://(a+)+$' } });
    await form().findByText(/could take too long to match/, {}, { timeout: 5000 });
    fireEvent.change(pattern, { target: { value: '^https://[a-z]+\\.example\\.com/.*$' } });
    fireEvent.change(form().getByPlaceholderText('https://oa.example.com/cas/logout'), {
      target: { value: 'https://elsewhere.example/logout' },
    });
    click(form().getByText('Save'));
    await form().findByText(
      'The single-logout address must be an address the service URL patterns allow',
      {},
      {
        timeout: 5000,
      },
    );
    expect(calls(callApi, UPDATE)).toEqual([]);
  });
});
