import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import type { AppDetail } from './app-view.ts';
import { SelectAppPage } from './select-app.page.tsx';
import { calls, click, lastDialog } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

const CREATE = '/api/v1/manage/app/create';

async function renderPage() {
  const setup = renderWithConsole(
    <FeedbackHost>
      <SelectAppPage />
    </FeedbackHost>,
    (path, body) => {
      if (path !== CREATE) throw new Error(`unexpected call ${path}`);
      const sent = body as Pick<AppDetail, 'name' | 'protocol' | 'template'>;
      return {
        app: appDetail({ appId: 'app-new', clientId: 'client-new', type: 'third_party', ...sent }),
        clientSecret: 'catalogue-secret',
      };
    },
    { path: '*', initialEntry: '/application/select-app' },
  );
  render(setup.ui);
  await screen.findByTestId('catalogue');
  return setup;
}

/** Opens a catalogue card and types the application's address. */
async function choose(key: string, baseUrl: string) {
  fireEvent.click(screen.getByTestId(`template-${key}`));
  const dialog = await lastDialog();
  fireEvent.change(within(dialog).getByLabelText('Address of the application'), {
    target: { value: baseUrl },
  });
  return dialog;
}

describe('<SelectAppPage>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('adds a third-party OIDC app from its card with the template and the base URL, then shows its secret once', async () => {
    const { callApi, router } = await renderPage();
    const dialog = await choose('grafana', ' https://grafana.example.com/ ');
    expect((within(dialog).getByLabelText('Name') as HTMLInputElement).value).toBe('Grafana');
    click(within(dialog).getByText('Add'));
    expect((await screen.findByTestId('secret-once')).textContent).toBe('catalogue-secret');
    expect(calls(callApi, CREATE)).toEqual([
      {
        name: 'Grafana',
        type: 'third_party',
        protocol: 'oidc',
        template: 'grafana',
        baseUrl: 'https://grafana.example.com',
      },
    ]);
    click(screen.getByText('I have saved it'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/application/detail'));
    expect(router.state.location.search).toBe('?appId=app-new');
  });

  it('adds the web form template as a form-fill app and opens its detail at once', async () => {
    const { callApi, router } = await renderPage();
    const dialog = await choose('legacy_form', 'http://intranet.example.com/erp');
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'ERP' } });
    click(within(dialog).getByText('Add'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/application/detail'));
    expect(calls(callApi, CREATE)).toEqual([
      {
        name: 'ERP',
        type: 'third_party',
        protocol: 'form',
        template: 'legacy_form',
        baseUrl: 'http://intranet.example.com/erp',
      },
    ]);
    expect(screen.queryByTestId('secret-once')).toBeNull();
  });

  it('refuses an address that is not a complete http(s) URL and sends nothing', async () => {
    const { callApi } = await renderPage();
    const dialog = await choose('gitlab', 'gitlab.example.com');
    click(within(dialog).getByText('Add'));
    await screen.findByText('Enter a complete http or https address');
    expect(calls(callApi, CREATE)).toEqual([]);
  });

  it('lists the applications of Chinese companies, and self-built offers SAML besides OIDC and form fill (issue 35)', async () => {
    await renderPage();
    const names = {
      feishu: 'Feishu (Lark)',
      jumpserver: 'JumpServer',
      zentao: 'ZenTao',
      aliyun_ram: 'Alibaba Cloud (RAM role SSO)',
      tencent_cam: 'Tencent Cloud (CAM role SSO)',
      huawei_iam: 'Huawei Cloud (IAM user SSO)',
    };
    for (const [key, name] of Object.entries(names))
      expect(screen.getByTestId(`template-${key}`).getAttribute('aria-label')).toBe(name);
    expect(within(screen.getByTestId('template-aliyun_ram')).getByText('SAML 2.0')).toBeTruthy();
    expect(within(screen.getByTestId('template-jumpserver')).getByText('OIDC')).toBeTruthy();
    const selfBuilt = screen.getByTestId('template-self-built');
    expect(selfBuilt.textContent).toContain('OIDC, SAML, CAS, LDAP or form-fill');
    fireEvent.click(selfBuilt);
    const dialog = await lastDialog();
    const protocols = within(dialog)
      .getAllByRole('radio')
      .map((radio) => (radio as HTMLInputElement).value);
    expect(protocols).toEqual(['oidc', 'form', 'saml', 'cas', 'ldap']);
    expect(within(dialog).getByText('SAML 2.0 single sign-on')).toBeTruthy();
    // And CAS (issue 30), with its catalogue entry.
    expect(within(dialog).getByText('CAS single sign-on')).toBeTruthy();
    expect(screen.getByTestId('template-cas_self_built').getAttribute('aria-label')).toBe('CAS (self-built)');
  });

  it('opens a card from the keyboard', async () => {
    await renderPage();
    fireEvent.keyDown(screen.getByTestId('template-jenkins'), { key: 'Enter' });
    expect((await screen.findAllByText('Add Jenkins')).length).toBeGreaterThan(0);
  });
});
