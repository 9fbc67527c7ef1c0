import { act, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { ConsoleContext } from '../app/console-context.ts';
import { createSessionStore } from '../session/session.store.ts';
import { createSessionStorage } from '../session/session-storage.ts';
import { testServices } from '../test/console-services.ts';
import { englishInAWideWindow } from '../test/wide-window.ts';
import { TopBar } from './top-bar.tsx';

const alpha = { companyId: 'c1', name: 'Alpha', icon: null, isOwner: true };
type Self = {
  userId: string;
  username: string;
  name: string | null;
  nickname: string | null;
  photo: string | null;
};

function renderTopBar(self: Self | Error) {
  const store = createSessionStore('dev', createSessionStorage(window.localStorage));
  store.signedIn({ token: 'tok', username: 'alice', expiresIn: 7200, sessionExpiresIn: 43_200 });
  store.companiesLoaded([alpha]);
  const selfCalls: string[] = [];
  const callApi = vi.fn(async (path: string) => {
    if (path === '/api/v1/manage/user/self-details') {
      selfCalls.push(path);
      if (self instanceof Error) throw self;
      return self;
    }
    if (path === '/api/v1/manage/system/info') return { version: '1.0.0' };
    if (path === '/api/v1/manage/license/info') return { Info: [] };
    throw new Error(`unexpected ${path}`);
  });
  const services = testServices('dev', callApi, store);
  const router = createMemoryRouter([{ path: '/', element: <TopBar /> }], { initialEntries: ['/'] });
  render(
    <ConsoleContext.Provider value={services}>
      <RouterProvider router={router} />
    </ConsoleContext.Provider>,
  );
  return { store, selfCalls };
}

describe('<TopBar> user menu (spec §3 Session: avatar; issue 15)', () => {
  // A wide window: the top bar shows names next to the icons.
  englishInAWideWindow();

  it("shows the person's nickname and photo from user/self-details", async () => {
    renderTopBar({
      userId: 'u1',
      username: 'alice',
      name: 'Alice Liddell',
      nickname: 'Ali',
      photo: '/api/v1/files/p1',
    });
    expect(await screen.findByText('Ali')).toBeTruthy();
    expect(screen.getByTestId('current-user-photo').getAttribute('src')).toBe('/api/v1/files/p1');
  });

  it('falls back to the name, then the username, and to the icon without a photo', async () => {
    renderTopBar({ userId: 'u1', username: 'alice', name: 'Alice Liddell', nickname: null, photo: null });
    expect(await screen.findByText('Alice Liddell')).toBeTruthy();
    expect(screen.queryByTestId('current-user-photo')).toBeNull();
    expect(screen.getByRole('img', { name: 'user' })).toBeTruthy();
  });

  it('keeps the username when user/self-details fails', async () => {
    const { selfCalls } = renderTopBar(new Error('offline'));
    await vi.waitFor(() => expect(selfCalls).toHaveLength(1));
    expect(screen.getByTestId('current-user').textContent).toBe('alice');
    expect(screen.queryByTestId('current-user-photo')).toBeNull();
  });

  it('does not ask again when the token is refreshed (the same person)', async () => {
    const { store, selfCalls } = renderTopBar({
      userId: 'u1',
      username: 'alice',
      name: null,
      nickname: 'Ali',
      photo: null,
    });
    await screen.findByText('Ali');
    act(() =>
      store.tokenChanged({ token: 'tok-2', username: 'alice', expiresIn: 7200, sessionExpiresIn: 43_000 }),
    );
    await act(async () => {});
    expect(selfCalls).toHaveLength(1);
    expect(screen.getByText('Ali')).toBeTruthy();
  });
});
