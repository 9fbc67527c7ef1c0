import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ApiError } from '../../api/http-client.ts';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { calls, click, confirmWith, lastDialog } from '../application/test-actions.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { RadiusPage } from './radius.page.tsx';

const stats = {
  accepts: 12,
  rejects: 3,
  challenges: 4,
  droppedNoAuthenticator: 0,
  droppedBadAuthenticator: 2,
  lastRequestAt: '2026-11-20T08:00:00.000Z',
};
const client = (overrides: Record<string, unknown> = {}) => ({
  clientId: 'client-1',
  name: 'Office VPN',
  source: '10.0.0.0/24',
  enabled: true,
  access: 'all',
  departments: [],
  otpMode: 'challenge',
  smsCodes: false,
  createdAt: '2026-11-01T08:00:00.000Z',
  updatedAt: '2026-11-01T08:00:00.000Z',
  stats,
  ...overrides,
});
const tree = { departmentId: 'root', name: 'Acme', parentId: null, children: [] };

async function renderPage(answer: (path: string, body: unknown) => unknown = () => undefined) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <RadiusPage />
    </FeedbackHost>,
    (path, body) => {
      const answered = answer(path, body);
      if (answered !== undefined) return answered;
      if (path === '/api/v1/manage/radius/client/list')
        return { list: [client()], server: { port: 1812, challengeSeconds: 60 } };
      if (path === '/api/v1/manage/department/tree') return { tree };
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  await screen.findByText('Office VPN');
  return setup;
}

const addClient = async () => {
  click(screen.getByText('Add client'));
  return lastDialog();
};

describe('<RadiusPage>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['radius', 'apps']);
  });

  it('shows the server port and each client with its source, mode and counters (on a wide screen)', async () => {
    const narrow = window.matchMedia;
    window.matchMedia = (query) => ({ ...narrow(query), matches: true });
    onTestFinished(() => {
      window.matchMedia = narrow;
    });
    await renderPage();
    expect(screen.getByTestId('radius-server').textContent).toContain('UDP port 1812');
    expect(screen.getByTestId('radius-server').textContent).toContain(
      'passkeys and keys cannot be given through it',
    );
    const row = screen.getByText('Office VPN').closest('tr') as HTMLElement;
    expect(row.textContent).toContain('10.0.0.0/24');
    expect(row.textContent).toContain('All users of the company');
    expect(row.textContent).toContain('Accepted 12 · rejected 3');
    expect(row.textContent).toContain('Dropped 2 (Message-Authenticator)');
  });

  it('asks for the name and the source address before adding a client, and sends nothing', async () => {
    const { callApi } = await renderPage();
    const dialog = await addClient();
    click(within(dialog).getByText('Add'));
    await screen.findByText('Please enter the name of the RADIUS client');
    await screen.findByText('Please enter the IP address or CIDR range the client sends from');
    expect(calls(callApi, '/api/v1/manage/radius/client/create')).toEqual([]);
  });

  it('adds a client and shows its shared secret once', async () => {
    const created = client({ clientId: 'client-2', name: 'Wi-Fi', source: '192.168.1.10' });
    const { callApi } = await renderPage((path) =>
      path === '/api/v1/manage/radius/client/create' ? { client: created, secret: 'shared-once' } : undefined,
    );
    const dialog = await addClient();
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: ' Wi-Fi ' } });
    fireEvent.change(within(dialog).getByLabelText('Source IP or CIDR'), {
      target: { value: '192.168.1.10' },
    });
    click(within(dialog).getByText('Add'));
    expect((await screen.findByTestId('secret-once')).textContent).toBe('shared-once');
    expect(screen.getByText('Shared secret of Wi-Fi')).toBeTruthy();
    expect(calls(callApi, '/api/v1/manage/radius/client/create')).toEqual([
      {
        name: 'Wi-Fi',
        source: '192.168.1.10',
        enabled: true,
        access: 'all',
        departmentIds: [],
        otpMode: 'challenge',
        smsCodes: false,
      },
    ]);
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/radius/client/list')).toHaveLength(2));
    click(screen.getByText('I have saved it'));
    await waitFor(() => expect(screen.queryByTestId('secret-once')).toBeNull());
    expect(screen.queryByText('shared-once')).toBeNull();
  });

  it('shows the server’s refusal of the source address on its field', async () => {
    await renderPage((path) => {
      if (path !== '/api/v1/manage/radius/client/create') return undefined;
      throw new ApiError(
        'Enter an IPv4 or IPv6 address, or a CIDR range such as 10.0.0.0/24',
        400,
        'radius.source_invalid',
      );
    });
    const dialog = await addClient();
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'Lab' } });
    fireEvent.change(within(dialog).getByLabelText('Source IP or CIDR'), { target: { value: '10.0.0.300' } });
    click(within(dialog).getByText('Add'));
    await within(dialog).findByText('Enter an IPv4 or IPv6 address, or a CIDR range such as 10.0.0.0/24');
    expect(screen.queryByTestId('secret-once')).toBeNull();
  });

  it('deletes a client only after the confirmation', async () => {
    const { callApi } = await renderPage((path) =>
      path === '/api/v1/manage/radius/client/del' ? { clientId: 'client-1' } : undefined,
    );
    click(screen.getByText('Delete'));
    await screen.findAllByText('Delete the RADIUS client “Office VPN”?');
    expect(calls(callApi, '/api/v1/manage/radius/client/del')).toEqual([]);
    await confirmWith('Delete');
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/radius/client/del')).toEqual([{ clientId: 'client-1' }]),
    );
  });
});
