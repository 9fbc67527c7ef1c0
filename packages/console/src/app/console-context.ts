import type { ConsoleVariant } from '@tessera/contract/shell-constants';
import { createContext, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import type { ApiResponse, CallApi, DownloadFile, UploadFile } from '../api/http-client.ts';
import type { SessionService } from '../session/session.service.ts';
import type { SessionState, SessionStore } from '../session/session.store.ts';
import type { SsoService } from '../session/sso.service.ts';

/** Everything a screen needs from outside React, built once in main.tsx. */
export interface ConsoleServices {
  variant: ConsoleVariant;
  store: SessionStore;
  callApi: CallApi;
  uploadFile: UploadFile;
  downloadFile: DownloadFile;
  sso: SsoService;
  session: SessionService;
}

export const ConsoleContext = createContext<ConsoleServices | null>(null);

export function useConsole(): ConsoleServices {
  const services = useContext(ConsoleContext);
  if (!services) throw new Error('useConsole() outside <ConsoleContext.Provider>');
  return services;
}

export function useSession(): SessionState {
  const { store } = useConsole();
  return useSyncExternalStore(store.subscribe, store.getState);
}

export type SystemInfo = ApiResponse<'/api/v1/manage/system/info'>;

const answers = new WeakMap<CallApi, Promise<SystemInfo | null>>();

/**
 * The platform's facts (version, whether mail is on), asked once per console: the top bar, the
 * layout's notice and the screens whose actions need mail share the one answer (kept in this
 * first-load module, so that it needs no chunk of its own). A failed answer is asked again by
 * the next screen that wants it.
 */
export function loadSystemInfo(callApi: CallApi): Promise<SystemInfo | null> {
  let answer = answers.get(callApi);
  if (!answer) {
    answer = callApi('/api/v1/manage/system/info', undefined, { silent: true }).catch(() => {
      answers.delete(callApi);
      return null;
    });
    answers.set(callApi, answer);
  }
  return answer;
}

/** The platform's facts: undefined while they are asked for, null when the answer failed. */
export function useSystemInfo(): SystemInfo | null | undefined {
  const { callApi } = useConsole();
  const [info, setInfo] = useState<SystemInfo | null>();
  useEffect(() => {
    let current = true;
    void loadSystemInfo(callApi).then((answer) => current && setInfo(answer));
    return () => {
      current = false;
    };
  }, [callApi]);
  return info;
}

/** False while mail is off (TESSERA_SMTP_URL), true when on, undefined until known. */
export const useMailEnabled = (): boolean | undefined => useSystemInfo()?.mailEnabled;
