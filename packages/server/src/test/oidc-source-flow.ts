import { expect } from 'vitest';
import { absolute, csrfOf, decodeEntities, formSubmission } from './browser-flow.ts';
import { call } from './harness.ts';
import { authorization, CALLBACK, openedApp, type TestApp } from './oidc-flow.ts';
import { TwoSiteBrowser } from './two-site-browser.ts';
import { startUpstreamAndDownstream, type UpstreamAndDownstream } from './two-tesseras.ts';

/**
 * Two Tessera servers for the OpenID Connect identity source tests (issue 33): the upstream, a
 * Tessera as the company's OpenID provider, with a person (Alice) and an application for the
 * downstream; the downstream, with an application and an OpenID Connect source ("Corp IdP")
 * made of the upstream's application, registered there by its callback.
 */

/** A source as the console's create and update calls answer it. */
export interface CreatedOidcSource {
  sourceId: string;
  callbackUrl: string;
  jwksUrl: string;
  backchannelLogoutUrl: string;
  postLogoutRedirectUrl: string;
}

export interface OidcSourceTesseras extends UpstreamAndDownstream {
  /** The upstream's application for the downstream (the source's client). */
  upApp: TestApp;
  /** The downstream's application people sign in to. */
  downApp: TestApp;
  /** The downstream's source trusting the upstream ("Corp IdP"). */
  source: CreatedOidcSource;
  /** Adds another OpenID Connect source at the downstream with these settings. */
  createSource(settings: Record<string, unknown>): Promise<CreatedOidcSource>;
  /**
   * Saves a source's settings as it was created with, and `change` (an omitted secret is kept):
   * with no change, puts back what a test changed.
   */
  updateSource(
    sourceId: string,
    change?: Record<string, unknown>,
  ): ReturnType<typeof call<CreatedOidcSource>>;
}

export async function startOidcSourceTesseras(options: {
  /** Settings of the source besides its name, the upstream's issuer and client. */
  source?: Record<string, unknown>;
  /** What the upstream's application is told besides the source's callback (its logout URIs). */
  registration(source: CreatedOidcSource): Record<string, unknown>;
}): Promise<OidcSourceTesseras> {
  const two = await startUpstreamAndDownstream({
    emailDomain: 'corp.example',
    // Only 127.0.0.1 is reachable from the downstream (the upstreams listen there): [::1] is refused.
    downstream: { outboundNetworks: ['127.0.0.1/32'] },
  });
  const { upstream, downstream, upOwner, downOwner } = two;
  const [upApp, downApp] = await Promise.all([
    openedApp(upstream, upOwner),
    openedApp(downstream, downOwner),
  ]);

  const createdWith = new Map<string, Record<string, unknown>>();
  async function createSource(settings: Record<string, unknown>) {
    const created = await call<CreatedOidcSource>(
      downstream,
      '/api/v1/manage/identity-source/create',
      { type: 'oidc', ...settings },
      downOwner,
    );
    expect(created.code, created.msg).toBe(200);
    const { clientSecret: _secret, ...kept } = settings;
    createdWith.set(created.data.sourceId, { type: 'oidc', ...kept });
    return created.data;
  }
  const source = await createSource({
    name: 'Corp IdP',
    issuer: `${upstream.baseUrl}/oidc`,
    clientId: upApp.clientId,
    clientSecret: upApp.clientSecret,
    firstScan: 'create',
    ...options.source,
  });
  const registered = await call(
    upstream,
    '/api/v1/manage/app/update',
    { appId: upApp.appId, redirectUris: [source.callbackUrl], ...options.registration(source) },
    upOwner,
  );
  expect(registered.code, registered.msg).toBe(200);
  return {
    ...two,
    upApp,
    downApp,
    source,
    createSource,
    updateSource: (sourceId, change = {}) =>
      call<CreatedOidcSource>(
        downstream,
        '/api/v1/manage/identity-source/update',
        { ...createdWith.get(sourceId), sourceId, ...change },
        downOwner,
      ),
  };
}

/** Where the upstream sends the browser back to the downstream for the source. */
export const callbackPrefix = (two: OidcSourceTesseras, sourceId = two.source.sourceId) =>
  `${two.downstream.baseUrl}/portal/upstream/${sourceId}/callback`;

/** The downstream application's sign-in page, in a fresh browser unless one is given. */
export async function signInPage(two: OidcSourceTesseras, browser = new TwoSiteBrowser()) {
  const auth = authorization(two.downstream.baseUrl, two.downApp.clientId, { prompt: 'login' });
  const page = await browser.follow(auth.url, CALLBACK);
  expect(page.html).toContain('name="identifier"');
  return { browser, auth, page };
}

/** Presses the button of source `id` on the sign-in page; follows until `stopAt`. */
export function pressButton(at: Awaited<ReturnType<typeof signInPage>>, id: string, stopAt: string) {
  const action = new RegExp(`action="([^"]*/upstream/${id})"`).exec(at.page.html)?.[1];
  expect(action, 'the source has a button').toBeTruthy();
  return at.browser.follow(
    absolute(at.page.url, decodeEntities(action as string)),
    stopAt,
    formSubmission({ csrf: csrfOf(at.page.html) }),
  );
}

/** Opens the downstream's sign-in page in `browser`, presses the source's button and follows. */
export async function pressSourceButton(two: OidcSourceTesseras, browser: TwoSiteBrowser) {
  return pressButton(await signInPage(two, browser), two.source.sourceId, callbackPrefix(two));
}

/** Posts a sign-in page's form with these fields (and its CSRF token); follows until `stopAt`. */
export function postSignIn(
  browser: TwoSiteBrowser,
  page: { url: string; html: string },
  fields: { identifier: string; password: string },
  stopAt: string,
) {
  return browser.follow(
    `${page.url.split('?')[0]}/login`,
    stopAt,
    formSubmission({ csrf: csrfOf(page.html), ...fields }),
  );
}

/** Signs Alice in at the upstream's own sign-in page; stops where the upstream sends the browser back. */
export const signInUpstream = (
  two: OidcSourceTesseras,
  browser: TwoSiteBrowser,
  page: { url: string; html: string },
) =>
  postSignIn(
    browser,
    page,
    { identifier: two.alice.username, password: two.alice.password },
    callbackPrefix(two),
  );

/** Signs Alice in at the downstream through the upstream, in `browser`. */
export async function signInThroughUpstream(two: OidcSourceTesseras, browser: TwoSiteBrowser) {
  const upstreamPage = await pressSourceButton(two, browser);
  expect(upstreamPage.html, 'the upstream asks who it is').toContain('name="identifier"');
  const back = await signInUpstream(two, browser, upstreamPage);
  expect(back.stopped, back.html.slice(0, 300)).toBeDefined();
  const landed = await browser.follow((back.stopped as URL).href, CALLBACK);
  expect(landed.stopped, landed.html.slice(0, 400)).toBeDefined();
}

/** Posts a logout token to a source's back-channel logout endpoint at the downstream. */
export const deliverLogoutToken = (two: OidcSourceTesseras, token: string, sourceId = two.source.sourceId) =>
  fetch(
    `${two.downstream.baseUrl}/portal/upstream/${sourceId}/backchannel-logout`,
    formSubmission({ logout_token: token }),
  );

/** The downstream account the source's first sign-in made (Alice's). */
export async function linkedAccountId(two: OidcSourceTesseras) {
  const link = await two.downstream.database.db
    .selectFrom('identity_links')
    .select('account_id')
    .where('source_id', '=', two.source.sourceId)
    .executeTakeFirstOrThrow();
  return link.account_id;
}

/** The uids of an account's single sign-on sessions at the downstream. */
export async function downSessionsOf(two: OidcSourceTesseras, accountId: string) {
  const rows = await two.downstream.database.db
    .selectFrom('oidc_payloads')
    .select('uid')
    .where('model', '=', 'Session')
    .where('account_id', '=', accountId)
    .execute();
  return rows.map((row) => row.uid);
}
