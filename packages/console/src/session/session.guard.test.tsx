import { fullConsoleGrants } from '@tessera/contract/constants';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, Navigate, RouterProvider } from 'react-router';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError, type CallApi, type DownloadFile, type UploadFile } from '../api/http-client.ts';
import { ConsoleContext, type ConsoleServices } from '../app/console-context.ts';
import { initI18n } from '../i18n/i18n.ts';
import { SessionGuard } from './session.guard.tsx';
import { createSessionStore } from './session.store.ts';
import { createSessionStorage } from './session-storage.ts';

const alpha = { companyId: 'c1', name: 'Alpha', icon: null, isOwner: true };

interface GuardOptions {
  token?: string;
  list?: (typeof alpha)[] | null;
  exchangeError?: Error;
  loadError?: Error;
}

function renderGuard(url: string, options: GuardOptions = {}) {
  const storage = createSessionStorage(window.localStorage);
  if (options.token)
    storage.writeToken(
      { token: options.token, username: 'alice', expiresIn: 7200, sessionExpiresIn: 43_200 },
      'dev',
    );
  const store = createSessionStore('dev', storage);
  const services = {
    variant: 'dev',
    store,
    callApi: vi.fn() as unknown as CallApi,
    uploadFile: vi.fn() as unknown as UploadFile,
    downloadFile: vi.fn() as unknown as DownloadFile,
    sso: {
      startSignIn: vi.fn(async () => {}),
      completeSignIn: vi.fn(async () => {
        if (options.exchangeError) throw options.exchangeError;
        return {
          token: 'new',
          username: 'alice',
          expiresIn: 60,
          sessionExpiresIn: 600,
          returnTo: '/dashboard',
        };
      }),
      switchAccount: vi.fn(async () => {}),
    },
    session: {
      loadCompanies: vi.fn(async () => {
        if (options.loadError) throw options.loadError;
        const list = options.list === undefined ? [alpha] : options.list;
        store.companiesLoaded(list);
        if (list?.[0]) store.grantsLoaded(list[0].companyId, fullConsoleGrants);
      }),
      logout: vi.fn(async () => {}),
      sessionInvalid: vi.fn(),
    },
  } satisfies ConsoleServices;
  const router = createMemoryRouter(
    [
      {
        path: '/',
        element: <SessionGuard />,
        children: [
          { index: true, element: <Navigate to="/dashboard" replace /> },
          { path: 'dashboard', element: <p>dashboard screen</p> },
          { path: 'create-company', element: <p>create company screen</p> },
        ],
      },
    ],
    { initialEntries: [url] },
  );
  render(
    <ConsoleContext.Provider value={services}>
      <RouterProvider router={router} />
    </ConsoleContext.Provider>,
  );
  return { services, router, store };
}

describe('<SessionGuard>', () => {
  beforeAll(() => {
    initI18n('en');
  });

  it('starts single sign-on without a token, remembering the target', async () => {
    const { services } = renderGuard('/dashboard?tab=2');
    await screen.findByText('Taking you to the sign-in page…');
    expect(services.sso.startSignIn).toHaveBeenCalledWith('/dashboard?tab=2');
    expect(screen.queryByText('dashboard screen')).toBeNull();
  });

  it('exchanges the code, lands on the return address and loads the companies', async () => {
    const { services, router, store } = renderGuard('/?code=abc&state=xyz');
    await screen.findByText('dashboard screen');
    expect(services.sso.completeSignIn).toHaveBeenCalledWith('abc', 'xyz');
    expect(services.sso.completeSignIn).toHaveBeenCalledTimes(1);
    expect(services.session.loadCompanies).toHaveBeenCalledTimes(1);
    expect(router.state.location).toMatchObject({ pathname: '/dashboard', search: '' });
    expect(store.getState()).toMatchObject({ token: 'new', company: alpha });
  });

  it('sends a person without a company to /create-company', async () => {
    const { router } = renderGuard('/dashboard', { token: 'tok', list: null });
    await screen.findByText('create company screen');
    expect(router.state.location.pathname).toBe('/create-company');
  });

  it('shows why signing in failed and offers another account', async () => {
    const { services, store } = renderGuard('/?code=abc&state=xyz', {
      exchangeError: new ApiError('Only platform administrators can use this console', 403),
    });
    // The first lazily loaded screen of the file: its import (antd's Result) takes a while under test.
    await screen.findByText('Only platform administrators can use this console', {}, { timeout: 5000 });
    expect(store.getState().token).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with another account' }));
    expect(services.sso.switchAccount).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(services.sso.startSignIn).toHaveBeenCalledWith('/');
  });

  it('shows the load failure when the company list cannot be loaded', async () => {
    renderGuard('/dashboard', { token: 'tok', loadError: new ApiError('Error: Network Error', 0) });
    await screen.findByText('Your companies could not be loaded');
    expect(screen.getByText('Error: Network Error')).toBeTruthy();
  });

  it('leaves a 401 to the "Login Again" alert', async () => {
    const { services } = renderGuard('/dashboard', {
      token: 'tok',
      loadError: new ApiError('Identity invalid', 401),
    });
    await waitFor(() => expect(services.session.loadCompanies).toHaveBeenCalled());
    expect(screen.queryByText('Your companies could not be loaded')).toBeNull();
    expect(screen.getByRole('status')).toBeTruthy();
  });
});
