import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { companyMember, type ownerWithCompany, type TestContext } from '../../test/harness.ts';
import {
  authorization,
  CookieJar,
  claimsOf,
  errorOf,
  go,
  type Landing,
  openedApp,
  redeem,
  signInOnPage,
  startWithCompany,
  submit,
  type TestApp,
} from '../../test/oidc-flow.ts';
import { pairwiseSubject } from './subject.ts';

/**
 * The `prompt` parameter (OIDC Core §3.1.2.1) and its companions max_age, login_hint,
 * ui_locales and id_token_hint, driven over HTTP as a browser. Regression of issue 13: a
 * requested `consent` prompt bounced between the interaction and the authorization endpoint
 * until the request expired; every combination must end.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let alice: { id: string; username: string; password: string };
let bob: { id: string; username: string; password: string };
let selfBuilt: TestApp;
let thirdParty: TestApp;
const subOf = (accountId: string) => pairwiseSubject(createSealer(ctx.masterKey))(owner.companyId, accountId);

beforeAll(async () => {
  ({ ctx, owner: owner } = await startWithCompany('promptowner'));
  alice = await companyMember(ctx, owner, 'alice');
  bob = await companyMember(ctx, owner, 'bob');
  selfBuilt = await openedApp(ctx, owner);
  thirdParty = await openedApp(
    ctx,
    owner,
    { requirePkce: true, tokenAuthMethod: 'client_secret_basic', askConsent: true },
    { name: 'Grafana', type: 'third_party', template: 'grafana', baseUrl: 'https://grafana.example.com' },
  );
});
afterAll(() => ctx.close());

/** A browser with a single sign-on session of `user` (signed in through the self-built app). */
async function signedInBrowser(user = alice) {
  const jar = new CookieJar();
  const first = await go(jar, authorization(ctx.baseUrl, selfBuilt.clientId).url);
  const landing = await signInOnPage(jar, first.page!, user);
  expect(landing.callback?.searchParams.get('code')).toBeTruthy();
  return jar;
}

/**
 * Answers every page like a willing person (password, consent, "continue as") until the browser
 * is back at the application; fails if that takes more than a few pages (a loop).
 */
async function drive(jar: CookieJar, start: Landing, user = alice) {
  let landing = start;
  const seen: string[] = [];
  for (let step = 0; step < 6 && landing.page; step++) {
    const page = landing.page;
    if (page.html.includes('name="identifier"')) {
      seen.push('sign-in');
      landing = await signInOnPage(jar, page, user);
    } else if (page.html.includes('name="decision"')) {
      seen.push('consent');
      landing = await submit(jar, page, /\/consent$/, { decision: 'allow' });
    } else if (page.html.includes('name="account"')) {
      seen.push('select-account');
      landing = await submit(jar, page, /\/select-account$/, { account: 'current' });
    } else {
      throw new Error(`unexpected page ${page.status} ${page.url}: ${page.html.slice(0, 300)}`);
    }
  }
  expect(landing.callback, `ended at the application after ${seen.join(', ')}`).toBeTruthy();
  return { callback: landing.callback as URL, seen };
}

describe('prompt', () => {
  it('none without a session answers login_required to the app, with state and iss (RFC 9207)', async () => {
    const auth = authorization(ctx.baseUrl, selfBuilt.clientId, { prompt: 'none' });
    const landing = await go(new CookieJar(), auth.url);
    expect(errorOf(landing)).toBe('login_required');
    expect(landing.callback?.searchParams.get('state')).toBe(auth.state);
    expect(landing.callback?.searchParams.get('iss')).toBe(`${ctx.baseUrl}/oidc`);
  });

  it('none with a session signs in silently, and asks consent_required of a third-party app not allowed yet', async () => {
    const jar = await signedInBrowser();
    const silent = await go(jar, authorization(ctx.baseUrl, selfBuilt.clientId, { prompt: 'none' }).url);
    expect(silent.callback?.searchParams.get('code')).toBeTruthy();
    const needsConsent = await go(
      jar,
      authorization(ctx.baseUrl, thirdParty.clientId, { prompt: 'none' }).url,
    );
    expect(errorOf(needsConsent)).toBe('consent_required');
  });

  it('login asks for the password again even with a session, and the ID token has the new auth_time', async () => {
    const jar = await signedInBrowser();
    const before = Math.floor(Date.now() / 1000);
    const auth = authorization(ctx.baseUrl, selfBuilt.clientId, { prompt: 'login' });
    const first = await go(jar, auth.url);
    expect(first.page?.html).toContain('name="password"');
    const landing = await signInOnPage(jar, first.page!, alice);
    const tokens = await redeem(ctx.baseUrl, selfBuilt, auth, landing);
    expect(Number(claimsOf(tokens.id_token).auth_time)).toBeGreaterThanOrEqual(before);
  });

  it('consent shows the consent page to a self-built app and ends with a code (issue 13)', async () => {
    const jar = await signedInBrowser();
    const auth = authorization(ctx.baseUrl, selfBuilt.clientId, {
      prompt: 'consent',
      scope: 'openid profile offline_access',
    });
    const page = await go(jar, auth.url);
    expect(page.page?.html).toContain('Allow access');
    expect(page.page?.html).toContain('Keep this access while you are not using it');
    const landing = await submit(jar, page.page!, /\/consent$/, { decision: 'allow' });
    const tokens = await redeem(ctx.baseUrl, selfBuilt, auth, landing);
    expect(tokens.refresh_token).toBeTruthy();
  });

  it('consent declined answers access_denied to the app', async () => {
    const jar = await signedInBrowser();
    const page = await go(jar, authorization(ctx.baseUrl, selfBuilt.clientId, { prompt: 'consent' }).url);
    const landing = await submit(jar, page.page!, /\/consent$/, { decision: 'deny' });
    expect(errorOf(landing)).toBe('access_denied');
  });

  it("consent for Tessera's own console is recorded without a page, with the refresh token it relies on", async () => {
    const jar = await signedInBrowser();
    const redirectUri = `${ctx.baseUrl}/dev/`;
    const auth = authorization(
      ctx.baseUrl,
      'tessera-console-dev',
      { prompt: 'consent', scope: 'openid profile email offline_access' },
      redirectUri,
    );
    const landing = await go(jar, auth.url, redirectUri);
    expect(landing.callback?.searchParams.get('code')).toBeTruthy();
  });

  it('select_account lets the person continue, or sign in as someone else (the other session ends)', async () => {
    const jar = await signedInBrowser();
    const chooser = await go(
      jar,
      authorization(ctx.baseUrl, selfBuilt.clientId, { prompt: 'select_account' }).url,
    );
    expect(chooser.page?.html).toContain('Continue as alice');
    const same = await submit(jar, chooser.page!, /\/select-account$/, { account: 'current' });
    expect(same.callback?.searchParams.get('code')).toBeTruthy();

    const sessionsOf = async (accountId: string) =>
      (
        await ctx.database.db
          .selectFrom('oidc_payloads')
          .select('payload')
          .where('model', '=', 'Session')
          .execute()
      ).filter((row) => (row.payload as { accountId?: string }).accountId === accountId).length;
    const aliceSessions = await sessionsOf(alice.id);
    const auth = authorization(ctx.baseUrl, selfBuilt.clientId, { prompt: 'select_account' });
    const again = await go(jar, auth.url);
    const form = await submit(jar, again.page!, /\/select-account$/, { account: 'other' });
    expect(form.page?.html).toContain('name="identifier"');
    const landing = await signInOnPage(jar, form.page!, bob);
    const tokens = await redeem(ctx.baseUrl, selfBuilt, auth, landing);
    expect(claimsOf(tokens.id_token).sub).toBe(subOf(bob.id));
    expect(await sessionsOf(alice.id)).toBe(aliceSessions - 1);
  });

  it('select_account without a session goes straight to the sign-in page', async () => {
    const first = await go(
      new CookieJar(),
      authorization(ctx.baseUrl, selfBuilt.clientId, { prompt: 'select_account' }).url,
    );
    expect(first.page?.html).toContain('name="identifier"');
    expect(first.page?.html).not.toContain('name="account"');
  });

  it('refuses none together with another value', async () => {
    const landing = await go(
      new CookieJar(),
      authorization(ctx.baseUrl, selfBuilt.clientId, { prompt: 'none login' }).url,
    );
    expect(errorOf(landing)).toBe('invalid_request');
  });

  it.each([
    ['login'],
    ['consent'],
    ['select_account'],
    ['login consent'],
    ['consent select_account'],
    ['login select_account'],
    ['login consent select_account'],
  ])(
    'ends with a code for prompt=%s, with and without a session, for self-built and third-party apps',
    async (prompt) => {
      for (const app of [selfBuilt, thirdParty]) {
        for (const withSession of [false, true]) {
          const jar = withSession ? await signedInBrowser() : new CookieJar();
          const auth = authorization(ctx.baseUrl, app.clientId, { prompt });
          const { callback } = await drive(jar, await go(jar, auth.url));
          expect(callback.searchParams.get('code'), `${prompt} ${withSession}`).toBeTruthy();
        }
      }
    },
  );
});

describe('the other parameters of the sign-in', () => {
  it('max_age=0 asks for the password even with a session, and the ID token carries auth_time', async () => {
    const jar = await signedInBrowser();
    const auth = authorization(ctx.baseUrl, selfBuilt.clientId, { max_age: '0' });
    const first = await go(jar, auth.url);
    expect(first.page?.html).toContain('name="password"');
    const landing = await signInOnPage(jar, first.page!, alice);
    const tokens = await redeem(ctx.baseUrl, selfBuilt, auth, landing);
    expect(claimsOf(tokens.id_token).auth_time).toEqual(expect.any(Number));
  });

  it('login_hint fills in the account on the sign-in page', async () => {
    const first = await go(
      new CookieJar(),
      authorization(ctx.baseUrl, selfBuilt.clientId, { login_hint: 'alice' }).url,
    );
    expect(first.page?.html).toMatch(/id="identifier"[^>]*value="alice"/);
  });

  it('ui_locales chooses the language of the pages, unless the person chose one', async () => {
    const zh = await go(
      new CookieJar(),
      authorization(ctx.baseUrl, selfBuilt.clientId, { ui_locales: 'zh-CN en' }).url,
    );
    expect(zh.page?.html).toContain('lang="zh-CN"');
    const chosen = new CookieJar();
    chosen.cookies.set('lang', 'en');
    const en = await go(chosen, authorization(ctx.baseUrl, selfBuilt.clientId, { ui_locales: 'zh-CN' }).url);
    expect(en.page?.html).toContain('lang="en"');
  });

  it('id_token_hint of someone else: signing in as another person answers login_required, never a loop', async () => {
    const jar = new CookieJar();
    const auth = authorization(ctx.baseUrl, selfBuilt.clientId);
    const start = await go(jar, auth.url);
    const landing = await signInOnPage(jar, start.page!, bob);
    const bobTokens = await redeem(ctx.baseUrl, selfBuilt, auth, landing);

    const aliceJar = await signedInBrowser(alice);
    const hinted = await go(
      aliceJar,
      authorization(ctx.baseUrl, selfBuilt.clientId, { id_token_hint: bobTokens.id_token! }).url,
    );
    expect(hinted.page?.html).toContain('name="password"');
    const wrong = await signInOnPage(aliceJar, hinted.page!, alice);
    expect(errorOf(wrong)).toBe('login_required');
  });
});
