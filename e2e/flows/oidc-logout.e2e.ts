import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conformance, LIBRARY_NAMES, outcomeOn, signInOnPage } from '../support/conformance.ts';
import { LIBRARIES, type Library } from '../support/conformance-rp.ts';
import { consolePage } from '../support/console.page.ts';
import { type OidcSuite, OTHER, PERSON } from '../support/oidc-suite.ts';

/**
 * Signing out, modelled on the RP-Initiated, Back-Channel and Front-Channel Logout OP profiles:
 * each library sends Cora to the end-session endpoint with its ID token; she confirms; every
 * application of her session gets a signed logout token with the session's sid (verified by the
 * relying party against the JWKS) and its front-channel URI loaded in a frame; the browser lands
 * back at the application with its state. A visitor without a session is asked first (issue 12).
 */
export function oidcLogoutFlows(oidc: OidcSuite) {
  const { get } = oidc;
  let secondClientId = '';

  test('OIDC suite: a second application in the same session', async () => {
    const { api, rp } = get();
    const created = await api<{ app: { appId: string; clientId: string } }>('/api/v1/manage/app/create', {
      name: 'Second RP',
    });
    const { appId, clientId } = created.app;
    await api('/api/v1/manage/app/update', {
      appId,
      redirectUris: [`${rp.base}/bye`],
      backchannelLogoutUri: `${rp.base}/backchannel/second`,
    });
    await api('/api/v1/manage/app/status', { appId, status: 'opened' });
    rp.trust(clientId);
    secondClientId = clientId;
  });

  /** Signs Cora in with a library (password), and to the second app through single sign-on. */
  async function signInToBoth(library: Library) {
    const { browser, rp } = get();
    await browser.page.goto(rp.start(library, { prompt: 'login' }));
    await signInOnPage(browser.page, PERSON.username, PERSON.password);
    const outcome = await outcomeOn(browser.page, rp);
    const second = new URL(`${rp.issuer}/auth`);
    second.search = new URLSearchParams({
      client_id: secondClientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: `${rp.base}/bye`,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    await browser.page.goto(second.toString());
    await browser.page.waitForURL((url) => url.toString().startsWith(`${rp.base}/bye?code=`));
    return outcome;
  }

  for (const library of LIBRARIES) {
    const name = LIBRARY_NAMES[library];
    let signedIn: Awaited<ReturnType<typeof signInToBoth>> | undefined;

    conformance(
      'RP-Initiated Logout OP',
      `id_token_hint, post_logout_redirect_uri and state: signed out without a question, back at the app with its state (${name})`,
      async () => {
        const { browser, rp } = get();
        signedIn = await signInToBoth(library);
        rp.logouts.length = 0;
        await browser.page.goto(
          await rp.endSession(library, {
            post_logout_redirect_uri: `${rp.base}/bye`,
            state: `bye-${library}`,
          }),
        );
        // The ID token names this session: the sign-out page posts itself, nothing is clicked.
        await browser.page.waitForURL((url) => url.toString().startsWith(`${rp.base}/bye`));
        assert.equal(await browser.page.locator('#bye-state').innerText(), `bye-${library}`);
        // The single sign-on session is over.
        await browser.page.goto(rp.start(library, { prompt: 'none' }));
        assert.equal((await outcomeOn(browser.page, rp, true)).error, 'login_required');
      },
      name,
    );

    conformance(
      'Back-Channel Logout OP',
      `a signed logout token with sub and the session's sid to every app of the session (${name})`,
      async () => {
        const { rp, app } = get();
        const back = rp.logouts.filter((l) => l.channel === 'back');
        assert.deepEqual(back.map((l) => l.name).sort(), ['main', 'second']);
        for (const delivery of back) assert.equal(delivery.error, undefined, delivery.error);
        const main = back.find((l) => l.name === 'main');
        assert.equal(main?.claims?.aud, app.clientId);
        assert.equal(main?.claims?.sub, signedIn?.claims?.sub);
        assert.equal(main?.claims?.sid, signedIn?.claims?.sid);
        assert.equal(back.find((l) => l.name === 'second')?.claims?.aud, secondClientId);
      },
      name,
    );

    conformance(
      'Front-Channel Logout OP',
      `the app's front-channel URI loaded in a frame with iss and sid (${name})`,
      async () => {
        const { rp } = get();
        const front = rp.logouts.filter((l) => l.channel === 'front');
        assert.equal(front.length, 1);
        assert.equal(front[0]?.query?.iss, rp.issuer);
        assert.equal(front[0]?.query?.sid, signedIn?.claims?.sid);
      },
      name,
    );
  }

  conformance(
    'Back-Channel Logout OP',
    "an administrator disables a person: the app of the person's session gets a logout token (issue 13)",
    async () => {
      const { freshBrowser, rp, api, otherId } = get();
      const fresh = await freshBrowser();
      try {
        await fresh.page.goto(rp.start('o4', { prompt: 'login' }));
        await signInOnPage(fresh.page, OTHER.username, OTHER.password);
        const outcome = await outcomeOn(fresh.page, rp);
        rp.logouts.length = 0;
        await api('/api/v1/manage/user/status', { userId: otherId, status: 'disabled' });
        const back = rp.logouts.filter((l) => l.channel === 'back');
        assert.deepEqual(
          back.map((l) => [l.name, l.error]),
          [['main', undefined]],
        );
        assert.equal(back[0]?.claims?.sub, outcome.claims?.sub);
        assert.equal(back[0]?.claims?.sid, outcome.claims?.sid);
        await fresh.page.goto(rp.start('o4', { prompt: 'none' }));
        assert.equal((await outcomeOn(fresh.page, rp, true)).error, 'login_required');
      } finally {
        await api('/api/v1/manage/user/status', { userId: otherId, status: 'enabled' });
        await fresh.context.close();
      }
    },
    'oauth4webapi, console API',
  );

  conformance(
    'RP-Initiated Logout OP',
    'an unregistered post_logout_redirect_uri is refused on the error page',
    async () => {
      const { browser, rp, app } = get();
      const url = `${rp.issuer}/session/end?${new URLSearchParams({
        client_id: app.clientId,
        post_logout_redirect_uri: 'https://attacker.example/bye',
      })}`;
      await browser.page.goto(url);
      await browser.page.getByRole('heading', { name: 'Something went wrong' }).waitFor();
      assert.ok(browser.page.url().startsWith(rp.issuer));
    },
    'browser',
  );

  conformance(
    'RP-Initiated Logout OP',
    'without a session and without an ID token, the visitor confirms before going back to the app',
    async () => {
      const { freshBrowser, rp, app } = get();
      const fresh = await freshBrowser();
      try {
        await fresh.page.goto(
          `${rp.issuer}/session/end?${new URLSearchParams({
            client_id: app.clientId,
            post_logout_redirect_uri: `${rp.base}/bye`,
            state: 'asked',
          })}`,
        );
        await fresh.page.getByText('You are not signed in to Tessera.').waitFor();
        await consolePage(fresh.page, rp.base).screenshot('logout-confirm.en', [900]);
        assert.ok(fresh.page.url().startsWith(rp.issuer), 'not sent on by itself');
        await fresh.page.getByRole('button', { name: 'Return to Conformance RP' }).click();
        await fresh.page.waitForURL((url) => url.toString().startsWith(`${rp.base}/bye`));
        assert.equal(await fresh.page.locator('#bye-state').innerText(), 'asked');
      } finally {
        await fresh.context.close();
      }
    },
    'browser',
  );
}
