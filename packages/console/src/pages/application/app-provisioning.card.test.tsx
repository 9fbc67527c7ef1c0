import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AppProvisioningCard } from './app-provisioning.card.tsx';
import { calls, click } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

const DETAIL = '/api/v1/manage/app/provisioning/detail';
const UPDATE = '/api/v1/manage/app/provisioning/update';
const TEST = '/api/v1/manage/app/provisioning/test';
const PREVIEW = '/api/v1/manage/app/provisioning/preview';
const RUNS = '/api/v1/manage/app/provisioning/runs';
const RUN = '/api/v1/manage/app/provisioning/run';

const target = {
  baseUrl: 'https://wiki.example.com/scim/v2',
  tokenSet: true,
  userNameFrom: 'username',
  attributes: ['name', 'emails'],
  lifecycle: 'full',
  onLoss: 'deactivate',
  enabled: true,
  updatedAt: '2026-11-28T10:00:00.000Z',
};
const run = {
  runId: 'run-1',
  trigger: 'manual',
  status: 'succeeded',
  requestedBy: 'owner',
  createdAt: '2026-11-28T10:00:00.000Z',
  startedAt: '2026-11-28T10:00:01.000Z',
  finishedAt: '2026-11-28T10:00:02.000Z',
  attempts: 1,
  counts: { created: 2, adopted: 1, updated: 0, deactivated: 0, deleted: 0, unchanged: 3, failed: 1 },
  errors: [{ reason: 'provisioning.remote_conflict', message: 'Conflicting account', username: 'dave' }],
};

async function renderCard(stored: typeof target | null) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <AppProvisioningCard app={appDetail()} />
    </FeedbackHost>,
    (path, body) => {
      if (path === DETAIL) return { target: stored, lastRun: null };
      if (path === UPDATE) {
        const { token: _token, appId: _appId, ...rest } = body as Record<string, unknown>;
        return { ...target, ...rest };
      }
      if (path === TEST)
        return { ok: true, status: 200, patchSupported: false, filterSupported: true, message: null };
      if (path === PREVIEW)
        return {
          counts: { create: 1, update: 0, deactivate: 1, delete: 0, unchanged: 4 },
          list: [
            { userId: 'u1', username: 'alice', name: 'Alice', action: 'create' },
            { userId: 'u2', username: 'bob', name: null, action: 'deactivate' },
          ],
        };
      if (path === RUNS) return { list: [run], total: 1 };
      if (path === RUN) return { ...run, runId: 'run-2', status: 'queued' };
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  await screen.findByTestId('provisioning-form');
  return setup;
}

const form = () => within(screen.getByTestId('provisioning-form'));

describe('<AppProvisioningCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('saves a first target with its token, then shows only that a token is set', async () => {
    const { callApi } = await renderCard(null);
    expect(screen.queryByTestId('provisioning-runs')).toBeNull();
    fireEvent.change(form().getByLabelText('SCIM base URL'), {
      target: { value: 'https://wiki.example.com/scim/v2' },
    });
    fireEvent.change(form().getByLabelText('Bearer token'), { target: { value: 'secret-token' } });
    click(form().getByText('Save'));
    await waitFor(() => expect(calls(callApi, UPDATE)).toHaveLength(1));
    expect(calls(callApi, UPDATE)[0]).toMatchObject({
      baseUrl: 'https://wiki.example.com/scim/v2',
      token: 'secret-token',
      lifecycle: 'full',
      onLoss: 'deactivate',
    });
    await screen.findByTestId('provisioning-runs');
    expect(form().getByText(/Set: stored encrypted and never shown/)).toBeTruthy();
    expect((form().getByLabelText('Bearer token') as HTMLInputElement).value).toBe('');
  });

  it('keeps the stored token when saved empty, tests the connection, previews and runs', async () => {
    const { callApi } = await renderCard(target);
    click(form().getByText('Save'));
    await waitFor(() => expect(calls(callApi, UPDATE)).toHaveLength(1));
    expect(calls(callApi, UPDATE)[0]).toMatchObject({ token: undefined });
    click(form().getByText('Test connection'));
    expect((await screen.findByTestId('provisioning-test-result')).textContent).toContain(
      'PATCH: not supported; filters: supported',
    );
    click(within(screen.getByTestId('provisioning-preview')).getByText('Preview'));
    const preview = await screen.findByTestId('provisioning-preview-list');
    expect(preview.textContent).toContain('alice');
    expect(preview.textContent).toContain('Deactivate');
    const runs = screen.getByTestId('provisioning-runs');
    await waitFor(() => expect(runs.textContent).toContain('dave: Conflicting account'));
    expect(runs.textContent).toContain('created 2, adopted 1, unchanged 3, failed 1');
    click(within(runs).getByText('Run now'));
    await waitFor(() => expect(calls(callApi, RUN)).toHaveLength(1));
  });

  it('warns before deletion is chosen', async () => {
    await renderCard(target);
    fireEvent.click(form().getByLabelText('Delete the account'));
    expect(await form().findByText(/cannot be undone/)).toBeTruthy();
  });
});
