import { storageKeys } from '@tessera/contract/shell-constants';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type CallApi } from '../api/http-client.ts';
import { browserExclusive, type Keepalive, MAX_LEAD_MS, RETRY_MS, startKeepalive } from './keepalive.ts';
import { createSessionStore } from './session.store.ts';
import { createSessionStorage, type TokenAnswer } from './session-storage.ts';

// Issue 15: the console keeps its session alive with /api/v1/{admin,dev}/oidc/refresh (spec §7).

const MINUTE = 60_000;
const IDLE = 120 * MINUTE;
const answer = (token: string, idleSeconds = IDLE / 1000, sessionSeconds = 12 * 3600): TokenAnswer => ({
  token,
  username: 'alice',
  expiresIn: idleSeconds,
  sessionExpiresIn: sessionSeconds,
});

interface Tab {
  store: ReturnType<typeof createSessionStore>;
  calls: string[];
  /** The person presses a key in this tab. */
  act(): void;
  /** What the browser delivers when another tab writes storage. */
  storageEvent(key: string): void;
  keepalive: Keepalive;
}
/** The open tabs of the browser: a token stored in one reaches the others as a storage event. */
const browser: Tab[] = [];

/** One browser tab: its store, its keep-alive, and the server it refreshes at. */
function openTab(
  server: { refresh: () => Promise<TokenAnswer> },
  locks?: (task: () => Promise<void>) => Promise<void>,
): Tab {
  const store = createSessionStore('dev', createSessionStorage(window.localStorage));
  const events = new EventTarget();
  const calls: string[] = [];
  const callApi = vi.fn(async (path: string) => {
    calls.push(path);
    keepalive.noteActivity();
    const answer = await server.refresh();
    // Stored right after this answer; the browser tells the other tabs a moment later.
    setTimeout(() => {
      for (const other of browser) if (other !== tab) other.storageEvent(storageKeys.tokenExpiry);
    });
    return answer;
  }) as unknown as CallApi;
  const keepalive: Keepalive = startKeepalive({
    variant: 'dev',
    store,
    callApi,
    local: window.localStorage,
    events: events as unknown as Window,
    exclusive: locks ?? ((task) => task()),
  });
  const act = () => events.dispatchEvent(new Event('keydown'));
  const storageEvent = (key: string) => events.dispatchEvent(new StorageEvent('storage', { key }));
  const tab: Tab = { store, calls, act, storageEvent, keepalive };
  browser.push(tab);
  return tab;
}

/**
 * The server's side: every refresh rotates the token and answers the idle lifetime, capped by
 * the end of the session; after the end, 401.
 */
function rotatingServer(idleSeconds = IDLE / 1000, sessionSeconds = 12 * 3600) {
  const absoluteAt = Date.now() + sessionSeconds * 1000;
  let n = 0;
  return {
    get count() {
      return n;
    },
    refresh: async () => {
      n += 1;
      const left = Math.floor((absoluteAt - Date.now()) / 1000);
      if (left <= 0) throw new ApiError('Identity information invalid, please login again!', 401);
      return answer(`tok-${n}`, Math.min(idleSeconds, left), left);
    },
  };
}

const signIn = (token = 'tok-0', idleSeconds?: number, sessionSeconds?: number) =>
  createSessionStore('dev', createSessionStorage(window.localStorage)).signedIn(
    answer(token, idleSeconds, sessionSeconds),
  );

describe('session keep-alive', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-03-02T09:00:00Z') });
  });
  afterEach(() => {
    for (const tab of browser.splice(0)) tab.keepalive.stop();
    vi.useRealTimers();
  });

  it('refreshes shortly before the idle expiry the server answered while the person works, and stores the new token', async () => {
    signIn();
    const start = Date.now();
    const server = rotatingServer();
    const tab = openTab(server);
    await vi.advanceTimersByTimeAsync(30 * MINUTE);
    tab.act();
    await vi.advanceTimersByTimeAsync(IDLE - 30 * MINUTE - MAX_LEAD_MS - 1000);
    expect(server.count).toBe(0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(tab.calls).toEqual(['/api/v1/dev/oidc/refresh']);
    expect(window.localStorage.getItem(storageKeys.token)).toBe('tok-1');
    expect(tab.store.getState().token).toBe('tok-1');
    // The next window starts now and is planned from the new answer.
    const expiry = JSON.parse(window.localStorage.getItem(storageKeys.tokenExpiry) ?? '{}');
    expect(expiry.at).toBe(start + IDLE - MAX_LEAD_MS);
    expect(expiry.idleAt).toBe(expiry.at + IDLE);
  });

  it('plans from the lifetime the server answers, not a fixed one', async () => {
    signIn('tok-0', 60);
    const server = rotatingServer(60);
    const tab = openTab(server);
    tab.act();
    // A quarter of a one-minute window: the refresh comes at 45 s.
    await vi.advanceTimersByTimeAsync(44_000);
    expect(server.count).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(server.count).toBe(1);
    tab.act();
    await vi.advanceTimersByTimeAsync(45_000);
    expect(server.count).toBe(2);
  });

  it('counts the console calls as activity', async () => {
    signIn();
    const server = rotatingServer();
    const tab = openTab(server);
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    tab.keepalive.noteActivity();
    await vi.advanceTimersByTimeAsync(IDLE);
    expect(server.count).toBe(1);
  });

  it('lets an idle console expire: no input and no call, no refresh', async () => {
    signIn();
    const server = rotatingServer();
    openTab(server);
    await vi.advanceTimersByTimeAsync(3 * IDLE);
    expect(server.count).toBe(0);
    expect(window.localStorage.getItem(storageKeys.token)).toBe('tok-0');
  });

  it('after a window without activity, keeps working when the person comes back before the expiry', async () => {
    signIn();
    const server = rotatingServer();
    const tab = openTab(server);
    await vi.advanceTimersByTimeAsync(IDLE - MAX_LEAD_MS + 1000);
    expect(server.count).toBe(0);
    tab.act();
    await vi.advanceTimersByTimeAsync(0);
    expect(server.count).toBe(1);
    expect(tab.store.getState().token).toBe('tok-1');
  });

  it('stops at the absolute expiry: no refresh plans past the end of the session', async () => {
    // 2 hours idle, 3 hours in all: the first refresh's answer is capped by the end of the session.
    signIn('tok-0', IDLE / 1000, 3 * 3600);
    const server = rotatingServer(IDLE / 1000, 3 * 3600);
    const tab = openTab(server);
    for (let minutes = 0; minutes < 5 * 60; minutes += 10) {
      tab.act();
      await vi.advanceTimersByTimeAsync(10 * MINUTE);
    }
    expect(server.count).toBe(1);
    const expiry = JSON.parse(window.localStorage.getItem(storageKeys.tokenExpiry) ?? '{}');
    expect(expiry.idleAt).toBe(expiry.absoluteAt);
  });

  it('tells nothing and stops when the session has ended (401); the next call asks to log in again', async () => {
    signIn();
    let refused = 0;
    const tab = openTab({
      refresh: async () => {
        refused += 1;
        throw new ApiError('Identity information invalid, please login again!', 401);
      },
    });
    tab.act();
    await vi.advanceTimersByTimeAsync(2 * IDLE);
    tab.act();
    await vi.advanceTimersByTimeAsync(2 * IDLE);
    expect(refused).toBe(1);
    expect(tab.store.getState().token).toBe('tok-0');
  });

  it('tries again after a network failure, while the token still lives', async () => {
    signIn();
    let attempts = 0;
    const tab = openTab({
      refresh: async () => {
        attempts += 1;
        if (attempts === 1) throw new ApiError('Error: Network Error', 0);
        return answer('tok-1');
      },
    });
    tab.act();
    await vi.advanceTimersByTimeAsync(IDLE - MAX_LEAD_MS);
    expect(attempts).toBe(1);
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(attempts).toBe(2);
    expect(tab.store.getState().token).toBe('tok-1');
  });

  describe('several tabs', () => {
    /** Web Locks between the tabs of one browser. */
    function sharedLock() {
      let tail = Promise.resolve();
      return (task: () => Promise<void>) => {
        const run = tail.then(task);
        tail = run.catch(() => undefined);
        return run;
      };
    }

    it('one tab refreshes; the others take the new token from the storage event and plan from it', async () => {
      signIn();
      const server = rotatingServer();
      const lock = sharedLock();
      const a = openTab(server, lock);
      const b = openTab(server, lock);
      const c = openTab(server, lock);
      a.act();
      b.act();
      c.act();
      await vi.advanceTimersByTimeAsync(IDLE - MAX_LEAD_MS + 1000);
      // Three tabs due at the same moment: one refresh, no storm.
      expect(server.count).toBe(1);
      expect(a.store.getState().token).toBe('tok-1');
      expect(b.store.getState().token).toBe('tok-1');
      expect(c.store.getState().token).toBe('tok-1');

      // Only tab b is used now: it keeps the session alive for all.
      for (let i = 0; i < 3; i++) {
        b.act();
        await vi.advanceTimersByTimeAsync(IDLE - MAX_LEAD_MS);
      }
      expect(server.count).toBe(4);
      expect(a.calls).toHaveLength(1);
      expect(c.calls).toHaveLength(0);
      expect(a.store.getState().token).toBe('tok-4');
    });

    it('a tab whose turn comes after another refreshed does not refresh again', async () => {
      signIn();
      const server = rotatingServer();
      const lock = sharedLock();
      const a = openTab(server, lock);
      const b = openTab(server, lock);
      a.act();
      b.act();
      // Tab b's turn comes before the storage event: the lock and the token it planned with decide.
      await vi.advanceTimersByTimeAsync(IDLE - MAX_LEAD_MS);
      expect(server.count).toBe(1);
      expect(b.calls).toHaveLength(0);
    });
  });

  it('without Web Locks (a page on plain HTTP), tabs due together start at random moments and the later ones see it done', async () => {
    expect('locks' in navigator).toBe(false);
    vi.spyOn(Math, 'random').mockReturnValueOnce(0.1).mockReturnValueOnce(0.9);
    signIn();
    const server = rotatingServer();
    const a = openTab(server, browserExclusive('dev'));
    const b = openTab(server, browserExclusive('dev'));
    a.act();
    b.act();
    await vi.advanceTimersByTimeAsync(IDLE - MAX_LEAD_MS + 3000);
    expect(server.count).toBe(1);
    expect(b.calls).toHaveLength(0);
    vi.mocked(Math.random).mockRestore();
  });

  it('follows a sign-in and a sign-out in the same tab', async () => {
    const server = rotatingServer();
    const tab = openTab(server);
    tab.act();
    await vi.advanceTimersByTimeAsync(3 * IDLE);
    expect(server.count).toBe(0);
    tab.store.signedIn(answer('tok-0'));
    tab.act();
    await vi.advanceTimersByTimeAsync(IDLE - MAX_LEAD_MS);
    expect(server.count).toBe(1);
    tab.store.leave();
    tab.act();
    await vi.advanceTimersByTimeAsync(3 * IDLE);
    expect(server.count).toBe(1);
  });
});
