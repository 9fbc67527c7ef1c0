import type { ConsoleVariant } from '@tessera/contract/shell-constants';
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { CallApi, DownloadFile, UploadFile } from '../api/http-client.ts';
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
