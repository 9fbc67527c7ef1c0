import assert from 'node:assert/strict';
import { after } from 'node:test';
import type { Page } from 'playwright-core';
import {
  startTestServiceProvider,
  type TestServiceProvider,
} from '../../packages/server/src/test/saml-sp.ts';
import { callsThatMustSucceed, consolePage } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const PERSON = 'rita.redirect';
const PERSON_PASSWORD = 'Rita-pass-2026';

type Console = Awaited<ReturnType<Suite['devSession']>>['ui'];

/** A SAML app of the company for this service provider (from its metadata URL), opened; the SP trusts the company's IdP. */
async function addSamlApp(ui: Console, sp: TestServiceProvider, name: string) {
  const companyId = await ui.companyId();
  const call = callsThatMustSucceed(ui, companyId);
  const { app } = await call<{ app: { appId: string } }>('/api/v1/manage/app/create', {
    name,
    protocol: 'saml',
  });
  await call('/api/v1/manage/app/saml/metadata/import', { appId: app.appId, url: sp.metadataUrl });
  await call('/api/v1/manage/app/status', { appId: app.appId, status: 'opened' });
  const idp = await call<{
    entityId: string;
    ssoUrl: string;
    sloUrl: string;
    certificates: { pem: string }[];
  }>('/api/v1/manage/app/saml/idp', {});
  sp.useIdp({
    ...idp,
    certificates: idp.certificates.map((c) => c.pem.replace(/-----[A-Z ]+-----|\s+/g, '')),
  });
}

/**
 * SAML service providers that answer the posted message with a redirect (issue 28): the page
 * that posts a SAML message lets the browser follow it. An ACS that sends the person on to its
 * application on another origin, and a service provider that answers a posted LogoutRequest by
 * redirecting back to the IdP's single logout endpoint (as passport-saml does). Service providers:
 * @node-saml/node-saml on 127.0.0.1, each on its own port (another origin than Tessera's).
 */
export function samlRedirectFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  const sps: TestServiceProvider[] = [];
  let personCreated = false;
  after(() => Promise.all(sps.map((sp) => sp.close())));

  const serviceProvider = async (name: string, options: { application?: boolean } = {}) => {
    const { ui } = await devSession();
    if (!personCreated) {
      s.secrets.push(PERSON_PASSWORD);
      await ui.createUser(PERSON, PERSON_PASSWORD);
      personCreated = true;
    }
    const sp = await startTestServiceProvider(options);
    sps.push(sp);
    await addSamlApp(ui, sp, name);
    return sp;
  };

  /** SP-initiated sign-in at `sp` in this page: with the password, or inside single sign-on. */
  const signInAt = async (person: Page, sp: TestServiceProvider, password = true) => {
    assert.ok(s.server);
    await person.goto(`${sp.baseUrl}/login?binding=redirect`);
    if (!password) return;
    const shots = consolePage(person, s.server.baseUrl);
    await shots.expectSignInPage();
    await shots.submitSignIn(PERSON, PERSON_PASSWORD);
  };

  devFlow(
    'SAML: an ACS that redirects to its application on another origin takes the person there',
    async () => {
      const board = await serviceProvider('Team board', { application: true });
      assert.ok(board.applicationUrl);
      const { context, page: person } = await openPage();
      try {
        await signInAt(person, board);
        // The post page's form goes to the ACS (127.0.0.1:<SP port>), which answers 303 to the
        // application (127.0.0.1:<another port>).
        await person.waitForURL((url) => url.origin === board.applicationUrl);
        const shown = JSON.parse(await person.locator('body').innerText());
        assert.equal(shown.application, true);
        assert.equal(shown.profile.nameID, PERSON);
        assert.deepEqual(
          board.events.map((e) => e.kind),
          ['signed_in'],
        );
      } finally {
        await context.close();
      }
    },
  );

  devFlow(
    'SAML single logout: the second service provider redirects its LogoutResponse and the first receives its own',
    async () => {
      const docs = await serviceProvider('Team wiki');
      const chat = await serviceProvider('Team chat');
      const { context, page: person } = await openPage();
      try {
        await signInAt(person, docs);
        await person.waitForURL(`${docs.baseUrl}/acs`);
        await signInAt(person, chat, false);
        await person.waitForURL(`${chat.baseUrl}/acs`);
        assert.equal(JSON.parse(await person.locator('body').innerText()).profile.nameID, PERSON);

        // Logout at the wiki: Tessera asks whether to sign out, posts a LogoutRequest to the
        // chat (its metadata asks for HTTP-POST), which answers with a redirect carrying its
        // LogoutResponse to Tessera's SLO endpoint; the wiki then gets its LogoutResponse posted.
        await person.goto(`${docs.baseUrl}/logout`);
        await person.locator('button[name="logout"][value="yes"]').click();
        await person.waitForURL(`${docs.baseUrl}/slo`);
        assert.equal(JSON.parse(await person.locator('body').innerText()).loggedOut, true);
        assert.deepEqual(
          chat.events.map((e) => e.kind),
          ['signed_in', 'logged_out'],
        );
        assert.deepEqual(
          docs.events.map((e) => e.kind),
          ['signed_in', 'logout_response'],
        );
        await person.goto(`${chat.baseUrl}/me`);
        assert.equal(JSON.parse(await person.locator('body').innerText()).profile, null);
      } finally {
        await context.close();
      }
    },
  );
}
