import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formSubmission } from '../../../test/browser-flow.ts';
import { call } from '../../../test/harness.ts';
import { startLogoutReceiver } from '../../../test/logout-receiver.ts';
import { autoSubmitting, CALLBACK, formOf } from '../../../test/oidc-flow.ts';
import {
  deliverLogoutToken,
  downSessionsOf,
  linkedAccountId,
  type OidcSourceTesseras,
  pressSourceButton,
  signInThroughUpstream,
  startOidcSourceTesseras,
} from '../../../test/oidc-source-flow.ts';
import { TwoSiteBrowser } from '../../../test/two-site-browser.ts';
import { purgeUpstreamLogoutState } from '../upstream/upstream-sessions.repo.ts';

/**
 * Upstream logout of the OpenID Connect identity source (issue 33), against a second Tessera
 * server as the upstream provider: signing out at the downstream goes on to the upstream's
 * end_session_endpoint (id_token_hint, post_logout_redirect_uri, state) and back, and the
 * upstream's session is gone (its sign-in page is shown on the next authorization); a
 * back-channel logout token is accepted once.
 */

let two: OidcSourceTesseras;
let receiver: Awaited<ReturnType<typeof startLogoutReceiver>>;
let sourceId = '';
let postLogoutRedirectUrl = '';

beforeAll(async () => {
  receiver = await startLogoutReceiver();
  // The tokens go to a receiver first, to be delivered (and replayed) by the test.
  two = await startOidcSourceTesseras({
    registration: (source) => ({
      postLogoutRedirectUris: [source.postLogoutRedirectUrl],
      backchannelLogoutUri: `${receiver.base}/down`,
    }),
  });
  sourceId = two.source.sourceId;
  postLogoutRedirectUrl = two.source.postLogoutRedirectUrl;
  expect(postLogoutRedirectUrl).toBe(`${two.downstream.baseUrl}/portal/upstream/${sourceId}/logged-out`);
  // The downstream's application is told of its sessions' end at the receiver too.
  const told = await call(
    two.downstream,
    '/api/v1/manage/app/update',
    { appId: two.downApp.appId, backchannelLogoutUri: `${receiver.base}/app` },
    two.downOwner,
  );
  expect(told.code, told.msg).toBe(200);
});
afterAll(async () => {
  await Promise.all([two?.close(), receiver?.close()]);
});

/**
 * Signs out at the downstream application's end-session endpoint: posts its confirmation page's
 * form ("yes, sign out": the person's click) and follows until `stopAt`.
 */
async function signOutDownstream(browser: TwoSiteBrowser, stopAt: string) {
  const endSession = `${two.downstream.baseUrl}/oidc/session/end?${new URLSearchParams({ client_id: two.downApp.clientId })}`;
  const asked = await browser.follow(endSession, CALLBACK);
  const form = formOf(asked, /session\/end\/confirm/);
  return browser.follow(form.action, stopAt, formSubmission({ ...form.fields, logout: 'yes' }));
}

describe('upstream logout of the OpenID Connect identity source', () => {
  it('signing out downstream signs out at the upstream too, then ends where the sign-out would have', async () => {
    const browser = new TwoSiteBrowser();
    await signInThroughUpstream(two, browser);
    const remembered = await two.downstream.database.db
      .selectFrom('upstream_sessions')
      .select(['sso_session_uid', 'id_token_sealed', 'interaction_uid'])
      .where('source_id', '=', sourceId)
      .executeTakeFirstOrThrow();
    expect(remembered.sso_session_uid).toBeTruthy();
    expect(remembered.interaction_uid).toBeNull();
    expect(remembered.id_token_sealed).not.toMatch(/^eyJ/);
    // The upstream session is live: a second sign-in there asks nothing.
    const silent = await pressSourceButton(two, browser);
    expect(silent.stopped, 'the upstream answers at once').toBeDefined();

    const atUpstream = await signOutDownstream(browser, `${two.upstream.baseUrl}/oidc/session/end?`);
    const sent = atUpstream.stopped as URL;
    expect(sent, atUpstream.html.slice(0, 300)).toBeDefined();
    expect(sent.searchParams.get('post_logout_redirect_uri')).toBe(postLogoutRedirectUrl);
    expect(sent.searchParams.get('id_token_hint')).toMatch(/^eyJ/);
    expect(sent.searchParams.get('state')).toBeTruthy();
    expect(sent.searchParams.get('client_id')).toBe(two.upApp.clientId);
    expect(
      await two.downstream.database.db
        .selectFrom('upstream_sessions')
        .select('id')
        .where('source_id', '=', sourceId)
        .execute(),
    ).toEqual([]);

    // The downstream's ID token names the upstream session: the upstream does not ask again,
    // its page posts itself (the person confirmed once, at the downstream).
    const upstreamPage = await browser.follow(sent.href, CALLBACK);
    expect(upstreamPage.url.startsWith(two.upstream.baseUrl), upstreamPage.url).toBe(true);
    expect(upstreamPage.html).not.toContain('Do you want to sign out');
    expect(autoSubmitting(upstreamPage.html), upstreamPage.html.slice(0, 400)).toBe(true);
    const selfPosted = formOf(upstreamPage, /session\/end\/confirm/);
    const ended = await browser.follow(selfPosted.action, CALLBACK, formSubmission(selfPosted.fields));
    expect(ended.stopped).toBeUndefined();
    expect(ended.url.startsWith(two.downstream.baseUrl), ended.url).toBe(true);
    expect(ended.status).toBe(200);
    expect(ended.html).toContain('signed out');

    // Both sessions are gone: the upstream asks again who it is.
    const again = await pressSourceButton(two, browser);
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
    const off = await two.updateSource(sourceId, { signOutUpstream: false });
    expect(off.code, off.msg).toBe(200);
    try {
      const browser = new TwoSiteBrowser();
      await signInThroughUpstream(two, browser);
      const ended = await signOutDownstream(browser, `${two.upstream.baseUrl}/`);
      expect(ended.stopped, 'the browser stays at Tessera').toBeUndefined();
      expect(ended.html).toContain('signed out');
      expect(await pressSourceButton(two, browser)).toMatchObject({ stopped: expect.any(URL) });
    } finally {
      await two.updateSource(sourceId);
    }
  });

  it('accepts a back-channel logout token once; it ends the session of its sid, not the other browser’s', async () => {
    const browser = new TwoSiteBrowser();
    await signInThroughUpstream(two, browser);
    const accountId = await linkedAccountId(two);
    // The upstream's session in this browser, and the downstream session it made.
    const first = await two.downstream.database.db
      .selectFrom('upstream_sessions')
      .select(['sid', 'sso_session_uid'])
      .where('account_id', '=', accountId)
      .where('sso_session_uid', 'is not', null)
      .executeTakeFirstOrThrow();
    expect(first.sid, "the upstream's ID token names its session").toBeTruthy();
    // Alice signs in from a second browser too: another session at both.
    await signInThroughUpstream(two, new TwoSiteBrowser());
    expect(await downSessionsOf(two, accountId)).toHaveLength(2);
    receiver.received.length = 0;
    const told = await two.upstream.tessera.signOutAccountEverywhere(two.alice.id);
    expect(told.delivered).toBeGreaterThan(1);
    // The upstream's token for the first browser's session (its sub and sid).
    const token = receiver.received.find((r) => r.path === '/down' && decodeJwt(r.token).sid === first.sid)
      ?.token as string;
    expect(token).toBeTruthy();
    expect(decodeJwt(token).sub).toBeTruthy();
    const deliver = () => deliverLogoutToken(two, token);
    expect((await deliver()).status).toBe(200);
    const survivors = await downSessionsOf(two, accountId);
    expect(survivors).toHaveLength(1);
    expect(survivors[0]).not.toBe(first.sso_session_uid);
    // The application was told of the one session that ended, as by any sign-out.
    expect(receiver.received.filter((r) => r.path === '/app')).toHaveLength(1);
    await two.downstream.tessera.signOutAccountEverywhere(accountId);
    expect(await downSessionsOf(two, accountId)).toEqual([]);
    // What the provider's logout needed goes with the session (the maintenance purge).
    const remembered = () =>
      two.downstream.database.db
        .selectFrom('upstream_sessions')
        .select('id')
        .where('account_id', '=', accountId)
        .execute();
    expect(await remembered()).toHaveLength(2);
    await purgeUpstreamLogoutState(two.downstream.database.db);
    expect(await remembered()).toEqual([]);

    await signInThroughUpstream(two, new TwoSiteBrowser());
    expect(await downSessionsOf(two, accountId)).not.toEqual([]);
    const replayed = await deliver();
    expect(replayed.status).toBe(400);
    expect(await downSessionsOf(two, accountId)).not.toEqual([]);
  });
});
