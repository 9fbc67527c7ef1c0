import { fullConsoleGrants } from '@tessera/contract/shell-constants';
import { render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { ConsoleContext } from '../app/console-context.ts';
import { createSessionStore } from '../session/session.store.ts';
import { createSessionStorage } from '../session/session-storage.ts';
import { testServices } from '../test/console-services.ts';
import { englishInAWideWindow } from '../test/wide-window.ts';
import { ConsoleLayout } from './console.layout.tsx';

/** Issue 35: the company console says, to those who manage people, that mail is off. */
function renderLayout(
  mailEnabled: boolean,
  grants = fullConsoleGrants,
  systemInfo: () => Promise<unknown> = async () => ({ version: '1.0.0', mailEnabled }),
) {
  const store = createSessionStore('dev', createSessionStorage(window.localStorage));
  store.signedIn({ token: 'tok', username: 'alice', expiresIn: 7200, sessionExpiresIn: 43_200 });
  store.companiesLoaded([{ companyId: 'c1', name: 'Alpha', icon: null, isOwner: true }]);
  store.grantsLoaded('c1', grants);
  const callApi = vi.fn(async (path: string) => {
    if (path === '/api/v1/manage/system/info') return systemInfo();
    if (path === '/api/v1/manage/license/info') return { Info: [] };
    return {};
  });
  const router = createMemoryRouter(
    [{ path: '/', element: <ConsoleLayout />, children: [{ index: true, element: <p>screen</p> }] }],
    { initialEntries: ['/'] },
  );
  render(
    <ConsoleContext.Provider value={testServices('dev', callApi, store)}>
      <RouterProvider router={router} />
    </ConsoleContext.Provider>,
  );
  return { callApi };
}

describe('mail-off notice in the layout', () => {
  englishInAWideWindow();

  it('stays on every screen while mail is off, naming TESSERA_SMTP_URL', async () => {
    renderLayout(false);
    const notice = await screen.findByTestId('mail-off-notice', {}, { timeout: 15_000 });
    expect(notice.textContent).toContain('Mail is not set up on this platform');
    expect(notice.textContent).toContain('TESSERA_SMTP_URL');
    expect(screen.getByText('screen')).toBeTruthy();
  });

  it('is not shown when mail is on, nor to a role that does not manage people', async () => {
    const on = renderLayout(true);
    await waitFor(() =>
      expect(on.callApi).toHaveBeenCalledWith('/api/v1/manage/system/info', undefined, { silent: true }),
    );
    document.body.innerHTML = '';
    const reader = renderLayout(false, { groups: { log: 'read' }, abilities: [] });
    await waitFor(() =>
      expect(reader.callApi).toHaveBeenCalledWith('/api/v1/manage/system/info', undefined, { silent: true }),
    );
    // Give the notice's chunk every chance to appear before saying it did not.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(screen.queryByTestId('mail-off-notice')).toBeNull();
  });

  it('shows the screen only with the notice above it, so nothing moves down once it is there', async () => {
    let answer: (info: unknown) => void = () => {};
    renderLayout(false, fullConsoleGrants, () => new Promise((resolve) => (answer = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByText('screen')).toBeNull();
    answer({ version: '1.0.0', mailEnabled: false });
    await screen.findByText('screen', {}, { timeout: 15_000 });
    expect(screen.getByTestId('mail-off-notice')).toBeTruthy();
  });

  it('shows the screen without the notice when the platform could not say whether mail is on', async () => {
    renderLayout(false, fullConsoleGrants, async () => Promise.reject(new Error('offline')));
    await screen.findByText('screen', {}, { timeout: 15_000 });
    expect(screen.queryByTestId('mail-off-notice')).toBeNull();
  });
});
