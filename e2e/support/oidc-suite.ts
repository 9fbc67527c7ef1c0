import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { writeConformanceResults } from './conformance.ts';
import { type ConformanceRp, startConformanceRp } from './conformance-rp.ts';
import { callsThatMustSucceed, chooseTab } from './console.page.ts';
import type { Suite } from './suite.ts';

/**
 * What the OIDC conformance flows share (e2e/flows/oidc-*.e2e.ts): a relying party with both
 * libraries, the application it is registered as (self-built, every scope, back- and
 * front-channel logout URIs), two people of the company, and one browser of the first person,
 * whose single sign-on session the tests reuse where the behaviour allows.
 */
export const PERSON = { username: 'cora.conform', password: 'Cora-pass-2026', email: 'cora@example.com' };
export const OTHER = { username: 'olaf.other', password: 'Olaf-pass-2026' };
export const MFA_PERSON = { username: 'mia.factors', password: 'Mia-pass-2026' };

export interface OidcState {
  rp: ConformanceRp;
  app: { appId: string; clientId: string; clientSecret: string };
  browser: { context: BrowserContext; page: Page };
  companyId: string;
  /** The user id of OTHER (an administrator disables them in the logout flows). */
  otherId: string;
  /** Calls the API as the console's administrator. */
  api<T>(path: string, body: unknown): Promise<T>;
  /** A new browser without any session (closed by the caller). */
  freshBrowser(options?: { lang?: 'en' | 'zh' }): Promise<{ context: BrowserContext; page: Page }>;
}

export function oidcSuite(s: Suite) {
  let state: OidcState | undefined;
  const get = () => {
    assert.ok(state, 'the OIDC suite is set up');
    return state;
  };

  test('OIDC suite: the conformance relying party, its application and people', async () => {
    assert.ok(s.server);
    const { ui } = await s.devSession();
    const companyId = (await ui.companyId()) as string;
    const api = callsThatMustSucceed(ui, companyId);
    const rp = await startConformanceRp(`${s.server.baseUrl}/oidc`);
    const created = await api<{ app: { appId: string; clientId: string }; clientSecret: string }>(
      '/api/v1/manage/app/create',
      { name: 'Conformance RP' },
    );
    const { appId, clientId } = created.app;
    await api('/api/v1/manage/app/update', {
      appId,
      redirectUris: [rp.callback('oc'), rp.callback('o4')],
      postLogoutRedirectUris: [`${rp.base}/bye`],
      scopes: ['profile', 'email', 'phone', 'groups', 'offline_access'],
      backchannelLogoutUri: `${rp.base}/backchannel/main`,
      frontchannelLogoutUri: `${rp.base}/frontchannel/main`,
    });
    await api('/api/v1/manage/app/status', { appId, status: 'opened' });
    rp.configure({ clientId, clientSecret: created.clientSecret });
    // The protocol tab with the logout URIs, in both languages.
    const { page, context } = await s.devSession();
    for (const [lang, tab] of [
      ['zh', '协议配置'],
      ['en', 'Protocol'],
    ] as const) {
      await context.addCookies([{ name: 'lang', value: lang, url: s.server.baseUrl }]);
      await page.goto(`${s.server.baseUrl}/dev/application/detail?appId=${appId}`);
      await chooseTab(page, tab);
      await page.getByTestId('protocol-form').waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot(`app-protocol.${lang}`);
    }
    await ui.createUser(PERSON.username, PERSON.password, { name: 'Cora Conform', email: PERSON.email });
    const otherId = await ui.createUser(OTHER.username, OTHER.password);
    await ui.createUser(MFA_PERSON.username, MFA_PERSON.password);
    state = {
      rp,
      app: { appId, clientId, clientSecret: created.clientSecret },
      browser: await s.openPage(),
      companyId,
      otherId,
      api,
      freshBrowser: (options) => s.openPage(options),
    };
  });

  return {
    get,
    /** Stops the relying party and writes the results table (after the last OIDC flow). */
    finish() {
      test('OIDC suite: results written, relying party stopped', async () => {
        await writeConformanceResults();
        await state?.browser.context.close();
        await state?.rp.stop();
      });
    },
  };
}

export type OidcSuite = ReturnType<typeof oidcSuite>;
