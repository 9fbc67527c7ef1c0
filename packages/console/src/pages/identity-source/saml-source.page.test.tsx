import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { calls, click } from '../application/test-actions.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { SamlSourcePage } from './saml-source.page.tsx';

const READ = '/api/v1/manage/identity-source/saml/metadata/read';
const CREATE = '/api/v1/manage/identity-source/create';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const read = {
  idpEntityId: 'https://sts.windows.net/tenant/',
  ssoUrl: 'https://login.microsoftonline.com/tenant/saml2',
  ssoBinding: 'redirect',
  signingCertificates: [PEM],
  nameIdFormat: 'persistent',
};

describe('<SamlSourcePage> (issue 33)', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['sources']);
  });

  it("reads the upstream's metadata URL into the form and creates the source with it", async () => {
    const setup = renderWithConsole(
      <FeedbackHost>
        <SamlSourcePage />
      </FeedbackHost>,
      (path, body) => {
        if (path === READ) return read;
        if (path === CREATE)
          return { ...(body as object), sourceId: 'src-1', type: 'saml', name: 'Entra ID' };
        throw new Error(`unexpected call ${path}`);
      },
    );
    render(setup.ui);
    const form = within(await screen.findByTestId('saml-source'));
    fireEvent.change(form.getByLabelText('Connection name'), { target: { value: 'Entra ID' } });
    fireEvent.change(form.getByPlaceholderText('https://login.example.com/federationmetadata.xml'), {
      target: { value: 'https://login.microsoftonline.com/tenant/federationmetadata.xml' },
    });
    click(form.getByTestId('saml-read-metadata'));
    await waitFor(() =>
      expect((form.getByLabelText('Single sign-on URL') as HTMLInputElement).value).toBe(read.ssoUrl),
    );
    expect(calls(setup.callApi, READ)[0]).toEqual({
      url: 'https://login.microsoftonline.com/tenant/federationmetadata.xml',
    });
    fireEvent.change(form.getByLabelText('Email'), { target: { value: 'emailaddress' } });
    // The sign-in page's button, as for every upstream source.
    fireEvent.change(form.getByLabelText('Button logo'), {
      target: { value: 'https://logo.example/entra.png' },
    });
    click(form.getByText('Add source'));
    await waitFor(() => expect(calls(setup.callApi, CREATE)).toHaveLength(1));
    expect(calls(setup.callApi, CREATE)[0]).toMatchObject({
      type: 'saml',
      name: 'Entra ID',
      metadataUrl: 'https://login.microsoftonline.com/tenant/federationmetadata.xml',
      idpEntityId: read.idpEntityId,
      ssoUrl: read.ssoUrl,
      ssoBinding: 'redirect',
      signingCertificates: [PEM],
      nameIdFormat: 'persistent',
      emailAttribute: 'emailaddress',
      firstScan: 'link_only',
      logoUrl: 'https://logo.example/entra.png',
      emailDomains: [],
    });
  });
});
