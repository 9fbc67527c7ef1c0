import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { absolute, csrfOf, decodeEntities } from '../../../test/browser-flow.ts';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../../test/harness.ts';
import { startLogoutReceiver } from '../../../test/logout-receiver.ts';
import {
  authorization,
  autoSubmitting,
  CALLBACK,
  formOf,
  openedApp,
  type TestApp,
} from '../../../test/oidc-flow.ts';
import { TwoSiteBrowser } from '../../../test/two-site-browser.ts';
import { purgeUpstreamLogoutState } from '../upstream/upstream-sessions.repo.ts';

/**
 * Upstream logout of the OpenID Connect identity source (issue 33), against a second Tessera
 * server as the upstream provider: signing out at the downstream goes on to the upstream's
 * end_session_endpoint (id_token_hint, post_logout_redirect_uri, state) and back, and the
 * upstream's session is gone (its sign-in page is shown on the next authorization); a
 * back-channel logout token is accepted once.
 */

let upstream: TestContext;
let down: TestContext;
let receiver: Awaited<ReturnType<typeof startLogoutReceiver>>;
let downApp: TestApp;
let upApp: TestApp;
let sourceId = '';
let alice: { id: string; username: string; password: string };
let postLogoutRedirectUrl = '';
let downOwner: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  [upstream, down, receiver] = await Promise.all([
    startTestApp({ listen: true }),
    startTestApp({ listen: true, outboundNetworks: ['127.0.0.1/32'] }),
    startLogoutReceiver(),
  ]);
  await Promise.all([grantLicense(upstream, { app: 10 }), grantLicense(down, { app: 10 })]);
  const upOwner = await ownerWithCompany(upstream, 'up-owner', 'Upstream Corp');
  upApp = await openedApp(upstream, upOwner);
  alice = await companyMember(upstream, upOwner, 'alice');
  downOwner = await ownerWithCompany(down, 'down-owner', 'Down Corp');
  downApp = await openedApp(down, downOwner);
  const created = await call<{ sourceId: string }>(
    down,
    '/api/v1/manage/identity-source/create',
    {
      type: 'oidc',
      name: 'Corp IdP',
      issuer: `${upstream.baseUrl}/oidc`,
      clientId: upApp.clientId,
      clientSecret: upApp.clientSecret,
      firstScan: 'create',
    },
    downOwner,
  );
  expect(created.code, created.msg).toBe(200);
  sourceId = created.data.sourceId;
  const detail = await call<{ callbackUrl: string; postLogoutRedirectUrl: string }>(
    down,
    '/api/v1/manage/identity-source/detail',
    { sourceId },
    downOwner,
  );
  postLogoutRedirectUrl = detail.data.postLogoutRedirectUrl;
  expect(postLogoutRedirectUrl).toBe(`${down.baseUrl}/portal/upstream/${sourceId}/logged-out`);
  // The tokens go to a receiver first, to be delivered (and replayed) by the test.
  const registered = await call(
    upstream,
    '/api/v1/manage/app/update',
    {
      appId: upApp.appId,
      redirectUris: [detail.data.callbackUrl],
      postLogoutRedirectUris: [postLogoutRedirectUrl],
      backchannelLogoutUri: `${receiver.base}/down`,
    },
    upOwner,
  );
  expect(registered.code, registered.msg).toBe(200);
  // The downstream's application is told of its sessions' end at the receiver too.
  const told = await call(
    down,
    '/api/v1/manage/app/update',
    { appId: downApp.appId, backchannelLogoutUri: `${receiver.base}/app` },
    downOwner,
  );
  expect(told.code, told.msg).toBe(200);
});
afterAll(async () => {
  await Promise.all([upstream?.close(), down?.close(), receiver?.close()]);
});

const callbackPrefix = () => `${down.baseUrl}/portal/upstream/${sourceId}/callback`;

/** Opens the downstream application's sign-in page and presses the source's button; stops back at the callback. */
async function pressButton(browser: TwoSiteBrowser) {
  const auth = authorization(down.baseUrl, downApp.clientId, { prompt: 'login' });
  const page = await browser.follow(auth.url, CALLBACK);
  const action = new RegExp(`action="([^"]*/upstream/${sourceId})"`).exec(page.html)?.[1];
  expect(action, 'the source has a button').toBeTruthy();
  return browser.follow(absolute(page.url, decodeEntities(action as string)), callbackPrefix(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfOf(page.html) }).toString(),
  });
}

/** Signs Alice in at the downstream through the upstream, in the browser. */
async function signInThroughUpstream(browser: TwoSiteBrowser) {
  const upstreamPage = await pressButton(browser);
  expect(upstreamPage.html, 'the upstream asks who it is').toContain('name="identifier"');
  const back = await browser.follow(`${upstreamPage.url.split('?')[0]}/login`, callbackPrefix(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      csrf: csrfOf(upstreamPage.html),
      identifier: alice.username,
      password: alice.password,
    }).toString(),
  });
  expect(back.stopped, back.html.slice(0, 300)).toBeDefined();
  const landed = await browser.follow((back.stopped as URL).href, CALLBACK);
  expect(landed.stopped, landed.html.slice(0, 400)).toBeDefined();
}

/** Posts a sign-out confirmation page's form ("yes, sign out": the person's click) and follows. */
function confirmSignOut(browser: TwoSiteBrowser, page: { url: string; html: string }, stopAt: string) {
  const form = formOf(page, /session\/end\/confirm/);
  return browser.follow(form.action, stopAt, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.fields, logout: 'yes' }).toString(),
  });
}

const downSessionsOf = async (accountId: string) =>
  (
    await down.database.db
      .selectFrom('oidc_payloads')
      .select('id')
      .where('model', '=', 'Session')
      .where('account_id', '=', accountId)
      .execute()
  ).length;

describe('upstream logout of the OpenID Connect identity source', () => {
  it('signing out downstream signs out at the upstream too, then ends where the sign-out would have', async () => {
    const browser = new TwoSiteBrowser();
    await signInThroughUpstream(browser);
    const remembered = await down.database.db
      .selectFrom('upstream_sessions')
      .select(['sso_session_uid', 'id_token_sealed', 'interaction_uid'])
      .where('source_id', '=', sourceId)
      .executeTakeFirstOrThrow();
    expect(remembered.sso_session_uid).toBeTruthy();
    expect(remembered.interaction_uid).toBeNull();
    expect(remembered.id_token_sealed).not.toMatch(/^eyJ/);
    // The upstream session is live: a second sign-in there asks nothing.
    const silent = await pressButton(browser);
    expect(silent.stopped, 'the upstream answers at once').toBeDefined();

    const endSession = `${down.baseUrl}/oidc/session/end?${new URLSearchParams({ client_id: downApp.clientId })}`;
    const asked = await browser.follow(endSession, CALLBACK);
    const atUpstream = await confirmSignOut(browser, asked, `${upstream.baseUrl}/oidc/session/end?`);
    const sent = atUpstream.stopped as URL;
    expect(sent, atUpstream.html.slice(0, 300)).toBeDefined();
    expect(sent.searchParams.get('post_logout_redirect_uri')).toBe(postLogoutRedirectUrl);
    expect(sent.searchParams.get('id_token_hint')).toMatch(/^eyJ/);
    expect(sent.searchParams.get('state')).toBeTruthy();
    expect(sent.searchParams.get('client_id')).toBe(upApp.clientId);
    expect(
      await down.database.db
        .selectFrom('upstream_sessions')
        .select('id')
        .where('source_id', '=', sourceId)
        .execute(),
    ).toEqual([]);

    // The downstream's ID token names the upstream session: the upstream does not ask again,
    // its page posts itself (the person confirmed once, at the downstream).
    const upstreamPage = await browser.follow(sent.href, CALLBACK);
    expect(upstreamPage.url.startsWith(upstream.baseUrl), upstreamPage.url).toBe(true);
    expect(upstreamPage.html).not.toContain('Do you want to sign out');
    expect(autoSubmitting(upstreamPage.html), upstreamPage.html.slice(0, 400)).toBe(true);
    const selfPosted = formOf(upstreamPage, /session\/end\/confirm/);
    const ended = await browser.follow(selfPosted.action, CALLBACK, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(selfPosted.fields).toString(),
    });
    expect(ended.stopped).toBeUndefined();
    expect(ended.url.startsWith(down.baseUrl), ended.url).toBe(true);
    expect(ended.status).toBe(200);
    expect(ended.html).toContain('signed out');

    // Both sessions are gone: the upstream asks again who it is.
    const again = await pressButton(browser);
    expect(again.stopped).toBeUndefined();
    expect(again.html).toContain('name="identifier"');
    // The state was used once: coming back with it again ends nowhere else.
    const replayed = await browser.follow(
      `${postLogoutRedirectUrl}?${new URLSearchParams({ state: 'forged' })}`,
      CALLBACK,
    );
    expect(replayed.url).toBe(`${postLogoutRedirectUrl}?state=forged`);
  });

  it('ends the sign-out at Tessera when the source says not to sign out at the provider', async () => {
    const settings = {
      sourceId,
      type: 'oidc',
      name: 'Corp IdP',
      issuer: `${upstream.baseUrl}/oidc`,
      clientId: upApp.clientId,
      firstScan: 'create',
    };
    const off = await call(
      down,
      '/api/v1/manage/identity-source/update',
      { ...settings, signOutUpstream: false },
      downOwner,
    );
    expect(off.code, off.msg).toBe(200);
    try {
      const browser = new TwoSiteBrowser();
      await signInThroughUpstream(browser);
      const endSession = `${down.baseUrl}/oidc/session/end?${new URLSearchParams({ client_id: downApp.clientId })}`;
      const asked = await browser.follow(endSession, CALLBACK);
      const ended = await confirmSignOut(browser, asked, `${upstream.baseUrl}/`);
      expect(ended.stopped, 'the browser stays at Tessera').toBeUndefined();
      expect(ended.html).toContain('signed out');
      expect(await pressButton(browser)).toMatchObject({ stopped: expect.any(URL) });
    } finally {
      await call(down, '/api/v1/manage/identity-source/update', settings, downOwner);
    }
  });

  it('accepts a back-channel logout token once; it ends the session of its sid, not the other browser’s', async () => {
    const browser = new TwoSiteBrowser();
    await signInThroughUpstream(browser);
    const link = await down.database.db
      .selectFrom('identity_links')
      .select('account_id')
      .where('source_id', '=', sourceId)
      .executeTakeFirstOrThrow();
    // The upstream's session in this browser, and the downstream session it made.
    const first = await down.database.db
      .selectFrom('upstream_sessions')
      .select(['sid', 'sso_session_uid'])
      .where('account_id', '=', link.account_id)
      .where('sso_session_uid', 'is not', null)
      .executeTakeFirstOrThrow();
    expect(first.sid, "the upstream's ID token names its session").toBeTruthy();
    // Alice signs in from a second browser too: another session at both.
    await signInThroughUpstream(new TwoSiteBrowser());
    expect(await downSessionsOf(link.account_id)).toBe(2);
    receiver.received.length = 0;
    const told = await upstream.tessera.signOutAccountEverywhere(alice.id);
    expect(told.delivered).toBeGreaterThan(1);
    // The upstream's token for the first browser's session (its sub and sid).
    const token = receiver.received.find((r) => r.path === '/down' && decodeJwt(r.token).sid === first.sid)
      ?.token as string;
    expect(token).toBeTruthy();
    expect(decodeJwt(token).sub).toBeTruthy();
    const deliver = () =>
      fetch(`${down.baseUrl}/portal/upstream/${sourceId}/backchannel-logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: token }).toString(),
      });
    expect((await deliver()).status).toBe(200);
    const survivors = await down.database.db
      .selectFrom('oidc_payloads')
      .select('uid')
      .where('model', '=', 'Session')
      .where('account_id', '=', link.account_id)
      .execute();
    expect(survivors).toHaveLength(1);
    expect(survivors[0]?.uid).not.toBe(first.sso_session_uid);
    // The application was told of the one session that ended, as by any sign-out.
    expect(receiver.received.filter((r) => r.path === '/app')).toHaveLength(1);
    await down.tessera.signOutAccountEverywhere(link.account_id);
    expect(await downSessionsOf(link.account_id)).toBe(0);
    // What the provider's logout needed goes with the session (the maintenance purge).
    const remembered = () =>
      down.database.db
        .selectFrom('upstream_sessions')
        .select('id')
        .where('account_id', '=', link.account_id)
        .execute();
    expect(await remembered()).toHaveLength(2);
    await purgeUpstreamLogoutState(down.database.db);
    expect(await remembered()).toEqual([]);

    await signInThroughUpstream(new TwoSiteBrowser());
    expect(await downSessionsOf(link.account_id)).toBeGreaterThan(0);
    const replayed = await deliver();
    expect(replayed.status).toBe(400);
    expect(await downSessionsOf(link.account_id)).toBeGreaterThan(0);
  });
});
