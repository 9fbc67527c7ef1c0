import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AppGroupAccessCard } from './app-group-access.card.tsx';
import { calls, click, confirmWith, lastDialog } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

const groups = [
  {
    kind: 'department',
    targetId: 'd-sales',
    name: 'Sales',
    path: 'Acme / Sales',
    people: 12,
    expiresAt: null,
    expired: false,
    createdAt: 1_790_000_000,
  },
  {
    kind: 'role',
    targetId: 'r-editors',
    name: 'Editors',
    path: null,
    people: 3,
    expiresAt: 1_700_000_000,
    expired: true,
    createdAt: 1_690_000_000,
  },
];

const tree = {
  departmentId: 'd-root',
  name: 'Acme',
  parentId: null,
  memberCount: 0,
  children: [
    { departmentId: 'd-sales', name: 'Sales', parentId: 'd-root', memberCount: 2, children: [] },
    { departmentId: 'd-ops', name: 'Operations', parentId: 'd-root', memberCount: 1, children: [] },
  ],
};

const roles = [
  { roleId: 'r-editors', name: 'Editors', description: '', memberCount: 3, authorizationCount: 0 },
  { roleId: 'r-auditors', name: 'Auditors', description: '', memberCount: 1, authorizationCount: 0 },
];

async function renderCard(list = groups) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <AppGroupAccessCard app={appDetail({ defaultAccess: 'prohibit_all' })} />
    </FeedbackHost>,
    (path) => {
      if (path === '/api/v1/manage/app/assignment/group/list') return { list };
      if (path === '/api/v1/manage/department/tree') return { tree };
      if (path === '/api/v1/manage/permission/role/list') return { list: roles, total: roles.length };
      if (path === '/api/v1/manage/app/assignment/group/add') return { assigned: 2 };
      if (path === '/api/v1/manage/app/assignment/group/del') return { removed: 1 };
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  return setup;
}

describe('<AppGroupAccessCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('lists departments with their place in the tree and roles, with people and expiry', async () => {
    await renderCard();
    const table = await screen.findByTestId('group-assignments');
    expect(await within(table).findByText('Acme / Sales')).toBeTruthy();
    expect(within(table).getByText('12 people')).toBeTruthy();
    expect(within(table).getByText('Editors')).toBeTruthy();
    expect(within(table).getByText('Role')).toBeTruthy();
    expect(within(table).getByText('Expired')).toBeTruthy();
  });

  it('says so when nothing is assigned', async () => {
    await renderCard([]);
    expect(await screen.findByText('No department or role is assigned')).toBeTruthy();
  });

  it('assigns a department and a role with the chosen expiry', async () => {
    const { callApi } = await renderCard();
    await screen.findByTestId('group-assignments');
    click(screen.getByText('Assign departments or roles'));
    const dialog = await lastDialog();

    // Nothing chosen: the form asks for a department or a role and calls nothing.
    click(within(dialog).getByText('Assign'));
    expect(await within(dialog).findByText('Choose at least one department or role')).toBeTruthy();
    expect(calls(callApi, '/api/v1/manage/app/assignment/group/add')).toEqual([]);

    const [departments, roles] = within(dialog).getAllByRole('combobox') as [HTMLElement, HTMLElement];
    fireEvent.mouseDown(departments);
    fireEvent.click(await screen.findByTitle('Operations'));
    fireEvent.mouseDown(roles);
    fireEvent.click(await screen.findByTitle('Auditors'));
    click(within(dialog).getByText('Assign'));

    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/assignment/group/add')).toEqual([
        { appId: 'app-1', departmentIds: ['d-ops'], roleIds: ['r-auditors'], expiresAt: null },
      ]),
    );
    expect(await screen.findByText('2 departments or roles assigned')).toBeTruthy();
    // The dialog and its tree picker load on first use: more than a plain render on a busy machine.
  }, 120_000);

  it('takes a role off after confirmation', async () => {
    const { callApi } = await renderCard();
    const table = await screen.findByTestId('group-assignments');
    const row = (await within(table).findByText('Editors')).closest('tr') as HTMLElement;
    click(within(row).getByText('Remove'));
    expect(within(await lastDialog()).getAllByText('Take Editors off this application?')).not.toEqual([]);
    await confirmWith('Remove');
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/assignment/group/del')).toEqual([
        { appId: 'app-1', departmentIds: [], roleIds: ['r-editors'] },
      ]),
    );
  });

  it('speaks Chinese', async () => {
    initI18n('zh');
    await loadPhrases(['apps']);
    try {
      await renderCard();
      expect(await screen.findByText('已授权部门和角色')).toBeTruthy();
      expect(await screen.findByText('12 人')).toBeTruthy();
    } finally {
      initI18n('en');
      await loadPhrases(['apps']);
    }
  });
});
