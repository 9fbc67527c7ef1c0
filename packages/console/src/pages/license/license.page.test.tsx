import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { LicensePage } from './license.page.tsx';

const expiresAt = '2099-12-31T00:00:00.000Z';
const state = (module: string, total: number | null, used: number | null) => ({
  module,
  total,
  used,
  remaining: total !== null && used !== null ? Math.max(total - used, 0) : null,
  expiresAt,
  status: 'normal',
  reduceDay: 20_000,
});

const detail = (scope: 'installation' | 'company') => ({
  scope,
  applicationCode: 'AAAA-BBBB-CCCC-DDDD-EEEE',
  licenseId: 'lic-1',
  customer: 'Example Co',
  issuedAt: '2026-01-01T00:00:00.000Z',
  importedAt: '2026-01-02T00:00:00.000Z',
  list:
    scope === 'company'
      ? [state('user', 20, 12), state('app', null, 3), state('mfa', null, null)]
      : [state('user', 500, 140), state('app', 50, 9), state('mfa', null, null)],
});

async function renderPage(scope: 'installation' | 'company', lang: 'en' | 'zh' = 'en') {
  initI18n(lang);
  await loadPhrases(['license']);
  const setup = renderWithConsole(
    <FeedbackHost>
      <LicensePage />
    </FeedbackHost>,
    (path) => {
      if (path === '/api/v1/manage/license/code') return { code: 'AAAA-BBBB-CCCC-DDDD-EEEE' };
      if (path === '/api/v1/manage/license/detail') return detail(scope);
      if (path === '/api/v1/manage/license/quota/list') return { list: [], total: 0 };
      throw new Error(`unexpected call ${path}`);
    },
  );
  setup.store.companiesLoaded([{ companyId: 'c1', name: 'Acme', icon: null, isOwner: true }]);
  render(setup.ui);
  await screen.findByTestId('license-table');
  return setup;
}

const rowOf = (label: string) =>
  within(screen.getByTestId('license-table')).getByText(label).closest('tr') as HTMLElement;

describe('<LicensePage>', () => {
  it("shows a company administrator the company's quotas and usage, without import or company quotas", async () => {
    const { callApi } = await renderPage('company');
    expect(screen.getByTestId('license-company-hint').textContent).toContain('Quotas and usage of Acme');
    expect(screen.getByRole('columnheader', { name: 'Company quota' })).toBeTruthy();
    expect(rowOf('Users').textContent).toContain('20');
    expect(rowOf('Users').textContent).toContain('12');
    expect(rowOf('Applications').textContent).toContain('No limit');
    expect(rowOf('MFA').textContent).not.toContain('No limit');
    expect(screen.queryByText('Import licence')).toBeNull();
    expect(screen.queryByTestId('company-quotas')).toBeNull();
    expect(callApi.mock.calls.map(([path]) => path)).not.toContain('/api/v1/manage/license/quota/list');
  });

  it('shows a platform administrator the installation, the import and the company quotas', async () => {
    const { callApi } = await renderPage('installation');
    expect(screen.getByRole('columnheader', { name: 'Total' })).toBeTruthy();
    expect(rowOf('Users').textContent).toContain('500');
    expect(screen.queryByTestId('license-company-hint')).toBeNull();
    expect(screen.getByText('Import licence')).toBeTruthy();
    await screen.findByText('Company quotas');
    expect(callApi.mock.calls.map(([path]) => path)).toContain('/api/v1/manage/license/quota/list');
  });

  it('speaks Chinese', async () => {
    await renderPage('company', 'zh');
    expect(screen.getByRole('columnheader', { name: '企业配额' })).toBeTruthy();
    expect(screen.getByTestId('license-company-hint').textContent).toContain('Acme 的配额与用量');
    expect(rowOf('应用数').textContent).toContain('不限');
  });
});
