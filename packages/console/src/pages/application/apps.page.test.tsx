import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../api/http-client.ts';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole, typeInto } from '../org/test-services.tsx';
import type { AppSummary } from './app-view.ts';
import { AppsPage } from './apps.page.tsx';
import { calls, click, confirmWith } from './test-actions.ts';
import { appDetail, appSummary } from './test-fixtures.ts';

const rows: AppSummary[] = [
  appSummary(),
  appSummary({ appId: 'app-2', name: 'Wiki', status: 'opened', clientId: 'client-wiki' }),
];

async function renderPage(answer: (path: string, body: unknown) => unknown = () => undefined) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <AppsPage />
    </FeedbackHost>,
    (path, body) => {
      const answered = answer(path, body);
      if (answered !== undefined) return answered;
      if (path === '/api/v1/manage/app/list') return { list: rows, total: rows.length };
      throw new Error(`unexpected call ${path}`);
    },
    { path: '*', initialEntry: '/application/index' },
  );
  render(setup.ui);
  await screen.findByText('Wiki');
  return setup;
}

const actionsOf = (appId: string) => within(screen.getByTestId(`app-actions-${appId}`));

describe('<AppsPage>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('lists the applications with status, type and protocol, paged on the server', async () => {
    const { callApi } = await renderPage();
    expect(calls(callApi, '/api/v1/manage/app/list')[0]).toEqual({ page: 1, pageSize: 20 });
    const table = screen.getByTestId('apps');
    expect(table.textContent).toContain('Sales portal');
    expect(table.textContent).toContain('To be configured');
    expect(table.textContent).toContain('Opened');
    expect(table.textContent).toContain('Self-built');
    expect(table.textContent).toContain('OIDC');
    expect(screen.getByText('Applications: 2')).toBeTruthy();
  });

  it('searches by keyword on the server', async () => {
    const { callApi } = await renderPage();
    typeInto('Application name', 'wik');
    fireEvent.keyDown(screen.getByLabelText('Application name'), {
      key: 'Enter',
      code: 'Enter',
      keyCode: 13,
    });
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/list').at(-1)).toEqual({
        page: 1,
        pageSize: 20,
        keyword: 'wik',
      }),
    );
  });

  it('enables an app, and shows nothing changed when the server refuses an unconfigured one', async () => {
    let refuse = true;
    const { callApi } = await renderPage((path, body) => {
      if (path !== '/api/v1/manage/app/status') return undefined;
      if (refuse) throw new ApiError('Add a login callback address first', 400, 'app.not_configured');
      return { ...rows[0], status: (body as { status: string }).status };
    });
    click(actionsOf('app-1').getByText('Enable'));
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/app/status')).toHaveLength(1));
    expect(actionsOf('app-1').getByText('Enable')).toBeTruthy();
    refuse = false;
    click(actionsOf('app-1').getByText('Enable'));
    await waitFor(() => expect(actionsOf('app-1').getByText('Disable')).toBeTruthy());
    expect(calls(callApi, '/api/v1/manage/app/status')[1]).toEqual({ appId: 'app-1', status: 'opened' });
  });

  it('disables an opened app only after the confirmation', async () => {
    const { callApi } = await renderPage((path, body) =>
      path === '/api/v1/manage/app/status'
        ? { ...rows[1], status: (body as { status: string }).status }
        : undefined,
    );
    click(actionsOf('app-2').getByText('Disable'));
    await screen.findAllByText('Disable Wiki?');
    expect(calls(callApi, '/api/v1/manage/app/status')).toEqual([]);
    await confirmWith('Disable');
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/app/status')).toEqual([{ appId: 'app-2', status: 'disabled' }]),
    );
  });

  it('deletes an app after the confirmation and reloads the list', async () => {
    const { callApi } = await renderPage((path) =>
      path === '/api/v1/manage/app/del' ? { appId: 'app-2' } : undefined,
    );
    click(actionsOf('app-2').getByText('Delete'));
    await screen.findAllByText('Delete Wiki?');
    expect(calls(callApi, '/api/v1/manage/app/del')).toEqual([]);
    await confirmWith('Delete');
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/app/del')).toEqual([{ appId: 'app-2' }]));
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/app/list')).toHaveLength(2));
  });

  it('adds an app, shows its client secret once, then opens its detail', async () => {
    const created = {
      app: appDetail({ appId: 'app-new', name: 'Intranet', clientId: 'client-new' }),
      clientSecret: 'only-once-secret',
    };
    const { callApi, router } = await renderPage((path) =>
      path === '/api/v1/manage/app/create' ? created : undefined,
    );
    click(screen.getByText('Add application'));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: '  Intranet ' } });
    click(within(dialog).getByText('Add'));
    expect((await screen.findByTestId('secret-once')).textContent).toBe('only-once-secret');
    expect(calls(callApi, '/api/v1/manage/app/create')).toEqual([
      { name: 'Intranet', description: null, type: 'self_built', protocol: 'oidc' },
    ]);
    expect(router.state.location.pathname).toBe('/application/index');
    click(screen.getByText('I have saved it'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/application/detail'));
    expect(router.state.location.search).toBe('?appId=app-new');
  });

  it('refuses an empty name before any call', async () => {
    const { callApi } = await renderPage();
    click(screen.getByText('Add application'));
    const dialog = await screen.findByRole('dialog');
    click(within(dialog).getByText('Add'));
    await screen.findByText('Please enter the application name');
    expect(calls(callApi, '/api/v1/manage/app/create')).toEqual([]);
  });
});
