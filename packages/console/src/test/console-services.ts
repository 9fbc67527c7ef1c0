import type { ConsoleVariant } from '@tessera/contract/shell-constants';
import { vi } from 'vitest';
import type { CallApi, DownloadFile, UploadFile } from '../api/http-client.ts';
import type { ConsoleServices } from '../app/console-context.ts';
import { createSessionStore, type SessionStore } from '../session/session.store.ts';
import { createSessionStorage } from '../session/session-storage.ts';

/**
 * The console's services for a screen under test: `callApi` as the test answers, a real session
 * store on jsdom's storage, the rest doing nothing.
 */
export function testServices(
  variant: ConsoleVariant,
  callApi: (path: string, body?: unknown) => Promise<unknown>,
  store: SessionStore = createSessionStore(variant, createSessionStorage(window.localStorage)),
) {
  return {
    variant,
    store,
    callApi: callApi as unknown as CallApi,
    uploadFile: vi.fn() as unknown as UploadFile,
    downloadFile: vi.fn() as unknown as DownloadFile,
    sso: { startSignIn: vi.fn(), completeSignIn: vi.fn(), switchAccount: vi.fn() },
    session: { loadCompanies: vi.fn(async () => {}), logout: vi.fn(), sessionInvalid: vi.fn() },
  } satisfies ConsoleServices;
}
