import { fireEvent, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';
import type { CallApi, DownloadFile, UploadFile } from '../../api/http-client.ts';
import { ConsoleContext, type ConsoleServices } from '../../app/console-context.ts';
import { createSessionStore } from '../../session/session.store.ts';
import { createSessionStorage } from '../../session/session-storage.ts';

/** Console services for a screen test: `callApi` answers through `answer(path, body)`. */
export function renderWithConsole(
  element: ReactNode,
  answer: (path: string, body: unknown) => unknown,
  { path = '/', initialEntry = '/' }: { path?: string; initialEntry?: string } = {},
) {
  const callApi = vi.fn(async (callPath: string, body?: unknown) => answer(callPath, body));
  const uploadFile = vi.fn();
  const services = {
    variant: 'dev',
    store: createSessionStore('dev', createSessionStorage(window.localStorage)),
    callApi: callApi as unknown as CallApi,
    uploadFile: uploadFile as unknown as UploadFile,
    downloadFile: vi.fn() as unknown as DownloadFile,
    sso: { startSignIn: vi.fn(), completeSignIn: vi.fn(), switchAccount: vi.fn() },
    session: { loadCompanies: vi.fn(async () => {}), logout: vi.fn(), sessionInvalid: vi.fn() },
  } satisfies ConsoleServices;
  const router = createMemoryRouter([{ path, element }], { initialEntries: [initialEntry] });
  return {
    callApi,
    uploadFile,
    router,
    store: services.store,
    ui: (
      <ConsoleContext.Provider value={services}>
        <RouterProvider router={router} />
      </ConsoleContext.Provider>
    ),
  };
}

/** Types into the field with this label (one change, as antd's inputs take it). */
export const typeInto = (label: string, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });

/** Types a new password and its confirmation into "Password" and "Confirm password". */
export function typePasswords(password: string, confirmation: string) {
  typeInto('Password', password);
  typeInto('Confirm password', confirmation);
}
