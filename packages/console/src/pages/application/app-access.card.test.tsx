import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AppAccessCard } from './app-access.card.tsx';
import type { AppDetail } from './app-view.ts';
import { fromLocalInput } from './expiry-input.tsx';
import { calls, click, confirmWith, lastDialog } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

const assignments = [
  {
    userId: 'u-alice',
    username: 'alice',
    name: 'Alice Liu',
    expiresAt: null,
    expired: false,
    createdAt: 1_790_000_000,
  },
  {
    userId: 'u-bob',
    username: 'bob',
    name: null,
    expiresAt: 1_700_000_000,
    expired: true,
    createdAt: 1_690_000_000,
  },
];

const people = [
  { userId: 'u-carol', username: 'carol', name: 'Carol Wu', nickname: null },
  { userId: 'u-dave', username: 'dave', name: null, nickname: null },
];

/** The card as the detail holds it: the app it shows is the one the last save answered. */
function Harness({ initial }: { initial: AppDetail }) {
  const [app, setApp] = useState(initial);
  return <AppAccessCard app={app} onChange={setApp} />;
}

async function renderCard(answer: (path: string, body: unknown) => unknown = () => undefined) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <Harness initial={appDetail({ defaultAccess: 'allow_all' })} />
    </FeedbackHost>,
    (path, body) => {
      const answered = answer(path, body);
      if (answered !== undefined) return answered;
      if (path === '/api/v1/manage/app/assignment/list') return { list: assignments, total: 2 };
      if (path === '/api/v1/manage/user/list') return { list: people, total: people.length };
      if (path === '/api/v1/manage/app/assignment/group/list') return { list: [] };
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  await screen.findByText('Alice Liu');
  return setup;
}

const radio = (label: string) => screen.getByLabelText(label, { exact: false }) as HTMLInputElement;

/** Opens "Assign users" and picks these people in the user picker. */
async function assign(...labels: string[]) {
  click(screen.getByText('Assign users'));
  const dialog = await lastDialog();
  const picker = within(dialog).getByRole('combobox');
  fireEvent.mouseDown(picker);
  for (const label of labels) fireEvent.click(await screen.findByTitle(label));
  return dialog;
}

describe('<AppAccessCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('lists the assigned users with their expiry, marking an expired one', async () => {
    const { callApi } = await renderCard();
    expect(calls(callApi, '/api/v1/manage/app/assignment/list')[0]).toEqual({
      appId: 'app-1',
      page: 1,
      pageSize: 10,
    });
    const alice = screen.getByText('Alice Liu').closest('tr') as HTMLElement;
    expect(alice.textContent).toContain('Permanent');
    expect(alice.textContent).not.toContain('Expired');
    const bob = screen.getByText('bob').closest('tr') as HTMLElement;
    expect(bob.textContent).toContain('Expired');
  });

  it('saves the default access through the application update and shows the answered choice', async () => {
    const { callApi } = await renderCard((path, body) =>
      path === '/api/v1/manage/app/update' ? appDetail(body as Partial<AppDetail>) : undefined,
    );
    expect(radio('Allow all users of the company').checked).toBe(true);
    fireEvent.click(radio('Only assigned users'));
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/update')).toEqual([
        { appId: 'app-1', defaultAccess: 'prohibit_all' },
      ]),
    );
    await waitFor(() => expect(radio('Only assigned users').checked).toBe(true));
    expect(radio('Allow all users of the company').checked).toBe(false);
  });

  it('asks each person for consent once the switch is on (issue 35)', async () => {
    const { callApi } = await renderCard((path, body) =>
      path === '/api/v1/manage/app/update' ? appDetail(body as Partial<AppDetail>) : undefined,
    );
    const toggle = screen.getByRole('switch', { name: 'Ask each person for consent' });
    expect(toggle.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(toggle);
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/update')).toEqual([{ appId: 'app-1', askConsent: true }]),
    );
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('true'));
  });

  it('keeps the stored default access when the update is refused', async () => {
    await renderCard((path) => {
      if (path === '/api/v1/manage/app/update') throw new Error('refused');
      return undefined;
    });
    fireEvent.click(radio('Only assigned users'));
    await waitFor(() => expect(radio('Allow all users of the company').checked).toBe(true));
    expect(radio('Only assigned users').checked).toBe(false);
  });

  it('assigns users permanently (expiry null) and reloads the list', async () => {
    const { callApi } = await renderCard((path) =>
      path === '/api/v1/manage/app/assignment/add' ? { assigned: 2 } : undefined,
    );
    const dialog = await assign('Carol Wu (carol)', 'dave');
    click(within(dialog).getByText('Assign'));
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/assignment/add')).toEqual([
        { appId: 'app-1', userIds: ['u-carol', 'u-dave'], expiresAt: null },
      ]),
    );
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/app/assignment/list')).toHaveLength(2));
  });

  it('assigns a user until the chosen time, sent as epoch seconds', async () => {
    const { callApi } = await renderCard((path) =>
      path === '/api/v1/manage/app/assignment/add' ? { assigned: 1 } : undefined,
    );
    const dialog = await assign('Carol Wu (carol)');
    fireEvent.click(within(dialog).getByLabelText('Until'));
    fireEvent.change(within(dialog).getByLabelText('Expiry', { selector: 'input[type="datetime-local"]' }), {
      target: { value: '2031-03-04T05:06' },
    });
    click(within(dialog).getByText('Assign'));
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/assignment/add')).toEqual([
        { appId: 'app-1', userIds: ['u-carol'], expiresAt: fromLocalInput('2031-03-04T05:06') },
      ]),
    );
    expect(fromLocalInput('2031-03-04T05:06')).toBe(Math.floor(new Date(2031, 2, 4, 5, 6).getTime() / 1000));
  });

  it('refuses an expiry in the past and no users, sending nothing', async () => {
    const { callApi } = await renderCard();
    click(screen.getByText('Assign users'));
    const dialog = await lastDialog();
    fireEvent.click(within(dialog).getByLabelText('Until'));
    fireEvent.change(within(dialog).getByLabelText('Expiry', { selector: 'input[type="datetime-local"]' }), {
      target: { value: '2020-01-01T00:00' },
    });
    click(within(dialog).getByText('Assign'));
    await screen.findByText('Choose at least one user');
    await screen.findByText('The expiry must be in the future');
    expect(calls(callApi, '/api/v1/manage/app/assignment/add')).toEqual([]);
  });

  it('takes a user off the application only after the confirmation', async () => {
    const { callApi } = await renderCard((path) =>
      path === '/api/v1/manage/app/assignment/del' ? { removed: 1 } : undefined,
    );
    const bob = screen.getByText('bob').closest('tr') as HTMLElement;
    click(within(bob).getByText('Remove'));
    await screen.findAllByText('Take bob off this application?');
    expect(calls(callApi, '/api/v1/manage/app/assignment/del')).toEqual([]);
    await confirmWith('Remove');
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/assignment/del')).toEqual([
        { appId: 'app-1', userIds: ['u-bob'] },
      ]),
    );
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/app/assignment/list')).toHaveLength(2));
  });

  it('takes nobody off when the confirmation is cancelled', async () => {
    const { callApi } = await renderCard((path) =>
      path === '/api/v1/manage/app/assignment/del' ? { removed: 1 } : undefined,
    );
    const alice = screen.getByText('Alice Liu').closest('tr') as HTMLElement;
    click(within(alice).getByText('Remove'));
    await screen.findAllByText('Take Alice Liu off this application?');
    await confirmWith('Cancel');
    const bob = screen.getByText('bob').closest('tr') as HTMLElement;
    click(within(bob).getByText('Remove'));
    await screen.findAllByText('Take bob off this application?');
    await confirmWith('Remove');
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/app/assignment/del')).toHaveLength(1));
    expect(calls(callApi, '/api/v1/manage/app/assignment/del')).toEqual([
      { appId: 'app-1', userIds: ['u-bob'] },
    ]);
  });
});
