import { type ConsoleVariant, storageKeys } from '@tessera/contract/shell-constants';
import type { CallApi } from '../api/http-client.ts';
import type { SessionStore } from './session.store.ts';
import { createSessionStorage, type TokenExpiry } from './session-storage.ts';

/** What the person does that counts as working in the console (besides its calls). */
export const INPUT_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel'] as const;
/** A refresh is due this long before the idle expiry: at most 5 minutes, at most a quarter of the window. */
export const MAX_LEAD_MS = 5 * 60_000;
/** After a refresh that got no answer (network, server error), the next try. */
export const RETRY_MS = 15_000;

export interface KeepaliveDeps {
  variant: ConsoleVariant;
  store: SessionStore;
  callApi: CallApi;
  /** Browser storage, shared by the console's tabs. */
  local: Storage;
  /** Where input and storage events arrive (window). */
  events: Pick<Window, 'addEventListener' | 'removeEventListener'>;
  /** Runs `task` while no other tab of the console runs it (Web Locks); without them, at once. */
  exclusive(task: () => Promise<void>): Promise<void>;
}

/** Tabs due at the same moment without Web Locks start within this spread, so most see another's refresh done. */
const SPREAD_MS = 3000;

/**
 * Web Locks where the browser has them (secure contexts): one tab refreshes, the others wait and
 * then see it done. Pages on plain HTTP have none: each tab waits a random moment first.
 */
export const browserExclusive =
  (variant: ConsoleVariant) =>
  async (task: () => Promise<void>): Promise<void> => {
    if (navigator.locks) await navigator.locks.request(`tessera-keepalive-${variant}`, task);
    else await new Promise((resolve) => setTimeout(resolve, Math.random() * SPREAD_MS)).then(task);
  };

/**
 * Keeps the console session alive while the person works (spec §7 Session: refresh): shortly
 * before the idle expiry the server answered, if there was input or a call since the token was
 * written, the token is refreshed and the new one stored. The other tabs take it from the
 * storage event and plan from there; a tab that finds the token already replaced when its turn
 * comes does nothing. A console left alone is not refreshed and expires; so does every session
 * at its absolute expiry (the next call then asks the person to log in again).
 */
export function startKeepalive(deps: KeepaliveDeps) {
  const { variant, store, local } = deps;
  const storage = createSessionStorage(local);
  let lastActivity = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The planned refresh came while nobody was working: the next activity refreshes at once. */
  let dormant = false;
  let refreshing = false;
  let knownToken = store.getState().token;

  /** The stored token and its expiry, or undefined when there is none for this console. */
  function read(): { token: string; expiry: TokenExpiry } | undefined {
    const token = storage.readToken(variant);
    if (!token) return undefined;
    try {
      const expiry = JSON.parse(local.getItem(storageKeys.tokenExpiry) ?? 'null') as TokenExpiry | null;
      return expiry && [expiry.at, expiry.idleAt, expiry.absoluteAt].every(Number.isFinite)
        ? { token, expiry }
        : undefined;
    } catch {
      return undefined;
    }
  }

  function plan(delay?: number) {
    clearTimeout(timer);
    timer = undefined;
    dormant = false;
    const current = read();
    // No token, or a session that ends at its absolute expiry anyway: nothing to keep alive.
    if (!current || current.expiry.idleAt >= current.expiry.absoluteAt) return;
    const { at, idleAt } = current.expiry;
    const due = idleAt - Math.min(MAX_LEAD_MS, (idleAt - at) / 4);
    timer = setTimeout(
      () => {
        timer = undefined;
        if (lastActivity >= at) void refresh(current.token);
        else dormant = true;
      },
      delay ?? Math.max(0, due - Date.now()),
    );
  }

  async function refresh(planned: string) {
    if (refreshing) return;
    refreshing = true;
    let retry = false;
    try {
      await deps.exclusive(async () => {
        // Another tab refreshed while this one waited: its storage event has planned the next.
        if (read()?.token !== planned) return;
        try {
          const answer = await deps.callApi(`/api/v1/${variant}/oidc/refresh`, undefined, { silent: true });
          if (read()?.token === planned) store.tokenChanged(answer);
        } catch (error) {
          // 401: the session has ended; the next call shows "Login Again". Otherwise try again.
          retry = (error as { code?: number }).code !== 401;
        }
      });
    } finally {
      refreshing = false;
    }
    // A new token has been followed already (the store's or the storage event); a 401 ends here.
    const current = read();
    if (retry && current?.token === planned && Date.now() + RETRY_MS < current.expiry.idleAt) plan(RETRY_MS);
  }

  /** The stored token changed (a refresh, a sign-in, here or in another tab): plan from the new one. */
  function follow() {
    const token = read()?.token ?? null;
    if (token && token !== store.getState().token) store.tokenChanged();
    knownToken = store.getState().token;
    plan();
  }

  function noteActivity() {
    // The refresh's own call is no sign of the person.
    if (refreshing) return;
    lastActivity = Date.now();
    if (!dormant) return;
    dormant = false;
    const current = read();
    if (current && lastActivity < current.expiry.absoluteAt) void refresh(current.token);
  }

  // The expiry is written last (session-storage.ts): by its event the token is there too.
  const onStorage = (event: StorageEvent) => {
    if (event.key === storageKeys.tokenExpiry || event.key === null) follow();
  };
  const unsubscribe = store.subscribe(() => {
    if (store.getState().token !== knownToken) follow();
  });
  for (const type of INPUT_EVENTS)
    deps.events.addEventListener(type, noteActivity, { capture: true, passive: true });
  deps.events.addEventListener('storage', onStorage as EventListener);
  plan();

  return {
    /** A call left (the HTTP client tells): the person is working. */
    noteActivity,
    stop() {
      clearTimeout(timer);
      unsubscribe();
      for (const type of INPUT_EVENTS) deps.events.removeEventListener(type, noteActivity, { capture: true });
      deps.events.removeEventListener('storage', onStorage as EventListener);
    },
  };
}

export type Keepalive = ReturnType<typeof startKeepalive>;
