import type { ConsoleVariant } from '@tessera/contract/shell-constants';
import i18next from 'i18next';
import { createHttpClient } from '../api/http-client.ts';
import { createSessionService } from '../session/session.service.ts';
import { createSessionStore } from '../session/session.store.ts';
import { createSessionStorage } from '../session/session-storage.ts';
import { createSsoService } from '../session/sso.service.ts';
import type { ConsoleServices } from './console-context.ts';
import { feedback } from './feedback.ts';

/** The composition root of the session side: storage → store → HTTP client → services. */
export function createConsoleServices(variant: ConsoleVariant): ConsoleServices {
  const storage = createSessionStorage(window.localStorage);
  const store = createSessionStore(variant, storage);
  const goTo = (url: string) => window.location.assign(url);
  const reload = () => window.location.reload();

  let onSessionInvalid = () => {};
  let onSend = () => {};
  const { callApi, uploadFile, downloadFile } = createHttpClient({
    readHeaders: () => ({ token: storage.readToken(variant), companyId: storage.readCompany().companyId }),
    translate: (key, values) => i18next.t(key, values ?? {}),
    showError: feedback.error,
    confirmLoginAgain: feedback.confirmLoginAgain,
    onSessionInvalid: () => onSessionInvalid(),
    onSend: () => onSend(),
  });
  const session = createSessionService({ variant, store, callApi, goTo, reload });
  onSessionInvalid = session.sessionInvalid;
  // The session keep-alive is its own chunk: the first screen does not wait for it.
  void import('../session/keepalive.ts').then(
    ({ startKeepalive, browserExclusive }) => {
      ({ noteActivity: onSend } = startKeepalive({
        variant,
        store,
        callApi,
        local: window.localStorage,
        events: window,
        exclusive: browserExclusive(variant),
      }));
    },
    () => undefined,
  );
  const sso = createSsoService({ variant, callApi, storage: window.sessionStorage, goTo });
  return { variant, store, callApi, uploadFile, downloadFile, sso, session };
}
