import type { ConsoleVariant } from '@tessera/contract/shell-constants';
import type { CallApi } from '../api/http-client.ts';
import { loadSystemInfo } from '../app/console-context.ts';
import type { SessionStore } from './session.store.ts';

export interface SessionServiceDeps {
  variant: ConsoleVariant;
  store: SessionStore;
  callApi: CallApi;
  goTo(url: string): void;
  reload(): void;
}

export function createSessionService(deps: SessionServiceDeps) {
  const { store, callApi } = deps;
  let loading: Promise<void> | undefined;

  /**
   * Loads the person's companies and selects one (spec §4), then what the person may do in it;
   * `preferredId` selects a company just created. With the list loaded already (a company
   * switch), only the latter. Route changes while they are on their way share the calls in flight.
   * The platform's facts (the top bar's version, the mail notice above the first screen) are
   * asked beside the first list, not after it: the first screen waits for them too.
   */
  function loadCompanies(preferredId?: string): Promise<void> {
    if (loading && !preferredId) return loading;
    const listed = store.getState().companies && !preferredId;
    const current = (
      listed
        ? Promise.resolve()
        : callApi('/api/v1/manage/company/my/list').then(({ list }) =>
            store.companiesLoaded(list, preferredId),
          )
    )
      .then(loadGrants)
      .finally(() => {
        if (loading === current) loading = undefined;
      });
    loading = current;
    if (!listed) void loadSystemInfo(callApi);
    return current;
  }

  /** Spec §4 guard step 2: what the person may do in the selected company, answered by the server. */
  async function loadGrants() {
    const companyId = store.getState().company?.companyId;
    if (!companyId) return;
    const { grants } = await callApi('/api/v1/manage/company/my/access');
    store.grantsLoaded(companyId, grants);
  }

  /**
   * Ends the console session, then the single sign-on session at the address the server
   * returns. Spec §8: when the call fails, the local session is cleared all the same.
   */
  async function logout() {
    let logoutUrl: string | undefined;
    try {
      ({ logoutUrl } = await callApi(`/api/v1/${deps.variant}/login/logout`, undefined, { silent: true }));
    } catch {
      logoutUrl = undefined;
    }
    store.leave();
    if (logoutUrl) deps.goTo(logoutUrl);
    else deps.reload();
  }

  /** Spec §8, code 401: clear the token and reload, which starts sign-in again. */
  function sessionInvalid() {
    store.leave();
    deps.reload();
  }

  return { loadCompanies, logout, sessionInvalid };
}

export type SessionService = ReturnType<typeof createSessionService>;
