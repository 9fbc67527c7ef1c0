import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedbackHost } from '../../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { calls, click } from '../application/test-actions.ts';
import { renderWithConsole, typeInto } from '../org/test-services.tsx';
import { OidcSourcePage } from './oidc-source.page.tsx';

const TEST = '/api/v1/manage/identity-source/oidc/test';
const CREATE = '/api/v1/manage/identity-source/create';

const detail = {
  sourceId: 'src-1',
  type: 'oidc',
  name: 'Corp IdP',
  enabled: true,
  createdAt: '2026-11-29T00:00:00.000Z',
  people: 0,
  lastRun: null,
  callbackUrl: 'http://localhost/portal/upstream/src-1/callback',
  jwksUrl: 'http://localhost/portal/upstream/src-1/jwks',
  backchannelLogoutUrl: 'http://localhost/portal/upstream/src-1/backchannel-logout',
  postLogoutRedirectUrl: 'http://localhost/portal/upstream/src-1/logged-out',
  settings: {},
};

async function renderNew() {
  const setup = renderWithConsole(
    <FeedbackHost>
      <OidcSourcePage />
    </FeedbackHost>,
    (path, body) => {
      if (path === TEST)
        return {
          ok: true,
          reason: null,
          message: 'ok',
          details: {
            issuer: (body as { issuer: string }).issuer,
            authorizationEndpoint: 'https://idp.example/auth',
            tokenEndpoint: 'https://idp.example/token',
            userinfoEndpoint: null,
            endSessionEndpoint: null,
            backchannelLogoutSupported: false,
            keys: 2,
            algorithms: ['RS256'],
          },
        };
      if (path === CREATE) return { ...detail, settings: { ...(body as object), secretSet: true } };
      throw new Error(`unexpected call ${path}`);
    },
  );
  render(setup.ui);
  await screen.findByTestId('oidc-source');
  return setup;
}

describe('<OidcSourcePage>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['sources']);
  });

  it("tests the issuer as typed and creates the source with the claims' defaults", async () => {
    const { callApi } = await renderNew();
    typeInto('Issuer', 'https://idp.example');
    click(screen.getByTestId('oidc-test'));
    expect((await screen.findByTestId('oidc-test-outcome')).textContent).toContain('Provider found');
    expect(calls(callApi, TEST)[0]).toEqual({ issuer: 'https://idp.example' });
    typeInto('Client ID', 'tessera');
    typeInto('Client secret', 'shh');
    fireEvent.change(screen.getByLabelText('Connection name'), { target: { value: 'Corp IdP' } });
    click(screen.getByText('Add source'));
    await waitFor(() => expect(calls(callApi, CREATE)).toHaveLength(1));
    expect(calls(callApi, CREATE)[0]).toMatchObject({
      type: 'oidc',
      name: 'Corp IdP',
      issuer: 'https://idp.example',
      clientId: 'tessera',
      clientSecret: 'shh',
      clientAuth: 'client_secret_basic',
      usernameClaim: 'preferred_username',
      firstScan: 'link_only',
      signOutUpstream: true,
    });
  });

  it('asks for no client secret with private_key_jwt', async () => {
    await renderNew();
    expect(screen.getByLabelText('Client secret')).toBeTruthy();
    fireEvent.click(screen.getByLabelText('Private key JWT (a key Tessera makes and publishes)'));
    await waitFor(() => expect(screen.queryByLabelText('Client secret')).toBeNull());
  });
});
