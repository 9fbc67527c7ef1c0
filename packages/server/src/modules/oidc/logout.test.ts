import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { companyMember, type ownerWithCompany, type TestContext } from '../../test/harness.ts';
import {
  signedInTo as signedInToApps,
  startLogoutReceiver,
  verifiedLogoutToken,
} from '../../test/logout-receiver.ts';
import {
  CookieJar,
  claimsOf,
  formOf,
  go,
  LOGOUT_RETURN,
  openedApp,
  startWithCompany,
  submit,
  type TestApp,
} from '../../test/oidc-flow.ts';

/**
 * Logout to applications: RP-initiated logout (with and without a session), Back-Channel Logout
 * 1.0 (signed logout tokens with `sid`, sent before the answer), Front-Channel Logout 1.0 (the
 * sign-out page loads the apps' URIs in frames, under a CSP that allows exactly those). An
 * administrator's action that signs a person out: account-sign-out.test.ts.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let receiver: Awaited<ReturnType<typeof startLogoutReceiver>>;

beforeAll(async () => {
  ({ ctx, owner: owner } = await startWithCompany('logoutowner'));
  receiver = await startLogoutReceiver();
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
});

const signedInTo = (apps: TestApp[], person: { username: string; password: string }) =>
  signedInToApps(ctx.baseUrl, apps, person);

const endSession = (idToken: string, extra: Record<string, string> = {}) =>
  `${ctx.baseUrl}/oidc/session/end?${new URLSearchParams({
    id_token_hint: idToken,
    post_logout_redirect_uri: LOGOUT_RETURN,
    state: 'bye',
    ...extra,
  })}`;

describe('back-channel logout', () => {
  it('posts a signed logout token with the session id to every app of the session, before answering', async () => {
    const first = await openedApp(ctx, owner, { backchannelLogoutUri: `${receiver.base}/first` });
    const second = await openedApp(ctx, owner, { backchannelLogoutUri: `${receiver.base}/second` });
    const person = await companyMember(ctx, owner, 'bernd');
    const { jar, idTokens } = await signedInTo([first, second], person);
    const page = await go(jar, endSession(idTokens[0]!));
    expect(page.page?.html).toContain('Do you want to sign out of Tessera?');
    receiver.received.length = 0;
    const landing = await submit(jar, page.page!, /session\/end\/confirm/, { logout: 'yes' }, LOGOUT_RETURN);
    const answeredAt = Date.now();
    expect(landing.callback?.searchParams.get('state')).toBe('bye');
    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/first', '/second']);
    expect(receiver.received.every((r) => r.at <= answeredAt)).toBe(true);

    for (const [index, app] of [first, second].entries()) {
      const delivery = receiver.received.find((r) => r.path === (index === 0 ? '/first' : '/second'))!;
      const payload = await verifiedLogoutToken(ctx.baseUrl, delivery.token, app.clientId);
      const idToken = claimsOf(idTokens[index]);
      expect(payload.sub).toBe(idToken.sub);
      expect(payload.sid).toBe(idToken.sid);
    }
  });

  it('goes on when an app fails or does not answer, and logs the failure without the token', async () => {
    const broken = await openedApp(ctx, owner, { backchannelLogoutUri: `${receiver.base}/broken?secret=1` });
    const silent = await openedApp(ctx, owner, { backchannelLogoutUri: `${receiver.base}/hang` });
    const person = await companyMember(ctx, owner, 'fritz');
    const { jar, idTokens } = await signedInTo([broken, silent], person);
    const warn = vi.spyOn(ctx.tessera.app.log, 'warn');
    const page = await go(jar, endSession(idTokens[0]!));
    const started = Date.now();
    const landing = await submit(jar, page.page!, /session\/end\/confirm/, { logout: 'yes' }, LOGOUT_RETURN);
    expect(landing.callback).toBeTruthy();
    expect(Date.now() - started).toBeLessThan(10_000);
    const logged = warn.mock.calls.filter((call) => call[1] === 'back-channel logout failed');
    warn.mockRestore();
    expect(logged.map((call) => (call[0] as { clientId: string }).clientId).sort()).toEqual(
      [broken.clientId, silent.clientId].sort(),
    );
    const text = JSON.stringify(logged);
    expect(text).toContain(`${receiver.base}/broken`);
    expect(text).not.toContain('secret=1');
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  });
});

describe('front-channel logout', () => {
  it('loads the app logout URI with iss and sid in a frame, allowed by the page CSP, then goes on', async () => {
    const app = await openedApp(ctx, owner, {
      frontchannelLogoutUri: 'http://localhost:7002/frontchannel?x=1',
    });
    const person = await companyMember(ctx, owner, 'frieda');
    const { jar, idTokens } = await signedInTo([app], person);
    const page = await go(jar, endSession(idTokens[0]!));
    // The confirmation is answered with the frames page instead of the redirect.
    const form = formOf(page.page!, /session\/end\/confirm/);
    const response = await fetch(form.action, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      body: new URLSearchParams({ ...form.fields, logout: 'yes' }).toString(),
    });
    expect(response.status).toBe(200);
    const html = await response.text();
    const frame = new URL(/data-frame="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&'));
    expect(frame.origin).toBe('http://localhost:7002');
    expect(frame.searchParams.get('x')).toBe('1');
    expect(frame.searchParams.get('iss')).toBe(`${ctx.baseUrl}/oidc`);
    expect(frame.searchParams.get('sid')).toBe(claimsOf(idTokens[0]).sid);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/frame-src http:\/\/localhost:7002(;|$)/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(html).toContain(`href="${LOGOUT_RETURN}?state=bye"`);
  });
});

describe('a sign-out request without a session', () => {
  it('asks before sending the browser to the app, unless the request carries an ID token', async () => {
    const app = await openedApp(ctx, owner);
    const jar = new CookieJar();
    const bare = `${ctx.baseUrl}/oidc/session/end?${new URLSearchParams({
      client_id: app.clientId,
      post_logout_redirect_uri: LOGOUT_RETURN,
    })}`;
    const page = await go(jar, bare, LOGOUT_RETURN);
    expect(page.callback).toBeUndefined();
    expect(page.page?.html).toContain('You are not signed in to Tessera.');
    expect(page.page?.html).toContain('localhost:7001');
    const confirmed = await submit(jar, page.page!, /session\/end\/confirm/, {}, LOGOUT_RETURN);
    expect(confirmed.callback?.origin).toBe('http://localhost:7001');

    const person = await companyMember(ctx, owner, 'otto');
    const { idTokens } = await signedInTo([app], person);
    const hinted = await go(new CookieJar(), endSession(idTokens[0]!), LOGOUT_RETURN);
    expect(hinted.callback?.searchParams.get('state')).toBe('bye');
  });
});
