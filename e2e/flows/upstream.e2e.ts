import assert from 'node:assert/strict';
import type { Suite } from '../support/suite.ts';
import { withUpstreamTessera } from '../support/upstream-tessera.ts';

/**
 * Upstream identity providers (issue 33): a second Tessera, started by the flow on 127.0.0.1 (so
 * that the browser keeps its cookies apart from the run's server on localhost), is the company's
 * SAML identity provider, then its OpenID Connect provider (e2e/support/upstream-tessera.ts). A
 * person clicks the source's button on the sign-in page of the company's application (or, for
 * OpenID Connect, types an address of the source's email domain), signs in at the upstream and
 * lands in the application; signing out at the downstream signs out at the upstream SAML provider
 * too (its sign-in page is shown again). Alone:
 *   --test-name-pattern='create a company|Upstream|uncaught errors'
 */
export function upstreamFlows(s: Suite) {
  s.devFlow(
    "Upstream SAML identity provider: a person clicks the source's button, signs in at the upstream Tessera and lands in the application; signing out signs out at the upstream too",
    () =>
      withUpstreamTessera(s, { company: 'Upstream Co', person: 'ursula.upstream' }, async (up) => {
        assert.ok(s.server);
        const downstream = s.server.baseUrl;
        // The downstream's source, from the upstream's identity provider metadata (as a file).
        const idp = await up.manage<{ metadataUrl: string }>('/api/v1/manage/app/saml/idp', {});
        const xml = await (await fetch(idp.metadataUrl)).text();
        const read = await up.api<Record<string, unknown>>(
          '/api/v1/manage/identity-source/saml/metadata/read',
          {
            xml,
          },
        );
        const source = await up.api<{ serviceProvider: { metadataUrl: string } }>(
          '/api/v1/manage/identity-source/create',
          { type: 'saml', name: 'Upstream SSO', ...read, nameIdFormat: 'unspecified', firstScan: 'create' },
        );

        // The upstream's SAML application for the downstream, from its SP metadata URL.
        const samlApp = await up.manage<{ app: { appId: string } }>('/api/v1/manage/app/create', {
          name: 'Downstream Tessera',
          protocol: 'saml',
        });
        const appId = samlApp.app.appId;
        await up.manage('/api/v1/manage/app/saml/metadata/import', {
          appId,
          url: source.serviceProvider.metadataUrl.replace('//localhost:', '//127.0.0.1:'),
        });
        await up.manage('/api/v1/manage/app/saml/update', { appId, nameIdFormat: 'unspecified' });
        await up.manage('/api/v1/manage/app/status', { appId, status: 'opened' });

        const app = await up.openDownstreamApp('Upstream wiki');
        await up.inNewBrowser(async (page) => {
          await page.goto(up.rp.loginUrl);
          await page.getByRole('button', { name: 'Sign in with Upstream SSO' }).click();
          assert.equal(await up.signInAtUpstream(page), `Signed in as ${up.person.username}`);

          // Signing out at the downstream signs out at the upstream too (a signed LogoutRequest
          // there, its LogoutResponse back), and ends on the downstream's "signed out" page.
          await page.goto(
            `${downstream}/oidc/session/end?${new URLSearchParams({ client_id: app.clientId })}`,
          );
          await page.getByRole('button', { name: 'Yes, sign me out' }).click();
          await page.waitForURL((url) => url.origin === up.upstream.baseUrl);
          await page.getByRole('button', { name: 'Yes, sign me out' }).click();
          await page.waitForURL((url) => url.origin === downstream);
          await page.getByRole('heading', { name: 'Signed out' }).waitFor();
          // The upstream asks who it is again.
          await page.goto(up.rp.loginUrl);
          await page.getByRole('button', { name: 'Sign in with Upstream SSO' }).click();
          await up.atUpstreamSignIn(page);
          await page.locator('#identifier').waitFor();
        });
      }),
  );

  s.devFlow(
    'Upstream OpenID Connect provider: an administrator adds the source in the console; a person signs in at the upstream Tessera by its button or by typing an address of its domain, and lands in the application',
    () =>
      withUpstreamTessera(s, { company: 'Upstream OIDC Co', person: 'olga.oidc' }, async (up) => {
        assert.ok(s.server);
        const { consolePage, ui } = up;
        // The upstream's OpenID Connect application for the downstream Tessera.
        const upApp = await up.manage<{ app: { appId: string; clientId: string }; clientSecret: string }>(
          '/api/v1/manage/app/create',
          { name: 'Downstream Tessera' },
        );
        s.secrets.push(upApp.clientSecret);

        // The administrator adds the source in the console: issuer, client id and secret, a domain.
        await consolePage.goto(`${s.server.baseUrl}/dev/identity-source/select-identity-source`);
        await consolePage.getByTestId('source-type-oidc').click();
        const form = consolePage.getByTestId('oidc-source');
        await form.getByLabel('Connection name').fill('Corp OIDC');
        await form.getByLabel('Issuer', { exact: true }).fill(`${up.upstream.baseUrl}/oidc`);
        await form.getByLabel('Client ID', { exact: true }).fill(upApp.app.clientId);
        await form.locator('#clientSecret').fill(upApp.clientSecret);
        await form.getByLabel('Email domains').fill('oidc-corp.example');
        await form.getByLabel('Email domains').press('Enter');
        await form.getByText('Create a person for an account nobody is linked to').click();
        await form.getByRole('button', { name: 'Add source' }).click();
        await consolePage.waitForURL(/\/dev\/identity-source\/oidc\/[^/?]+/).catch(async (error) => {
          throw error;
        });
        const callbackUrl = await consolePage.getByTestId('callback-url').innerText();
        assert.match(callbackUrl, /\/portal\/upstream\/[^/]+\/callback$/);
        await ui.screenshot('identity-source-oidc.en');

        // The upstream's application takes the downstream's redirect URI.
        await up.manage('/api/v1/manage/app/update', {
          appId: upApp.app.appId,
          redirectUris: [callbackUrl.trim()],
        });
        await up.manage('/api/v1/manage/app/status', { appId: upApp.app.appId, status: 'opened' });

        await up.openDownstreamApp('OIDC wiki');
        // By the button.
        await up.inNewBrowser(async (page) => {
          await page.goto(up.rp.loginUrl);
          await page.getByRole('button', { name: 'Sign in with Corp OIDC' }).click();
          assert.equal(await up.signInAtUpstream(page), `Signed in as ${up.person.username}`);
        });
        // By home-realm discovery: an address of the source's domain goes upstream, no password asked.
        await up.inNewBrowser(async (page) => {
          await page.goto(up.rp.loginUrl);
          await page.locator('#identifier').fill('olga@oidc-corp.example');
          await page.locator('button.primary[type=submit]').click();
          assert.equal(await up.signInAtUpstream(page), `Signed in as ${up.person.username}`);
        });
      }),
  );
}
