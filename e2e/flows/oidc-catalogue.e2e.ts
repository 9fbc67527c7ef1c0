import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { type CatalogueRp, PRODUCTS, startCatalogueRp } from '../support/catalogue-rp.ts';
import { allowConsent, conformance } from '../support/conformance.ts';
import { type OidcSuite, PERSON } from '../support/oidc-suite.ts';

/**
 * The catalogue apps (GitLab, Grafana, Jenkins, Nextcloud, Harbor), added from their templates
 * as an administrator does, each signing Cora in with the requests the product itself sends
 * (e2e/support/catalogue-rp.ts). The company added them, so no one is asked for consent; the
 * one the administrator marks as asking (as for an app run by another organisation) shows Cora
 * its consent page once. Nextcloud receives a back-channel logout token when she signs out.
 */
const ASKS_CONSENT = 'grafana';
export function oidcCatalogueFlows(oidc: OidcSuite) {
  const { get } = oidc;
  let rp: CatalogueRp | undefined;
  const clientIds = new Map<string, string>();

  test('OIDC suite: the catalogue apps added from their templates', async () => {
    const { api, rp: conformanceRp } = get();
    rp = await startCatalogueRp(conformanceRp.issuer);
    type Created = {
      app: { appId: string; clientId: string; oidc: { tokenAuthMethod: string; requirePkce: boolean } };
      clientSecret: string;
    };
    for (const product of PRODUCTS) {
      const created: Created = await api<Created>('/api/v1/manage/app/create', {
        name: product.key,
        type: 'third_party',
        template: product.key,
        baseUrl: rp.baseOf(product.key),
      });
      // The template matches what the product sends.
      assert.equal(created.app.oidc.tokenAuthMethod, product.auth, product.key);
      assert.equal(created.app.oidc.requirePkce, product.pkce, product.key);
      if (product.key === ASKS_CONSENT)
        await api('/api/v1/manage/app/update', { appId: created.app.appId, askConsent: true });
      await api('/api/v1/manage/app/status', { appId: created.app.appId, status: 'opened' });
      rp.configure(product.key, { clientId: created.app.clientId, clientSecret: created.clientSecret });
      clientIds.set(product.key, created.app.clientId);
    }
  });

  for (const product of PRODUCTS) {
    conformance(
      'Catalogue app',
      `${product.key}: ${product.scope}, ${product.pkce ? 'PKCE' : 'no PKCE'}, ${product.nonce ? 'nonce' : 'no nonce'}, ${product.auth}${product.refreshes ? ', refresh' : ''}${product.extra?.claims ? ', claims parameter' : ''}`,
      async () => {
        assert.ok(rp);
        const { browser } = get();
        await browser.page.goto(rp.loginUrl(product.key));
        if (product.key === ASKS_CONSENT) {
          // Its consent page, naming it and what it reads.
          await browser.page.getByRole('heading', { name: 'Allow access' }).waitFor();
          await browser.page
            .getByText(`${product.key} asks to use your Tessera account ${PERSON.username}`)
            .waitFor();
          await allowConsent(browser.page);
        }
        // Any other: straight back to the product, no consent page on the way.
        await browser.page.locator('#outcome').waitFor();
        const outcome = rp.outcomes.get(product.key);
        assert.equal(outcome?.error, undefined, outcome?.error);
        assert.equal(outcome?.claims?.preferred_username, PERSON.username);
        assert.equal(outcome?.userinfo?.sub, outcome?.claims?.sub);
        if (product.refreshes) assert.equal(outcome?.refreshed, true, 'refreshed');
        if (product.key === 'nextcloud') {
          // The claims it asked for by name: email and name (quota is no Tessera claim).
          assert.equal(outcome?.claims?.email, PERSON.email);
          assert.equal(outcome?.userinfo?.name, 'Cora Conform');
        }
        // Allowed once: the next sign-in goes straight through.
        await browser.page.goto(rp.loginUrl(product.key));
        await browser.page.locator('#outcome').waitFor();
        assert.equal(rp.outcomes.get(product.key)?.error, undefined);
      },
      `oauth4webapi as ${product.key} (${product.source})`,
    );
  }

  conformance(
    'Catalogue app',
    'nextcloud: its RP-initiated logout (client_id, no id_token_hint) ends the session and its back-channel URI gets the logout token',
    async () => {
      assert.ok(rp);
      const { browser, rp: conformanceRp } = get();
      const nextcloud = clientIds.get('nextcloud') as string;
      const url = `${conformanceRp.issuer}/session/end?${new URLSearchParams({
        post_logout_redirect_uri: `${rp.baseOf('nextcloud')}/`,
        client_id: nextcloud,
      })}`;
      await browser.page.goto(url);
      await browser.page.locator('button[name="logout"][value="yes"]').click();
      await browser.page.locator('#product-page').waitFor();
      const [token] = rp.logoutTokens.get('nextcloud') ?? [];
      assert.ok(token, 'a logout token reached Nextcloud');
      const keys = createLocalJWKSet(await (await fetch(`${conformanceRp.issuer}/jwks`)).json());
      const { payload } = await jwtVerify(token, keys, { issuer: conformanceRp.issuer, audience: nextcloud });
      assert.equal(payload.sub, rp.outcomes.get('nextcloud')?.claims?.sub);
      assert.equal(payload.sid, rp.outcomes.get('nextcloud')?.claims?.sid);
    },
    'browser; nextcloud/user_oidc backchannel-logout route',
  );

  test('OIDC suite: catalogue relying party stopped', async () => {
    await rp?.stop();
  });
}
