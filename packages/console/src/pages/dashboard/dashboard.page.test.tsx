import type { ConsoleGrants } from '@tessera/contract/shell-constants';
import { render, screen } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initI18n } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { DashboardPage } from './dashboard.page.tsx';

// The chart panels bring ECharts, which draws nothing under jsdom: each stands in as its name.
vi.mock('./chart.panels.tsx', () => {
  const stand = (name: string) => () => <div data-testid={`chart-${name}`} />;
  return {
    LoginTrendPanel: stand('login-trend'),
    HotspotPanel: stand('hotspot'),
    AppTrendPanel: stand('app-trend'),
    FailuresPanel: stand('failures'),
  };
});

const range = { from: '2026-01-01', to: '2026-01-07' };
const signIn = {
  id: 'e-1',
  time: '2026-01-07T08:00:00.000Z',
  userId: 'u-1',
  username: 'alice',
  identifier: 'alice',
  appName: 'Mail',
  cause: null,
  causeText: null,
  ip: '203.0.113.9',
  place: null,
  marks: [],
};
const answers: Record<string, unknown> = {
  '/api/v1/manage/system/info': {
    version: '1.0.0',
    build: 'b',
    nodeVersion: 'v20',
    database: 'pglite',
    startedAt: '2026-01-01T00:00:00.000Z',
  },
  '/api/v1/manage/index/fail-trend': { ...range, causes: [], days: [], alerts: [] },
  '/api/v1/manage/index/user-data-overview': {
    total: 3,
    enabled: 3,
    disabled: 0,
    locked: 0,
    administrators: 1,
    newLast7Days: 1,
    activeLast7Days: 2,
  },
  '/api/v1/manage/index/user-mfa-info': {
    mode: 'off',
    users: 3,
    withFactor: 1,
    withoutFactor: 2,
    byType: [],
  },
  '/api/v1/manage/index/app-login-count': {
    ...range,
    total: 1,
    opened: 1,
    disabled: 0,
    toBeConfigured: 0,
    signIns: 1,
    top: [],
  },
  '/api/v1/manage/index/new-login-list': { ...range, list: [signIn] },
  '/api/v1/manage/index/new-fail-list': {
    ...range,
    list: [
      { ...signIn, id: 'e-2', username: 'mallory', cause: 'wrong_password', causeText: 'Wrong password' },
    ],
  },
};

/** The dashboard of company c1 for a person whose console role grants `grants`. */
async function renderDashboard(grants: ConsoleGrants) {
  const setup = renderWithConsole(
    <DashboardPage />,
    (path) => {
      if (path in answers) return answers[path];
      throw new Error(`unexpected call ${path}`);
    },
    { path: '/dashboard', initialEntry: '/dashboard' },
  );
  setup.store.companiesLoaded([{ companyId: 'c1', name: 'Acme', icon: null, isOwner: false }], 'c1');
  setup.store.grantsLoaded('c1', grants);
  render(setup.ui);
  await screen.findByTestId('panel-users');
  await screen.findByTestId('panel-apps');
  return setup.callApi.mock.calls.map(([path]) => path);
}

describe('<DashboardPage> and console roles (issue 28)', () => {
  beforeAll(() => {
    initI18n('en');
  });

  it("shows a role that reads the log the people's recent sign-ins and failures", async () => {
    const called = await renderDashboard({ groups: { log: 'read' }, abilities: [] });
    expect(await screen.findByText('alice')).toBeTruthy();
    expect(await screen.findByText('mallory')).toBeTruthy();
    expect(screen.getByTestId('panel-recent')).toBeTruthy();
    expect(screen.getByTestId('panel-new-failures')).toBeTruthy();
    expect(called).toContain('/api/v1/manage/index/new-login-list');
  });

  it('leaves those panels out for a role without the log, never asking for them, and keeps the counts', async () => {
    const called = await renderDashboard({ groups: { user: 'read' }, abilities: ['resetCredentials'] });
    expect(screen.getByTestId('panel-mfa')).toBeTruthy();
    expect(screen.queryByTestId('panel-recent')).toBeNull();
    expect(screen.queryByTestId('panel-new-failures')).toBeNull();
    expect(called).not.toContain('/api/v1/manage/index/new-login-list');
    expect(called).not.toContain('/api/v1/manage/index/new-fail-list');
    // The failure counts (and the version) are every role's.
    expect(called).toEqual(
      expect.arrayContaining(['/api/v1/manage/index/fail-trend', '/api/v1/manage/system/info']),
    );
  });
});
