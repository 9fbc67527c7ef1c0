import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../packages/server/src/test/harness.ts';
import { callsThatMustSucceed, type consolePage } from './console.page.ts';
import { type RelyingParty, startRelyingParty } from './relying-party.ts';
import type { Suite } from './suite.ts';

const UPSTREAM_PASSWORD = 'Ursula-pass-2026';

/**
 * What the upstream identity provider flows share (e2e/flows/upstream.e2e.ts): a second Tessera,
 * started on 127.0.0.1 (so that the browser keeps its cookies apart from the run's server on
 * localhost), as the identity provider of a company with one person; a relying party of the run's
 * server (the downstream) for the application the person lands in; the console's calls at both.
 */
export interface UpstreamStage {
  /** The shared developer-console page, in the administrator's company. */
  consolePage: Page;
  ui: ReturnType<typeof consolePage>;
  /** A console call at the run's server in the administrator's company, which must succeed. */
  api<T = unknown>(path: string, body: unknown): Promise<T>;
  upstream: TestContext;
  /** A console call at the upstream as its company's owner, which must succeed. */
  manage<T = unknown>(path: string, body: unknown): Promise<T>;
  /** The person of the upstream's company. */
  person: { username: string; password: string };
  rp: RelyingParty;
  /** Creates and opens the downstream company's application that `rp` signs in with. */
  openDownstreamApp(name: string): Promise<{ appId: string; clientId: string }>;
  /** Runs `visit` in a new browser without any session, and closes it. */
  inNewBrowser(visit: (page: Page) => Promise<void>): Promise<void>;
  /** Waits until the browser is at the upstream's sign-in page. */
  atUpstreamSignIn(page: Page): Promise<void>;
  /** Signs the person in at the upstream's sign-in page; answers the application's greeting. */
  signInAtUpstream(page: Page): Promise<string>;
}

/** Runs `flow` with an upstream Tessera whose company and person have these names; stops it after. */
export async function withUpstreamTessera(
  s: Suite,
  names: { company: string; person: string },
  flow: (stage: UpstreamStage) => Promise<void>,
) {
  assert.ok(s.server);
  const { page: consolePage, ui } = await s.devSession();
  // The console chooses the administrator's company once its page has loaded.
  await consolePage.waitForFunction(() => localStorage.getItem('asp_admin_company_id'));
  const companyId = await ui.companyId();
  const api = callsThatMustSucceed(ui, companyId);
  const upstream = await startTestApp({ listen: true, publicHost: '127.0.0.1' });
  const rp = await startRelyingParty(`${s.server.baseUrl}/oidc`, s.secrets);
  try {
    await grantLicense(upstream, { app: 10 });
    const upOwner = await ownerWithCompany(upstream, 'up-owner', names.company);
    s.secrets.push(UPSTREAM_PASSWORD);
    const person = await companyMember(upstream, upOwner, names.person, UPSTREAM_PASSWORD);
    const manage = async <T>(path: string, body: unknown): Promise<T> => {
      const answer = await call<T>(upstream, path, body, upOwner);
      assert.equal(answer.code, 200, `${path}: ${answer.msg}`);
      return answer.data;
    };
    const atUpstreamSignIn = (page: Page) =>
      page.waitForURL((url) => url.origin === upstream.baseUrl && url.pathname.startsWith('/interaction/'));
    await flow({
      consolePage,
      ui,
      api,
      upstream,
      manage,
      person,
      rp,
      async openDownstreamApp(name) {
        const created = await api<{ app: { appId: string; clientId: string }; clientSecret: string }>(
          '/api/v1/manage/app/create',
          { name },
        );
        s.secrets.push(created.clientSecret);
        await api('/api/v1/manage/app/update', { appId: created.app.appId, redirectUris: [rp.redirectUri] });
        await api('/api/v1/manage/app/status', { appId: created.app.appId, status: 'opened' });
        rp.configure(created.app.clientId, created.clientSecret);
        return created.app;
      },
      async inNewBrowser(visit) {
        const { context, page } = await s.openPage();
        try {
          await visit(page);
        } finally {
          await context.close();
        }
      },
      atUpstreamSignIn,
      async signInAtUpstream(page) {
        await atUpstreamSignIn(page);
        await page.locator('#identifier').fill(person.username);
        await page.locator('#password').fill(person.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.locator('#greeting').waitFor();
        return page.locator('#greeting').innerText();
      },
    });
  } finally {
    await rp.stop();
    await upstream.close();
  }
}
