import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { AppSamlCard } from './app-saml.card.tsx';
import type { SamlIdp, SamlSettings } from './saml-view.ts';
import { calls, click, confirmWith, lastDialog } from './test-actions.ts';
import { appDetail } from './test-fixtures.ts';

const DETAIL = '/api/v1/manage/app/saml/detail';
const UPDATE = '/api/v1/manage/app/saml/update';
const IMPORT = '/api/v1/manage/app/saml/metadata/import';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

const settings = (overrides: Partial<SamlSettings> = {}): SamlSettings => ({
  entityId: 'https://wiki.example.com/saml',
  acs: [{ url: 'https://wiki.example.com/acs', index: 0, isDefault: true }],
  sloUrl: null,
  sloBinding: 'redirect',
  sloResponseUrl: null,
  signingCertificates: [],
  encryptionCertificate: null,
  nameIdFormat: 'unspecified',
  nameIdSource: 'username',
  attributes: [{ name: 'email', nameFormat: 'basic', friendlyName: null, source: 'email', value: null }],
  signResponse: true,
  signAssertion: true,
  signatureAlgorithm: 'rsa-sha256',
  encryptAssertion: false,
  requireSignedRequests: false,
  defaultRelayState: null,
  metadataUrl: null,
  ...overrides,
});

const certificate = (status: 'active' | 'next', fingerprint: string) => ({
  pem: PEM,
  subject: `CN=Tessera SAML ${status}`,
  notBefore: 1_790_000_000,
  notAfter: 1_950_000_000,
  fingerprint,
  status,
  createdAt: 1_790_000_000,
});

const idp = (next: boolean): SamlIdp => ({
  entityId: 'http://localhost:8080/saml/company-1',
  metadataUrl: 'http://localhost:8080/saml/company-1/metadata',
  ssoUrl: 'http://localhost:8080/saml/company-1/sso',
  sloUrl: 'http://localhost:8080/saml/company-1/slo',
  certificates: [certificate('active', 'AA:01'), ...(next ? [certificate('next', 'BB:02')] : [])],
  metadataXml: '<md:EntityDescriptor/>',
});

async function renderCard(stored = settings()) {
  const setup = renderWithConsole(
    <FeedbackHost>
      <AppSamlCard app={appDetail({ protocol: 'saml' })} />
    </FeedbackHost>,
    (path, body) => {
      if (path === DETAIL) return stored;
      if (path === UPDATE) return { ...stored, ...(body as object) };
      if (path === IMPORT) return settings({ entityId: 'https://imported.example.com', metadataUrl: null });
      if (path === '/api/v1/manage/app/saml/idp') return idp(false);
      if (path === '/api/v1/manage/app/saml/key/prepare') return idp(true);
      if (path === '/api/v1/manage/app/saml/key/activate') return idp(false);
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  await screen.findByTestId('saml-form');
  await screen.findByTestId('saml-idp-metadata-url');
  return setup;
}

const form = () => within(screen.getByTestId('saml-form'));

describe('<AppSamlCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('saves the service provider settings by hand, refusing a plain-http ACS URL before any call', async () => {
    const { callApi } = await renderCard();
    click(form().getByText('Add an ACS URL'));
    const second = () => form().getAllByLabelText('ACS URL')[1] as HTMLElement;
    fireEvent.change(second(), { target: { value: 'http://wiki.example.com/acs2' } });
    click(form().getByText('Save'));
    await form().findByText(
      'Enter a complete https address (http only for localhost)',
      {},
      { timeout: 5000 },
    );
    expect(calls(callApi, UPDATE)).toEqual([]);
    fireEvent.change(second(), { target: { value: ' https://wiki.example.com/acs2 ' } });
    click(form().getByText('Save'));
    await waitFor(() => expect(calls(callApi, UPDATE)).toHaveLength(1));
    expect(calls(callApi, UPDATE)[0]).toMatchObject({
      appId: 'app-1',
      entityId: 'https://wiki.example.com/saml',
      acs: [
        { url: 'https://wiki.example.com/acs', index: 0, isDefault: true },
        { url: 'https://wiki.example.com/acs2', index: 1, isDefault: false },
      ],
      sloUrl: null,
      signingCertificates: [],
      attributes: [{ name: 'email', nameFormat: 'basic', source: 'email', value: null }],
      signResponse: true,
      signAssertion: true,
    });
  });

  it('imports pasted metadata and shows what it read', async () => {
    const { callApi } = await renderCard();
    click(screen.getByTestId('saml-import'));
    const dialog = within(await lastDialog());
    fireEvent.click(dialog.getByText('Paste'));
    fireEvent.change(await dialog.findByTestId('saml-import-xml'), {
      target: { value: '<md:EntityDescriptor entityID="https://imported.example.com"/>' },
    });
    click(dialog.getByText('Import'));
    await waitFor(() => expect(calls(callApi, IMPORT)).toHaveLength(1));
    expect(calls(callApi, IMPORT)[0]).toEqual({
      appId: 'app-1',
      xml: '<md:EntityDescriptor entityID="https://imported.example.com"/>',
    });
    await waitFor(() =>
      expect((form().getByLabelText('Entity ID') as HTMLInputElement).value).toBe(
        'https://imported.example.com',
      ),
    );
  });

  it('rotates the signing key: prepares the next certificate, then activates it after a confirmation', async () => {
    const { callApi } = await renderCard();
    click(screen.getByTestId('saml-key-prepare'));
    await screen.findByTestId('saml-certificate-next', {}, { timeout: 5000 });
    click(screen.getByTestId('saml-key-activate'));
    await screen.findAllByText('Sign with the next certificate now?', {}, { timeout: 5000 });
    await confirmWith('Activate');
    await waitFor(() => expect(calls(callApi, '/api/v1/manage/app/saml/key/activate')).toHaveLength(1));
    await waitFor(() => expect(screen.queryByTestId('saml-certificate-next')).toBeNull());
  });
});
