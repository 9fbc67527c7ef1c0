import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { CompanyInfoCard } from './company-info.card.tsx';

/** Issue 35: the default language has one place (the brand page); the user centre address is shown. */
const detail = {
  companyId: 'c1',
  name: 'Acme',
  key: 'secret-key',
  code: 'a1b2c3d4e5',
  icon: null,
  defaultLanguage: 'zh',
  ownerUsername: 'owner',
  createdAt: '2026-11-27T00:00:00.000Z',
};

describe('<CompanyInfoCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['settings']);
  });

  it('shows the default language with the way to the brand page, and saves the name only', async () => {
    const setup = renderWithConsole(<CompanyInfoCard />, () => detail);
    render(setup.ui);
    const language = await screen.findByTestId('settings-default-language', {}, { timeout: 15_000 });
    expect(language.textContent).toContain('中文');
    expect(screen.getByRole('link', { name: 'Change it on the Branding page' }).getAttribute('href')).toBe(
      '/brand/index',
    );
    expect(screen.queryByRole('radio')).toBeNull();
    expect(screen.getByTestId('portal-address').textContent).toContain('/portal/c/a1b2c3d4e5/');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(setup.callApi).toHaveBeenCalledWith('/api/v1/manage/company/update', { name: 'Acme' }),
    );
  }, 60_000);
});
