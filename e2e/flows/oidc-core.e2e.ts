import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import type { Page } from 'playwright-core';
import { conformance, LIBRARY_NAMES, outcomeOn, signInOnPage } from '../support/conformance.ts';
import { LIBRARIES, type Library } from '../support/conformance-rp.ts';
import { consolePage } from '../support/console.page.ts';
import { MFA_PERSON, type OidcSuite, OTHER, PERSON } from '../support/oidc-suite.ts';
import { totp } from '../support/totp.ts';

/**
 * OpenID Connect as a stranger's relying party sees it, modelled on the OpenID Foundation's
 * Config OP, Basic OP and Form Post OP conformance profiles: openid-client and oauth4webapi each
 * sign Cora in through the real sign-in pages in Chromium. One browser keeps her single sign-on
 * session; tests that need a sign-in ask for it (prompt=login, max_age) or use a fresh browser.
 */
export function oidcCoreFlows(oidc: OidcSuite) {
  const { get } = oidc;
  const sfa = 'https://refeds.org/profile/sfa';

  /** Starts a sign-in with a library and waits for its outcome (signing in when asked). */
  async function signIn(page: Page, library: Library, params: Record<string, string> = {}, password = false) {
    const { rp } = get();
    await page.goto(rp.start(library, params));
    if (password) await signInOnPage(page, PERSON.username, PERSON.password);
    return outcomeOn(page, rp);
  }

  conformance('Config OP', 'discovery and JWKS as each library reads and checks them', async () => {
    const { rp } = get();
    const issuer = new URL(rp.issuer);
    const config = await client.discovery(issuer, 'probe', undefined, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }),
    );
    for (const metadata of [config.serverMetadata(), as]) {
      assert.equal(metadata.issuer, rp.issuer);
      assert.deepEqual(metadata.response_types_supported, ['code']);
      assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
      assert.equal(metadata.authorization_response_iss_parameter_supported, true);
      assert.deepEqual(metadata.subject_types_supported, ['public', 'pairwise']);
    }
    const jwks = await fetch(as.jwks_uri as string);
    assert.match(jwks.headers.get('cache-control') ?? '', /max-age=300/);
    const { keys } = (await jwks.json()) as {
      keys: { kid?: string; alg?: string; use?: string; d?: string }[];
    };
    assert.ok(keys.length >= 2 && keys.every((k) => k.kid && k.alg && k.use === 'sig' && !k.d));
  });

  conformance(
    'Basic OP',
    'code flow with PKCE: ID token, nonce, iss in the response and userinfo, checked by each library',
    async () => {
      const { browser } = get();
      const first = await signIn(browser.page, 'oc', {}, true);
      const second = await signIn(browser.page, 'o4');
      for (const outcome of [first, second]) {
        assert.equal(outcome.responseIss, get().rp.issuer, 'RFC 9207 iss');
        assert.equal(outcome.userinfo?.sub, outcome.claims?.sub);
        assert.equal(outcome.claims?.preferred_username, PERSON.username);
        assert.equal(outcome.claims?.acr, sfa);
        assert.deepEqual(outcome.claims?.amr, ['pwd']);
        assert.equal(typeof outcome.claims?.sid, 'string');
        assert.equal(typeof outcome.claims?.auth_time, 'number');
      }
      assert.equal(first.claims?.sub, second.claims?.sub, 'one subject for both');
      assert.notEqual(first.claims?.sub, undefined);
    },
  );

  conformance('Basic OP', 'prompt=none: a code with a session, login_required without one', async () => {
    const { browser, freshBrowser, rp } = get();
    for (const library of LIBRARIES) await signIn(browser.page, library, { prompt: 'none' });
    const fresh = await freshBrowser();
    try {
      for (const library of LIBRARIES) {
        await fresh.page.goto(rp.start(library, { prompt: 'none' }));
        assert.equal((await outcomeOn(fresh.page, rp, true)).error, 'login_required');
      }
    } finally {
      await fresh.context.close();
    }
  });

  conformance('Basic OP', 'prompt=login asks for the password again, and auth_time moves on', async () => {
    const { browser } = get();
    for (const library of LIBRARIES) {
      const before = Math.floor(Date.now() / 1000);
      const outcome = await signIn(browser.page, library, { prompt: 'login' }, true);
      assert.ok(Number(outcome.claims?.auth_time) >= before, LIBRARY_NAMES[library]);
    }
  });

  conformance(
    'Basic OP',
    'max_age=10000 reuses the session; max_age=1 (two seconds later) and max_age=0 ask again',
    async () => {
      const { browser } = get();
      for (const library of LIBRARIES) await signIn(browser.page, library, { max_age: '10000' });
      // The last sign-in must be more than a second old (auth_time counts whole seconds).
      await browser.page.waitForTimeout(2100);
      await signIn(browser.page, 'oc', { max_age: '1' }, true);
      await signIn(browser.page, 'o4', { max_age: '0' }, true);
    },
  );

  conformance(
    'Basic OP',
    'scopes: each releases its claims (profile, email, phone, in any order)',
    async () => {
      const { browser } = get();
      const withEmail = await signIn(browser.page, 'oc', { scope: 'email openid' });
      assert.equal(withEmail.claims?.email, PERSON.email);
      assert.equal(withEmail.claims?.name, undefined);
      const withProfile = await signIn(browser.page, 'o4', { scope: 'openid profile phone' });
      assert.equal(withProfile.claims?.name, 'Cora Conform');
      assert.equal(withProfile.claims?.email, undefined);
      assert.equal(withProfile.userinfo?.preferred_username, PERSON.username);
    },
  );

  conformance(
    'Basic OP',
    'a request without a nonce, with unknown parameters, display and claims_locales succeeds',
    async () => {
      const { browser } = get();
      for (const library of LIBRARIES) {
        const outcome = await signIn(browser.page, library, {
          nonce: 'omit',
          display: 'page',
          claims_locales: 'zh-CN',
          extra_parameter: 'ignored',
        });
        assert.equal(outcome.claims?.nonce, undefined);
      }
    },
  );

  conformance(
    'Basic OP',
    'login_hint fills in the account and ui_locales=zh-CN shows the page in Chinese',
    async () => {
      const { freshBrowser, rp } = get();
      const fresh = await freshBrowser();
      try {
        for (const library of LIBRARIES) {
          await fresh.page.goto(
            rp.start(library, { login_hint: PERSON.username, ui_locales: 'zh-CN', prompt: 'login' }),
          );
          await fresh.page.getByRole('heading', { name: '登录' }).waitFor();
          assert.equal(await fresh.page.locator('#identifier').inputValue(), PERSON.username);
          await fresh.page.locator('#password').fill(PERSON.password);
          await fresh.page.locator('button.primary[type=submit]').click();
          await outcomeOn(fresh.page, rp);
        }
      } finally {
        await fresh.context.close();
      }
    },
  );

  conformance('Basic OP', 'id_token_hint with prompt=none answers for the same person', async () => {
    const { browser, rp } = get();
    for (const library of LIBRARIES) {
      const previous = rp.last(library);
      const outcome = await signIn(browser.page, library, {
        prompt: 'none',
        id_token_hint: previous?.idToken ?? '',
      });
      assert.equal(outcome.claims?.sub, previous?.claims?.sub);
    }
  });

  conformance(
    'Basic OP',
    'claims request parameter: essential and voluntary claims in the ID token and userinfo',
    async () => {
      const { browser } = get();
      const claims = JSON.stringify({ id_token: { email: { essential: true } }, userinfo: { name: null } });
      for (const library of LIBRARIES) {
        const outcome = await signIn(browser.page, library, { scope: 'openid', claims });
        assert.equal(outcome.claims?.email, PERSON.email, LIBRARY_NAMES[library]);
        assert.equal(outcome.userinfo?.name, 'Cora Conform', LIBRARY_NAMES[library]);
      }
    },
  );

  conformance('Basic OP', 'acr_values: the acr claim names the requested level', async () => {
    const { browser } = get();
    for (const library of LIBRARIES)
      assert.equal((await signIn(browser.page, library, { acr_values: sfa })).claims?.acr, sfa);
  });

  conformance(
    'Basic OP',
    'an unregistered redirect_uri gets the error page, never a redirect',
    async () => {
      const { browser, rp, app } = get();
      const url = new URL(`${rp.issuer}/auth`);
      url.search = new URLSearchParams({
        client_id: app.clientId,
        response_type: 'code',
        scope: 'openid',
        redirect_uri: 'https://attacker.example/callback',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }).toString();
      await browser.page.goto(url.toString());
      await browser.page.getByRole('heading', { name: 'Something went wrong' }).waitFor();
      assert.ok(browser.page.url().startsWith(rp.issuer));
    },
    'browser',
  );

  conformance(
    'Basic OP',
    'offline_access with prompt=consent: the consent page, then a refresh token that rotates',
    async () => {
      const { browser, rp } = get();
      for (const library of LIBRARIES) {
        await browser.page.goto(rp.start(library, { scope: 'openid offline_access', prompt: 'consent' }));
        await browser.page.getByText('Keep this access while you are not using it').waitFor();
        if (library === 'oc') await consolePage(browser.page, rp.base).screenshot('consent.en');
        await browser.page.locator('button[name="decision"][value="allow"]').click();
        const outcome = await outcomeOn(browser.page, rp);
        assert.ok(outcome.refreshToken, `${LIBRARY_NAMES[library]}: a refresh token`);
        const refreshed = await rp.refresh(library, outcome.refreshToken);
        assert.ok(refreshed.refreshToken && refreshed.refreshToken !== outcome.refreshToken, 'rotated');
        assert.equal(refreshed.claims?.sub, outcome.claims?.sub);
        await assert.rejects(rp.refresh(library, outcome.refreshToken), 'the old refresh token is refused');
      }
    },
    'browser',
  );

  conformance(
    'Form Post OP',
    'response_mode=form_post posts code, state and iss to the callback',
    async () => {
      const { browser } = get();
      for (const library of LIBRARIES) {
        const outcome = await signIn(browser.page, library, { response_mode: 'form_post' });
        assert.equal(outcome.responseIss, get().rp.issuer);
      }
    },
  );

  conformance(
    'Basic OP',
    'prompt=select_account: continue as the signed-in person, or sign in as someone else',
    async () => {
      const { browser, rp } = get();
      const cora = rp.last('oc')?.claims?.sub;
      await browser.page.goto(rp.start('oc', { prompt: 'select_account', ui_locales: 'zh-CN' }));
      await browser.page.getByRole('button', { name: `以 ${PERSON.username} 继续` }).waitFor();
      await consolePage(browser.page, rp.base).screenshot('select-account.zh');
      await browser.page.goto(rp.start('oc', { prompt: 'select_account' }));
      await browser.page.getByRole('button', { name: `Continue as ${PERSON.username}` }).click();
      assert.equal((await outcomeOn(browser.page, rp)).claims?.sub, cora);
      await browser.page.goto(rp.start('o4', { prompt: 'select_account' }));
      await browser.page.getByRole('button', { name: 'Use another account' }).click();
      await signInOnPage(browser.page, OTHER.username, OTHER.password);
      const other = await outcomeOn(browser.page, rp);
      assert.equal(other.claims?.preferred_username, OTHER.username);
      // Back to Cora for the flows that follow (Olaf's session ends with the switch).
      await browser.page.goto(rp.start('oc', { prompt: 'select_account' }));
      await browser.page.getByRole('button', { name: 'Use another account' }).click();
      await signInOnPage(browser.page, PERSON.username, PERSON.password);
      assert.equal((await outcomeOn(browser.page, rp)).claims?.sub, cora);
    },
  );

  conformance(
    'Authentication context',
    'acr_values naming MFA: a factor is bound, then acr mfa and amr otp for both',
    async () => {
      const { freshBrowser, rp } = get();
      const mfa = 'https://refeds.org/profile/mfa';
      const fresh = await freshBrowser();
      try {
        await fresh.page.goto(rp.start('oc', { acr_values: mfa }));
        await signInOnPage(fresh.page, MFA_PERSON.username, MFA_PERSON.password);
        await fresh.page.getByRole('heading', { name: 'Set up two-step verification' }).waitFor();
        const secret = (await fresh.page.locator('[data-secret]').getAttribute('data-secret')) ?? '';
        await fresh.page.locator('#code').fill(totp(secret));
        await fresh.page.locator('button.primary[type=submit]').click();
        await fresh.page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
        await fresh.page.getByText('I have saved them, continue').click();
        const first = await outcomeOn(fresh.page, rp);
        const second = await signIn(fresh.page, 'o4', { acr_values: mfa });
        for (const outcome of [first, second]) {
          assert.equal(outcome.claims?.acr, mfa);
          assert.deepEqual([...((outcome.claims?.amr as string[] | undefined) ?? [])].sort(), [
            'mfa',
            'otp',
            'pwd',
          ]);
        }
      } finally {
        await fresh.context.close();
      }
    },
  );
}
