import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { calls, click, lastDialog } from '../application/test-actions.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { CaPage } from './ca.page.tsx';

const authority = {
  caId: 'ca-1',
  name: 'Acme Root',
  algorithm: 'rsa',
  strength: '2048',
  source: 'created',
  subject: 'CN=Acme Root',
  serialNumber: '01ab',
  notBefore: '2026-01-01T00:00:00.000Z',
  notAfter: '2036-01-01T00:00:00.000Z',
  fingerprint: 'ff00',
  crlUrl: 'http://localhost:8080/pki/ca-1/crl',
  certificateUrl: 'http://localhost:8080/pki/ca-1/ca.crt',
  certificates: { valid: 1, revoked: 0, expired: 0 },
  createdAt: '2026-01-01T00:00:00.000Z',
};
const certificate = {
  certificateId: 'cert-1',
  caId: 'ca-1',
  caName: 'Acme Root',
  userId: 'u-1',
  username: 'alice',
  subject: 'CN=alice',
  serialNumber: '7f01',
  algorithm: 'ecc',
  strength: 'P-256',
  source: 'generated',
  status: 'valid',
  notBefore: '2026-01-01T00:00:00.000Z',
  notAfter: '2027-01-01T00:00:00.000Z',
  fingerprint: 'aa',
  revokedAt: null,
  revocationReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
};
const alice = { userId: 'u-1', username: 'alice', name: 'Alice Liu', nickname: '' };

function renderPage(entry: string, answer: (path: string, body: unknown) => unknown = () => undefined) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <CaPage />
    </FeedbackHost>,
    (path, body) => {
      const answered = answer(path, body);
      if (answered !== undefined) return answered;
      if (path === '/api/v1/manage/ca/list') return { list: [authority] };
      if (path === '/api/v1/manage/ca/detail') return { ...authority, certificatePem: 'PEM' };
      if (path === '/api/v1/manage/ca/certificate/list') return { list: [certificate], total: 1 };
      if (path === '/api/v1/manage/user/list') return { list: [alice], total: 1 };
      throw new Error(`unexpected call ${path}`);
    },
    { path: '/safety-management/ca', initialEntry: entry },
  );
  render(setup.ui);
  return setup;
}

const openDialog = async (button: string) => {
  click(screen.getByText(button));
  return lastDialog();
};

describe('<CaPage>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['ca', 'apps']);
  });

  it('asks for the name before creating a CA; RSA 2048 by default, SM2 with SMP256', async () => {
    const { callApi } = renderPage('/safety-management/ca', (path, body) =>
      path === '/api/v1/manage/ca/create' ? { ...authority, ...(body as object) } : undefined,
    );
    await screen.findByText('Acme Root');
    const dialog = await openDialog('Create CA');
    click(within(dialog).getByText('Create'));
    await within(dialog).findByText('Please enter the name of the certificate authority');
    expect(calls(callApi, '/api/v1/manage/ca/create')).toEqual([]);
    expect(within(dialog).getByTitle('2048')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'National' } });
    fireEvent.click(within(dialog).getByLabelText('SM2'));
    await within(dialog).findByTitle('SMP256');
    click(within(dialog).getByText('Create'));
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/ca/create')).toHaveLength(1));
    expect(calls(callApi, '/api/v1/manage/ca/create')[0]).toMatchObject({
      name: 'National',
      algorithm: 'sm2',
      strength: 'SMP256',
      validityYears: 10,
    });
  });

  it('requires the CA file before importing, and uploads nothing', async () => {
    const { uploadFile } = renderPage('/safety-management/ca');
    await screen.findByText('Acme Root');
    const dialog = await openDialog('Import CA');
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'Imported' } });
    click(within(dialog).getByText('Import'));
    await within(dialog).findByText('Please choose the CA file');
    expect(uploadFile).not.toHaveBeenCalled();
  });

  it('issues a PKCS#12 and shows its one-time password once', async () => {
    const { callApi } = renderPage('/safety-management/ca?caId=ca-1', (path) =>
      path === '/api/v1/manage/ca/certificate/issue'
        ? { certificate, certificatePem: 'PEM', pkcs12: 'AAEC', pkcs12Password: 'one-time-pass' }
        : undefined,
    );
    await screen.findByTestId('crl-url');
    expect(screen.getByTestId('crl-url').textContent).toContain(authority.crlUrl);
    const dialog = await openDialog('Issue certificate');
    click(within(dialog).getByText('Issue'));
    await within(dialog).findByText('Please choose the person');
    expect(calls(callApi, '/api/v1/manage/ca/certificate/issue')).toEqual([]);
    fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: 'Person' }));
    fireEvent.click(await screen.findByTitle('Alice Liu (alice)'));
    click(within(dialog).getByText('Issue'));
    expect((await screen.findByTestId('secret-once')).textContent).toBe('one-time-pass');
    expect(screen.getByText('Download PKCS#12')).toBeTruthy();
    expect(calls(callApi, '/api/v1/manage/ca/certificate/issue')).toEqual([
      { caId: 'ca-1', userId: 'u-1', validityDays: 365, keyAlgorithm: 'rsa', keyStrength: '2048' },
    ]);
    click(screen.getByText('I have saved it'));
    await waitFor(() => expect(screen.queryByTestId('secret-once')).toBeNull());
  });

  it('revokes a certificate only after the confirmation, with the chosen reason', async () => {
    const { callApi } = renderPage('/safety-management/ca?caId=ca-1', (path) =>
      path === '/api/v1/manage/ca/certificate/revoke' ? { ...certificate, status: 'revoked' } : undefined,
    );
    const row = (await screen.findByText('alice')).closest('tr') as HTMLElement;
    click(within(row).getByText('Revoke'));
    const dialog = await lastDialog();
    await within(dialog).findByText('Revoke the certificate of alice?');
    expect(calls(callApi, '/api/v1/manage/ca/certificate/revoke')).toEqual([]);
    fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: 'Reason' }));
    fireEvent.click(await screen.findByTitle('Key compromised'));
    click(within(dialog).getByText('Revoke'));
    await waitFor(() =>
      expect(calls(callApi, '/api/v1/manage/ca/certificate/revoke')).toEqual([
        { certificateId: 'cert-1', reason: 'keyCompromise' },
      ]),
    );
  });
});
