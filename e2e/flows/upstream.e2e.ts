import assert from 'node:assert/strict';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../packages/server/src/test/harness.ts';
import { startRelyingParty } from '../support/relying-party.ts';
import type { Suite } from '../support/suite.ts';

const UPSTREAM_USER = 'ursula.upstream';
const UPSTREAM_PASSWORD = 'Ursula-pass-2026';

/**
 * Upstream identity providers (issue 33): a second Tessera, started by the flow on 127.0.0.1 (so
 * that the browser keeps its cookies apart from the run's server on localhost), is the company's
 * SAML identity provider. A person clicks the source's button on the sign-in page of the
 * company's application, signs in at the upstream and lands in the application; signing out at
 * the downstream signs out at the upstream too (its sign-in page is shown again). Alone:
 *   --test-name-pattern='create a company|Upstream SAML|uncaught errors'
 */
/** A console call at the upstream (the test harness's, outside Vitest), which must succeed. */
async function manage<T = unknown>(
  ctx: TestContext,
  owner: { token: string; companyId: string },
  path: string,
  body: unknown,
): Promise<T> {
  const answer = await call<T>(ctx, path, body, owner);
  assert.equal(answer.code, 200, `${path}: ${answer.msg}`);
  return answer.data;
}

export function upstreamFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;

  devFlow(
    "Upstream SAML identity provider: a person clicks the source's button, signs in at the upstream Tessera and lands in the application; signing out signs out at the upstream too",
    async () => {
      assert.ok(s.server);
      const { page: consolePage, ui } = await devSession();
      // The console chooses the administrator's company once its page has loaded.
      await consolePage.waitForFunction(() => localStorage.getItem('asp_admin_company_id'));
      const companyId = await ui.companyId();
      const api = async <T>(path: string, body: unknown): Promise<T> => {
        const answer = await ui.api<T>(path, body, companyId);
        assert.equal(answer.code, 200, `${path}: ${answer.msg}`);
        return answer.data;
      };
      const upstream = await startTestApp({ listen: true, publicHost: '127.0.0.1' });
      const rp = await startRelyingParty(`${s.server.baseUrl}/oidc`, s.secrets);
      try {
        await grantLicense(upstream, { app: 10 });
        const upOwner = await ownerWithCompany(upstream, 'up-owner', 'Upstream Co');
        s.secrets.push(UPSTREAM_PASSWORD);
        await companyMember(upstream, upOwner, UPSTREAM_USER, UPSTREAM_PASSWORD);

        // The downstream's source, from the upstream's identity provider metadata (as a file).
        const idp = await manage<{ metadataUrl: string }>(
          upstream,
          upOwner,
          '/api/v1/manage/app/saml/idp',
          {},
        );
        const xml = await (await fetch(idp.metadataUrl)).text();
        const read = await api<Record<string, unknown>>('/api/v1/manage/identity-source/saml/metadata/read', {
          xml,
        });
        const source = await api<{ serviceProvider: { metadataUrl: string } }>(
          '/api/v1/manage/identity-source/create',
          { type: 'saml', name: 'Upstream SSO', ...read, nameIdFormat: 'unspecified', firstScan: 'create' },
        );

        // The upstream's SAML application for the downstream, from its SP metadata URL.
        const samlApp = await manage<{ app: { appId: string } }>(
          upstream,
          upOwner,
          '/api/v1/manage/app/create',
          {
            name: 'Downstream Tessera',
            protocol: 'saml',
          },
        );
        const appId = samlApp.app.appId;
        await manage(upstream, upOwner, '/api/v1/manage/app/saml/metadata/import', {
          appId,
          url: source.serviceProvider.metadataUrl.replace('//localhost:', '//127.0.0.1:'),
        });
        await manage(upstream, upOwner, '/api/v1/manage/app/saml/update', {
          appId,
          nameIdFormat: 'unspecified',
        });
        await manage(upstream, upOwner, '/api/v1/manage/app/status', { appId, status: 'opened' });

        // The downstream company's application.
        const created = await api<{ app: { appId: string; clientId: string }; clientSecret: string }>(
          '/api/v1/manage/app/create',
          { name: 'Upstream wiki' },
        );
        s.secrets.push(created.clientSecret);
        await api('/api/v1/manage/app/update', { appId: created.app.appId, redirectUris: [rp.redirectUri] });
        await api('/api/v1/manage/app/status', { appId: created.app.appId, status: 'opened' });
        rp.configure(created.app.clientId, created.clientSecret);

        const { context, page } = await openPage();
        try {
          await page.goto(rp.loginUrl);
          await page.getByRole('button', { name: 'Sign in with Upstream SSO' }).click();
          await page.waitForURL(
            (url) => url.origin === upstream.baseUrl && url.pathname.startsWith('/interaction/'),
          );
          await page.locator('#identifier').fill(UPSTREAM_USER);
          await page.locator('#password').fill(UPSTREAM_PASSWORD);
          await page.getByRole('button', { name: 'Sign in', exact: true }).click();
          await page.locator('#greeting').waitFor();
          assert.equal(await page.locator('#greeting').innerText(), `Signed in as ${UPSTREAM_USER}`);

          // Signing out at the downstream signs out at the upstream too (a signed LogoutRequest
          // there, its LogoutResponse back), and ends on the downstream's "signed out" page.
          await page.goto(
            `${s.server.baseUrl}/oidc/session/end?${new URLSearchParams({ client_id: created.app.clientId })}`,
          );
          await page.getByRole('button', { name: 'Yes, sign me out' }).click();
          await page.waitForURL((url) => url.origin === upstream.baseUrl);
          await page.getByRole('button', { name: 'Yes, sign me out' }).click();
          await page.waitForURL((url) => url.origin === s.server?.baseUrl);
          await page.getByRole('heading', { name: 'Signed out' }).waitFor();
          // The upstream asks who it is again.
          await page.goto(rp.loginUrl);
          await page.getByRole('button', { name: 'Sign in with Upstream SSO' }).click();
          await page.waitForURL(
            (url) => url.origin === upstream.baseUrl && url.pathname.startsWith('/interaction/'),
          );
          await page.locator('#identifier').waitFor();
        } finally {
          await context.close();
        }
      } finally {
        await rp.stop();
        await upstream.close();
      }
    },
  );
}
