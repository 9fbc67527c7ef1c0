import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AppLdapCard } from './app-ldap.card.tsx';
import { calls, click } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

const DETAIL = '/api/v1/manage/app/ldap/detail';
const UPDATE = '/api/v1/manage/app/ldap/update';
const ROTATE = '/api/v1/manage/app/ldap/secret/rotate';
const APP = '/api/v1/manage/app/detail';

const stored = {
  bindDn: 'cn=app-1,ou=apps,dc=acme1,dc=tessera',
  baseDn: 'dc=acme1,dc=tessera',
  hasSecret: false,
  secretRotatedAt: null,
  allowPasswordWithMfa: false,
  posix: false,
};

async function renderCard(lang: 'en' | 'zh' = 'en') {
  initI18n(lang);
  await loadPhrases(['apps']);
  const changed: unknown[] = [];
  const setup = renderWithConsole(
    <FeedbackHost>
      <AppLdapCard app={appDetail({ protocol: 'ldap' })} onChange={(app) => changed.push(app)} />
    </FeedbackHost>,
    (path, body) => {
      if (path === DETAIL) return stored;
      if (path === UPDATE) return { ...stored, ...(body as object) };
      if (path === ROTATE)
        return {
          ...stored,
          hasSecret: true,
          secretRotatedAt: '2026-11-29T01:00:00.000Z',
          secret: 'the-secret-once',
        };
      if (path === APP) return appDetail({ protocol: 'ldap', readyToEnable: true });
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  await screen.findByTestId('ldap-bind-dn');
  return { ...setup, changed };
}

describe('<AppLdapCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('shows the bind DN and base DN, makes the secret once and shows it, and saves the second-factor switch', async () => {
    const { callApi, changed } = await renderCard();
    expect(screen.getByTestId('ldap-bind-dn').textContent).toContain(stored.bindDn);
    expect(screen.getByTestId('ldap-base-dn').textContent).toContain(stored.baseDn);
    click(screen.getByText('Make secret'));
    expect(await screen.findByTestId('secret-once')).toHaveProperty('textContent', 'the-secret-once');
    await waitFor(() => expect(changed).toHaveLength(1));
    expect(calls(callApi, ROTATE)).toEqual([{ appId: 'app-1' }]);
    click(within(screen.getByRole('dialog')).getByText('I have saved it'));
    fireEvent.click(screen.getByRole('switch', { name: 'Password binds when a second factor is required' }));
    await waitFor(() => expect(calls(callApi, UPDATE)).toHaveLength(1));
    expect(calls(callApi, UPDATE)[0]).toEqual({ appId: 'app-1', allowPasswordWithMfa: true });
  });

  it('saves the POSIX accounts switch alone', async () => {
    const { callApi } = await renderCard();
    fireEvent.click(screen.getByRole('switch', { name: 'POSIX accounts (Linux hosts)' }));
    await waitFor(() => expect(calls(callApi, UPDATE)).toHaveLength(1));
    expect(calls(callApi, UPDATE)[0]).toEqual({ appId: 'app-1', posix: true });
    await waitFor(() =>
      expect(
        screen.getByRole('switch', { name: 'POSIX accounts (Linux hosts)' }).getAttribute('aria-checked'),
      ).toBe('true'),
    );
  });

  it('speaks Chinese', async () => {
    await renderCard('zh');
    expect(screen.getByText('生成密钥')).toBeTruthy();
    expect(screen.getByText('要求第二因素时允许密码绑定')).toBeTruthy();
    expect(screen.getByRole('switch', { name: 'POSIX 账号（Linux 主机）' })).toBeTruthy();
  });
});
