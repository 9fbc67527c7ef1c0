import { fireEvent, screen, within } from '@testing-library/react';

/** The bodies sent to one call path, in order. */
export const calls = (callApi: { mock: { calls: unknown[][] } }, path: string) =>
  callApi.mock.calls.filter(([called]) => called === path).map(([, body]) => body);

/** Clicks the button that holds this element (antd wraps a button's text in a span). */
export const click = (element: HTMLElement) =>
  fireEvent.click(element.closest('button') as HTMLButtonElement);

/** The dialog opened last (a confirmation opens above the screen's own dialogs). */
export const lastDialog = async () => (await screen.findAllByRole('dialog')).at(-1) as HTMLElement;

/** Clicks the button of the dialog opened last (antd's confirm, loaded on first use). */
export const confirmWith = async (name: string) => click(within(await lastDialog()).getByText(name));
