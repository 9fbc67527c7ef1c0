import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ConsoleContext } from '../../app/console-context.ts';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { testServices } from '../../test/console-services.ts';
import { CreateCompanyPage } from './create-company.page.tsx';

const created = {
  companyId: 'c9',
  name: 'Acme',
  key: 'k',
  icon: null,
  defaultLanguage: 'en' as const,
  ownerUsername: 'alice',
  createdAt: '2026-01-01T00:00:00.000Z',
};

const CREATION = '/api/v1/manage/platform/company-creation';

function renderPage(variant: 'dev' | 'admin', mayCreate = true) {
  const callApi = vi.fn(async (path: string, _body?: unknown) =>
    path === CREATION ? { mode: mayCreate ? 'everyone' : 'platform_admins', mayCreate } : created,
  );
  const services = testServices(variant, callApi);
  const router = createMemoryRouter(
    [
      { path: '/create-company', element: <CreateCompanyPage /> },
      { path: '/dashboard', element: <p>dashboard screen</p> },
    ],
    { initialEntries: ['/create-company'] },
  );
  render(
    <ConsoleContext.Provider value={services}>
      <RouterProvider router={router} />
    </ConsoleContext.Provider>,
  );
  return { services, callApi, router };
}

const nameInput = () => screen.getByLabelText('Company name');
const createCalls = (callApi: ReturnType<typeof renderPage>['callApi']) =>
  callApi.mock.calls.filter(([path]) => path !== CREATION);
const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Create company' }));

describe('<CreateCompanyPage>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['setup']);
  });

  it('requires a name, blank or not', async () => {
    const { callApi } = renderPage('dev');
    await screen.findByLabelText('Company name');
    submit();
    await screen.findByText('Please enter the company name');
    fireEvent.change(nameInput(), { target: { value: '   ' } });
    submit();
    await screen.findByText('Please enter the company name');
    expect(createCalls(callApi)).toEqual([]);
  });

  it('refuses more than 50 characters', async () => {
    renderPage('dev');
    await screen.findByLabelText('Company name');
    fireEvent.change(nameInput(), { target: { value: 'x'.repeat(51) } });
    submit();
    await screen.findByText('The company name can be at most 50 characters');
  });

  it('creates the company with the trimmed name, selects it and opens the dashboard', async () => {
    const { callApi, services, router } = renderPage('dev');
    await screen.findByLabelText('Company name');
    fireEvent.change(nameInput(), { target: { value: '  Acme  ' } });
    submit();
    await screen.findByText('dashboard screen');
    expect(callApi).toHaveBeenCalledWith('/api/v1/manage/company/create', { name: 'Acme' });
    expect(services.session.loadCompanies).toHaveBeenCalledWith('c9');
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('in the platform console, points to the developer console instead of a form', async () => {
    renderPage('admin');
    const link = await screen.findByRole('link', { name: 'Open the developer console' });
    expect(link.getAttribute('href')).toBe('/dev/');
    expect(screen.queryByLabelText('Company name')).toBeNull();
    await waitFor(() =>
      expect(screen.getByText('Companies are created in the developer console')).toBeTruthy(),
    );
  });

  it('says whom to ask, instead of a form, where only platform administrators create companies (issue 35)', async () => {
    const { callApi } = renderPage('dev', false);
    await screen.findByText('Companies are created by the platform administrator');
    expect(screen.queryByLabelText('Company name')).toBeNull();
    expect(createCalls(callApi)).toEqual([]);
  });
});
