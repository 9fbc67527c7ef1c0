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
 * SAML identity provider, then its OpenID Connect provider. A person clicks the source's button
 * on the sign-in page of the company's application (or, for OpenID Connect, types an address of
 * the source's email domain), signs in at the upstream and lands in the application; signing out
 * at the downstream signs out at the upstream SAML provider too (its sign-in page is shown
 * again). Alone:
 *   --test-name-pattern='create a company|Upstream|uncaught errors'
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

  devFlow(
    'Upstream OpenID Connect provider: an administrator adds the source in the console; a person signs in at the upstream Tessera by its button or by typing an address of its domain, and lands in the application',
    async () => {
      assert.ok(s.server);
      const { page: consolePage, ui } = await devSession();
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
        const upOwner = await ownerWithCompany(upstream, 'up-owner', 'Upstream OIDC Co');
        s.secrets.push(UPSTREAM_PASSWORD);
        const person = await companyMember(upstream, upOwner, 'olga.oidc', UPSTREAM_PASSWORD);
        // The upstream's OpenID Connect application for the downstream Tessera.
        const upApp = await manage<{ app: { appId: string; clientId: string }; clientSecret: string }>(
          upstream,
          upOwner,
          '/api/v1/manage/app/create',
          { name: 'Downstream Tessera' },
        );
        s.secrets.push(upApp.clientSecret);

        // The administrator adds the source in the console: issuer, client id and secret, a domain.
        await consolePage.goto(`${s.server.baseUrl}/dev/identity-source/select-identity-source`);
        await consolePage.getByTestId('source-type-oidc').click();
        const form = consolePage.getByTestId('oidc-source');
        await form.getByLabel('Connection name').fill('Corp OIDC');
        await form.getByLabel('Issuer', { exact: true }).fill(`${upstream.baseUrl}/oidc`);
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
        await manage(upstream, upOwner, '/api/v1/manage/app/update', {
          appId: upApp.app.appId,
          redirectUris: [callbackUrl.trim()],
        });
        await manage(upstream, upOwner, '/api/v1/manage/app/status', {
          appId: upApp.app.appId,
          status: 'opened',
        });

        // The downstream company's application.
        const created = await api<{ app: { appId: string; clientId: string }; clientSecret: string }>(
          '/api/v1/manage/app/create',
          { name: 'OIDC wiki' },
        );
        s.secrets.push(created.clientSecret);
        await api('/api/v1/manage/app/update', { appId: created.app.appId, redirectUris: [rp.redirectUri] });
        await api('/api/v1/manage/app/status', { appId: created.app.appId, status: 'opened' });
        rp.configure(created.app.clientId, created.clientSecret);

        const signInAtUpstream = async (page: Awaited<ReturnType<typeof openPage>>['page']) => {
          await page.waitForURL(
            (url) => url.origin === upstream.baseUrl && url.pathname.startsWith('/interaction/'),
          );
          await page.locator('#identifier').fill(person.username);
          await page.locator('#password').fill(UPSTREAM_PASSWORD);
          await page.getByRole('button', { name: 'Sign in', exact: true }).click();
          await page.locator('#greeting').waitFor();
          return page.locator('#greeting').innerText();
        };

        // By the button.
        const first = await openPage();
        try {
          await first.page.goto(rp.loginUrl);
          await first.page.getByRole('button', { name: 'Sign in with Corp OIDC' }).click();
          assert.equal(await signInAtUpstream(first.page), `Signed in as ${person.username}`);
        } finally {
          await first.context.close();
        }
        // By home-realm discovery: an address of the source's domain goes upstream, no password asked.
        const second = await openPage();
        try {
          await second.page.goto(rp.loginUrl);
          await second.page.locator('#identifier').fill('olga@oidc-corp.example');
          await second.page.locator('button.primary[type=submit]').click();
          assert.equal(await signInAtUpstream(second.page), `Signed in as ${person.username}`);
        } finally {
          await second.context.close();
        }
      } finally {
        await rp.stop();
        await upstream.close();
      }
    },
  );
}
