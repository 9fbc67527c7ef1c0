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

/** A sign-out request of an application without an ID token. */
const bareEndSession = (clientId: string) =>
  `${ctx.baseUrl}/oidc/session/end?${new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: LOGOUT_RETURN })}`;

const CONFIRM = () => `${ctx.baseUrl}/oidc/session/end/confirm`;
const ASKS = 'Do you want to sign out of Tessera?';

describe("the confirmation of an application's sign-out request", () => {
  it('is not asked when the ID token names this session: the page posts itself and the person is signed out', async () => {
    const app = await openedApp(ctx, owner);
    const person = await companyMember(ctx, owner, 'hanna');
    const { jar, idTokens } = await signedInTo([app], person);
    const first = await fetch(endSession(idTokens[0]!), {
      headers: { cookie: jar.header() },
      redirect: 'manual',
    });
    jar.store(first);
    const html = await first.text();
    expect(first.status).toBe(200);
    expect(html).not.toContain(ASKS);
    // Nothing to click: no "Yes"/"No" buttons, a form that posts itself with the answer in it
    // (form-launch.js, a file the page's CSP allows; without script, one Continue button).
    expect(html).not.toMatch(/<button[^>]*name="logout"/);
    expect(html).not.toContain('Yes, sign me out');
    expect(html).toMatch(/<form method="post" action="[^"]*\/session\/end\/confirm"[^>]*data-auto-submit>/);
    expect(html).toContain('<input type="hidden" name="logout" value="yes">');
    expect(html).toMatch(/<script src="\/[^"]*form-launch\.js" defer><\/script>/);
    expect(first.headers.get('content-security-policy')).toContain("script-src 'self'");
    const form = formOf({ url: endSession(idTokens[0]!), html }, /session\/end\/confirm/);
    expect(form.fields).toMatchObject({ logout: 'yes' });
    const landing = await go(jar, form.action, LOGOUT_RETURN, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form.fields).toString(),
    });
    expect(landing.callback?.searchParams.get('state')).toBe('bye');
    // The session is gone: a request without an ID token finds nobody signed in.
    const after = await go(jar, bareEndSession(app.clientId), LOGOUT_RETURN);
    expect(after.page?.html).toContain('You are not signed in to Tessera.');
  });

  it('is asked without an ID token, and for the ID token of another person or another session', async () => {
    const app = await openedApp(ctx, owner);
    const person = await companyMember(ctx, owner, 'ida');
    const other = await companyMember(ctx, owner, 'jakob');
    const { jar, idTokens } = await signedInTo([app], person);
    const elsewhere = await signedInTo([app], person);
    const someoneElse = await signedInTo([app], other);
    for (const url of [
      bareEndSession(app.clientId),
      endSession(someoneElse.idTokens[0]!),
      endSession(elsewhere.idTokens[0]!),
    ]) {
      const page = await go(jar, url, LOGOUT_RETURN);
      expect(page.page?.html).toContain(ASKS);
      expect(page.page?.html).not.toContain('data-auto-submit');
    }
    // Still signed in: the ID token of this session signs out at once.
    const landing = await go(jar, endSession(idTokens[0]!), LOGOUT_RETURN);
    expect(landing.callback?.searchParams.get('state')).toBe('bye');
  });
});

describe('back-channel logout', () => {
  it('posts a signed logout token with the session id to every app of the session, before answering', async () => {
    const first = await openedApp(ctx, owner, { backchannelLogoutUri: `${receiver.base}/first` });
    const second = await openedApp(ctx, owner, { backchannelLogoutUri: `${receiver.base}/second` });
    const person = await companyMember(ctx, owner, 'bernd');
    const { jar, idTokens } = await signedInTo([first, second], person);
    receiver.received.length = 0;
    // The app's ID token names this session: the sign-out goes through without a question.
    const landing = await go(jar, endSession(idTokens[0]!), LOGOUT_RETURN);
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
    const started = Date.now();
    const landing = await go(jar, endSession(idTokens[0]!), LOGOUT_RETURN);
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
    // The sign-out page posts itself (the ID token names the session); its post is answered
    // with the frames page instead of the redirect.
    const posted = await go(jar, endSession(idTokens[0]!), CONFIRM());
    expect(posted.posted).toBe(true);
    const response = await fetch(CONFIRM(), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      body: posted.callback!.searchParams.toString(),
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
    const page = await go(jar, bareEndSession(app.clientId), LOGOUT_RETURN);
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
