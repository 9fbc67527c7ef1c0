import { render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases, switchLanguage } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AppDetailPage } from './app-detail.page.tsx';
import type { AppDetail } from './app-view.ts';
import { calls, click } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

/** Issue 35 item 15: a catalogue app added with its callbacks is ready to enable, and says so. */
async function renderDetail(app: AppDetail) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <AppDetailPage />
    </FeedbackHost>,
    (path, body) => {
      if (path === '/api/v1/manage/app/detail') return app;
      if (path === '/api/v1/manage/app/status')
        return { ...app, status: (body as { status: string }).status };
      return undefined;
    },
    { path: '*', initialEntry: `/application/detail?appId=${app.appId}` },
  );
  render(setup.ui);
  await screen.findAllByText(app.name);
  return setup;
}

const grafana = appDetail({ name: 'Grafana', type: 'third_party', template: 'grafana', readyToEnable: true });

describe('<AppDetailPage> status of an app to be configured', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('says a catalogue app with its callbacks is ready to enable, and "enabled" once it is', async () => {
    const { callApi } = await renderDetail(grafana);
    expect(screen.getByText('Ready to enable')).toBeTruthy();
    expect(screen.getByText(/Everything sign-in needs is filled in/)).toBeTruthy();
    expect(screen.queryByText(/Add a login callback/)).toBeNull();
    click(screen.getByRole('button', { name: 'Enable' }));
    await screen.findByText('Grafana is enabled');
    expect(calls(callApi, '/api/v1/manage/app/status')).toEqual([{ appId: grafana.appId, status: 'opened' }]);
  });

  it('asks for a login callback only while one is missing', async () => {
    await renderDetail(appDetail({ readyToEnable: false, oidc: { ...grafana.oidc, redirectUris: [] } }));
    expect(screen.getByText('To be configured')).toBeTruthy();
    expect(screen.getByText(/Add a login callback/)).toBeTruthy();
  });

  it('says the same in Chinese', async () => {
    await switchLanguage('zh');
    try {
      await loadPhrases(['apps']);
      await renderDetail(grafana);
      expect(screen.getByText('可开启')).toBeTruthy();
      expect(screen.queryByText(/请先添加登录回调地址/)).toBeNull();
      // (No AntdLocale here: antd spaces the label out.)
      click(screen.getByRole('button', { name: /^开 ?启$/ }));
      await waitFor(() => expect(screen.getByText('Grafana 已启用')).toBeTruthy());
    } finally {
      await switchLanguage('en');
    }
  });
});
