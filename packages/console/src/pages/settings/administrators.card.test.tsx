import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AdministratorsCard } from './administrators.card.tsx';

const member = (
  userId: string,
  role: string,
  consoleRole: { roleId: string; name: string } | null = null,
) => ({
  userId,
  username: userId,
  email: null,
  phone: null,
  role,
  consoleRole,
  isOwner: role === 'owner',
  createdAt: '2026-01-01T00:00:00.000Z',
});

const admins = [
  member('boss', 'owner'),
  member('ann', 'admin'),
  member('eve', 'external_admin'),
  member('desk', 'delegated_admin', { roleId: 'r-1', name: 'Help desk' }),
];

function renderCard() {
  const setup = renderWithConsole(
    <FeedbackHost>
      <AdministratorsCard />
    </FeedbackHost>,
    (path) => {
      if (path === '/api/v1/manage/company/user') return { list: admins, total: admins.length };
      if (path === '/api/v1/manage/company/user/role') return member('ann', 'member');
      if (path === '/api/v1/manage/console-role/list') return { list: [] };
      if (path === '/api/v1/manage/user/list') return { list: [], total: 0 };
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  return setup;
}

describe('<AdministratorsCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['settings']);
  });

  it('asks for administrators only and shows each role, a custom console role by its name', async () => {
    const { callApi } = renderCard();
    const table = await screen.findByTestId('administrators');
    await within(table).findByText('Help desk');
    expect(callApi).toHaveBeenCalledWith('/api/v1/manage/company/user', {
      page: 1,
      pageSize: 10,
      keyword: undefined,
      adminsOnly: true,
    });
    for (const label of ['Owner', 'Administrator', 'External administrator']) within(table).getByText(label);
    expect(within(table).queryByText('Member')).toBeNull();
  });

  it('revokes an administrator back to member after confirmation', async () => {
    const { callApi } = renderCard();
    const table = await screen.findByTestId('administrators');
    await within(table).findByText('ann');
    fireEvent.click(within(table).getAllByText('Revoke')[0] as HTMLElement);
    const question = await screen.findByText('Make ann a plain member again?');
    // The confirmation's own button (getByRole over the whole table is slow in jsdom).
    const confirm = question.closest('.ant-popover')?.querySelector<HTMLElement>('.ant-btn-primary');
    fireEvent.click(confirm as HTMLElement);
    await waitFor(() =>
      expect(callApi).toHaveBeenCalledWith('/api/v1/manage/company/user/role', {
        userId: 'ann',
        role: 'member',
      }),
    );
  });
});
