import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { calls, click, confirmWith, lastDialog } from '../application/test-actions.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { CompanyQuotasCard } from './company-quotas.card.tsx';

const company = (name: string, user: [number | null, number], app: [number | null, number]) => ({
  companyId: `id-${name}`,
  name,
  ownerUsername: `${name.toLowerCase()}-owner`,
  createdAt: '2026-01-01T00:00:00.000Z',
  quotas: [
    { module: 'user' as const, quota: user[0], used: user[1] },
    { module: 'app' as const, quota: app[0], used: app[1] },
  ],
});

const acme = company('Acme', [50, 12], [null, 3]);
const globex = company('Globex', [4, 4], [10, 1]);

async function renderCard() {
  const setup = renderWithConsole(
    <FeedbackHost>
      <CompanyQuotasCard />
    </FeedbackHost>,
    (path, body) => {
      if (path === '/api/v1/manage/license/quota/list') return { list: [acme, globex], total: 2 };
      if (path === '/api/v1/manage/license/quota/update') {
        const { quotas } = body as { quotas: { user: number | null; app: number | null } };
        return company('Acme', [quotas.user, 12], [quotas.app, 3]);
      }
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  await screen.findByText('Globex');
  return setup;
}

const rowOf = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;

async function openQuotasOf(name: string) {
  click(screen.getByRole('button', { name: `Set quotas of ${name}` }));
  return lastDialog();
}

describe('<CompanyQuotasCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['license']);
  });

  it('lists each company with its usage against its quotas, a full one in red', async () => {
    const { callApi } = await renderCard();
    expect(calls(callApi, '/api/v1/manage/license/quota/list')).toEqual([
      { page: 1, pageSize: 10, keyword: undefined },
    ]);
    expect(rowOf('Acme').textContent).toContain('acme-owner');
    expect(rowOf('Acme').textContent).toContain('12 / 50');
    expect(rowOf('Acme').textContent).toContain('3 / No limit');
    const full = within(rowOf('Globex')).getByText('4 / 4');
    expect(full.className).toContain('danger');
    expect(screen.getByText('Companies: 2')).toBeTruthy();
  });

  it('searches by the trimmed keyword from the first page', async () => {
    const { callApi } = await renderCard();
    const search = screen.getByRole('searchbox', { name: 'Company name or ID' });
    fireEvent.change(search, { target: { value: '  glob ' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/license/quota/list').at(-1)).toEqual({
        page: 1,
        pageSize: 10,
        keyword: 'glob',
      }),
    );
  });

  it('raises a quota and sets another to no limit beyond the licence', async () => {
    const { callApi } = await renderCard();
    const dialog = await openQuotasOf('Acme');
    expect(within(dialog).getByText('Quotas of Acme')).toBeTruthy();
    expect(within(dialog).getByText('12 in use')).toBeTruthy();
    const users = within(dialog).getByLabelText('Users') as HTMLInputElement;
    await waitFor(() => expect(users.value).toBe('50'));
    // Applications have no limit: their number field waits for the box to be unticked.
    expect((within(dialog).getByLabelText('Applications') as HTMLInputElement).disabled).toBe(true);
    fireEvent.change(users, { target: { value: '80' } });
    click(within(dialog).getByText('Save'));
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/license/quota/update')).toEqual([
        { companyId: 'id-Acme', quotas: { user: 80, app: null }, confirmBelowUsage: false },
      ]),
    );
    await waitFor(() => expect(rowOf('Acme').textContent).toContain('12 / 80'));
  });

  async function lowerAcmeUsersTo(value: string) {
    const setup = await renderCard();
    const dialog = await openQuotasOf('Acme');
    const users = within(dialog).getByLabelText('Users') as HTMLInputElement;
    await waitFor(() => expect(users.value).toBe('50'));
    fireEvent.change(users, { target: { value } });
    click(within(dialog).getByText('Save'));
    await screen.findAllByText('Set a quota below current usage?');
    return { ...setup, question: await lastDialog() };
  }

  it('asks before a quota below usage, and sends nothing when told no', async () => {
    const { callApi, question } = await lowerAcmeUsersTo('5');
    expect(question.textContent).toContain('Users: 12 in use, new quota 5.');
    expect(question.textContent).toContain('Nobody is removed');
    click(within(question).getByText('Cancel'));
    await waitFor(() => expect(screen.getByText('Quotas of Acme')).toBeTruthy());
    expect(calls(callApi, '/api/v1/manage/license/quota/update')).toEqual([]);
  });

  it('sends a quota below usage confirmed after yes', async () => {
    const { callApi } = await lowerAcmeUsersTo('5');
    await confirmWith('Set anyway');
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/license/quota/update')).toEqual([
        { companyId: 'id-Acme', quotas: { user: 5, app: null }, confirmBelowUsage: true },
      ]),
    );
  });

  it('asks for a number unless the quota has no limit', async () => {
    const { callApi } = await renderCard();
    const dialog = await openQuotasOf('Globex');
    const apps = within(dialog).getByLabelText('Applications') as HTMLInputElement;
    await waitFor(() => expect(apps.value).toBe('10'));
    fireEvent.change(apps, { target: { value: '' } });
    click(within(dialog).getByText('Save'));
    await within(dialog).findByText('Enter the quota of Applications (a whole number), or choose no limit');
    expect(calls(callApi, '/api/v1/manage/license/quota/update')).toEqual([]);
  });
});
