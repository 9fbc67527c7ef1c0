import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole, typeInto } from '../org/test-services.tsx';
import { ScimTokensCard } from './scim-tokens.card.tsx';

/** Issue 31: a company makes SCIM tokens (the secret shown once), sees their last use, revokes them. */
const token = {
  tokenId: 't1',
  name: 'Entra ID',
  groupsAs: 'departments',
  expiresAt: null,
  createdAt: '2026-11-01T00:00:00.000Z',
  lastUsedAt: '2026-11-02T08:00:00.000Z',
  lastUsedIp: '203.0.113.9',
};
const overview = { baseUrl: 'https://id.example/scim/v2/c1', allowPasswords: false, list: [token] };
const SECRET = 'tsc_secretSecretSecretSecretSecretSecretSecr';

function renderCard() {
  const setup = renderWithConsole(<ScimTokensCard />, (path, body) => {
    if (path === '/api/v1/manage/company/scim/token/create')
      return {
        ...token,
        tokenId: 't2',
        name: (body as { name: string }).name,
        lastUsedAt: null,
        lastUsedIp: null,
        secret: SECRET,
      };
    if (path === '/api/v1/manage/company/scim/token/revoke') return { tokenId: 't1' };
    if (path === '/api/v1/manage/company/scim/settings/update') return body;
    return overview;
  });
  render(setup.ui);
  return setup;
}

describe('<ScimTokensCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['settings']);
  });
  afterEach(async () => {
    initI18n('en');
    await loadPhrases(['settings']);
  });

  it('lists tokens with their last use, creates one and shows its secret once, revokes', async () => {
    const setup = renderCard();
    const card = await screen.findByTestId('scim-card', {}, { timeout: 15_000 });
    expect(await within(card).findByText('https://id.example/scim/v2/c1')).toBeTruthy();
    expect(within(card).getByText(/203\.0\.113\.9/)).toBeTruthy();
    fireEvent.click(within(card).getByRole('button', { name: /New SCIM token/ }));
    typeInto('Name', 'Okta');
    expect(screen.getByText(/is a department under the company/)).toBeTruthy();
    fireEvent.click(screen.getByRole('radio', { name: 'Permission roles' }));
    expect(await screen.findByText(/is a permission role/)).toBeTruthy();
    fireEvent.click(await screen.findByRole('button', { name: 'Create' }));
    await waitFor(() =>
      expect(setup.callApi).toHaveBeenCalledWith('/api/v1/manage/company/scim/token/create', {
        name: 'Okta',
        expiresInDays: 365,
        groupsAs: 'roles',
      }),
    );
    expect((await screen.findByTestId('scim-secret')).textContent).toContain(SECRET);
    fireEvent.click(screen.getByRole('button', { name: 'I have copied it' }));
    fireEvent.click(within(card).getByRole('switch', { name: 'Accept passwords over SCIM' }));
    await waitFor(() =>
      expect(setup.callApi).toHaveBeenCalledWith('/api/v1/manage/company/scim/settings/update', {
        allowPasswords: true,
      }),
    );
    fireEvent.click(within(card).getByRole('button', { name: /Revoke/ }));
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke' }));
    await waitFor(() =>
      expect(setup.callApi).toHaveBeenCalledWith('/api/v1/manage/company/scim/token/revoke', {
        tokenId: 't1',
      }),
    );
  }, 60_000);

  it('speaks Chinese', async () => {
    initI18n('zh');
    await loadPhrases(['settings']);
    renderCard();
    const card = await screen.findByTestId('scim-card', {}, { timeout: 15_000 });
    expect(await within(card).findByText('SCIM 同步')).toBeTruthy();
    expect(within(card).getByText('永不过期')).toBeTruthy();
    fireEvent.click(within(card).getByRole('button', { name: /新建 SCIM 令牌/ }));
    expect(await screen.findByRole('radio', { name: '权限角色' })).toBeTruthy();
    expect(screen.getByText(/组成员即部门成员/)).toBeTruthy();
  }, 60_000);
});
