import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole, typeInto } from '../org/test-services.tsx';
import { ConsoleRolesCard } from './console-roles.card.tsx';

const helpDesk = {
  roleId: 'r-1',
  name: 'Help desk',
  description: 'Gets people back in',
  grants: {
    groups: { user: 'read' as const, log: 'read' as const },
    abilities: ['resetCredentials' as const],
  },
  memberCount: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

function renderCard() {
  const setup = renderWithConsole(
    <FeedbackHost>
      <ConsoleRolesCard />
    </FeedbackHost>,
    (path, body) => {
      if (path === '/api/v1/manage/console-role/list') return { list: [helpDesk] };
      if (path === '/api/v1/manage/console-role/create' || path === '/api/v1/manage/console-role/update')
        return { ...helpDesk, ...(body as object), memberCount: 0 };
      if (path === '/api/v1/manage/console-role/del') return { roleId: 'r-1', membersReturned: 2 };
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  return setup;
}

/** Chooses a level (None, Read, Manage) of a permission group in the open dialog. */
function chooseLevel(dialog: HTMLElement, group: string, level: string) {
  // The row of the group: its name, then its choices (getByRole is slow in jsdom).
  const row = within(dialog).getByText(group, { exact: true }).parentElement as HTMLElement;
  fireEvent.click(within(row).getByText(level, { exact: true }));
}

/** A button of the dialog by its text. */
const buttonIn = (scope: HTMLElement, text: string) =>
  within(scope).getByText(text, { exact: true }).closest('button') as HTMLElement;
const abilityBox = (dialog: HTMLElement) =>
  within(dialog)
    .getByText(/Get people back in/)
    .closest('label')
    ?.querySelector('input') as HTMLInputElement;

describe('<ConsoleRolesCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['settings']);
  });

  it('lists each role with what it grants and how many people hold it', async () => {
    renderCard();
    const table = await screen.findByTestId('console-role-list');
    await within(table).findByText('Help desk');
    within(table).getByText('Gets people back in');
    within(table).getByText('Users · Read');
    within(table).getByText('Logs · Read');
    within(table).getByText('Credential resets');
    within(table).getByText('2');
  });

  it('asks for a name before anything is sent', async () => {
    const { callApi } = renderCard();
    await screen.findByText('Help desk');
    fireEvent.click(buttonIn(document.body, 'New console role'));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(buttonIn(dialog, 'Save'));
    await within(dialog).findByText('Please enter the role name');
    expect(callApi).not.toHaveBeenCalledWith('/api/v1/manage/console-role/create', expect.anything());
  });

  it('creates a role from a name, a description, group levels and an ability', async () => {
    const { callApi } = renderCard();
    await screen.findByText('Help desk');
    fireEvent.click(buttonIn(document.body, 'New console role'));
    const dialog = await screen.findByRole('dialog');
    typeInto('Name', '  Auditors  ');
    typeInto('Description', 'Reads the logs');
    chooseLevel(dialog, 'Logs', 'Read');
    chooseLevel(dialog, 'Applications', 'Manage');
    fireEvent.click(abilityBox(dialog));
    fireEvent.click(buttonIn(dialog, 'Save'));
    await waitFor(() =>
      expect(callApi).toHaveBeenCalledWith('/api/v1/manage/console-role/create', {
        name: 'Auditors',
        description: 'Reads the logs',
        grants: { groups: { app: 'manage', log: 'read' }, abilities: ['resetCredentials'] },
      }),
    );
  });

  it("edits a role, starting from what it grants; managing the ability's group makes the ability needless", async () => {
    const { callApi } = renderCard();
    const table = await screen.findByTestId('console-role-list');
    await within(table).findByText('Help desk');
    fireEvent.click(buttonIn(table, 'Edit'));
    const dialog = await screen.findByRole('dialog');
    await waitFor(() =>
      expect((within(dialog).getByLabelText('Name') as HTMLInputElement).value).toBe('Help desk'),
    );
    chooseLevel(dialog, 'Users', 'Manage');
    expect(within(dialog).getByRole('checkbox', { name: /Get people back in/ })).toHaveProperty(
      'disabled',
      true,
    );
    fireEvent.click(buttonIn(dialog, 'Save'));
    await waitFor(() =>
      expect(callApi).toHaveBeenCalledWith('/api/v1/manage/console-role/update', {
        roleId: 'r-1',
        name: 'Help desk',
        description: 'Gets people back in',
        grants: { groups: { user: 'manage', log: 'read' }, abilities: [] },
      }),
    );
  });

  it('deletes a role after a confirmation that says its holders become members', async () => {
    const { callApi } = renderCard();
    const table = await screen.findByTestId('console-role-list');
    await within(table).findByText('Help desk');
    fireEvent.click(buttonIn(table, 'Delete'));
    const question = await screen.findByText('Delete the console role Help desk?');
    screen.getByText('People who hold it (2) become plain members again.');
    expect(callApi).not.toHaveBeenCalledWith('/api/v1/manage/console-role/del', expect.anything());
    const confirm = question.closest('.ant-popover')?.querySelector<HTMLElement>('.ant-btn-dangerous');
    fireEvent.click(confirm as HTMLElement);
    await waitFor(() =>
      expect(callApi).toHaveBeenCalledWith('/api/v1/manage/console-role/del', { roleId: 'r-1' }),
    );
    await screen.findByText('Help desk was deleted; people who held it: 2, now plain members');
  });
});
