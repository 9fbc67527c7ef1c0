import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, companyMember, type ownerWithCompany, type TestContext } from '../../test/harness.ts';
import {
  authorization,
  CookieJar,
  claimsOf,
  errorOf,
  go,
  openedApp,
  redeem,
  signInFresh,
  startWithCompany,
  submit,
  type TestApp,
} from '../../test/oidc-flow.ts';

/**
 * Consent: the company decides who may use an app; an app the administrator marks as asking for
 * consent (one run by another organisation) asks each person once for what it reads
 * (remembered per person and app); the apps a company adds, catalogue and self-built alike, and
 * Tessera's own clients never unless the app sends prompt=consent; a native app confirms a
 * reused session, and the `claims` parameter cannot reach past the scopes an app is allowed.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let thirdParty: TestApp;
const grafana = {
  name: 'Grafana',
  type: 'third_party',
  template: 'grafana',
  baseUrl: 'https://grafana.example.com',
};

beforeAll(async () => {
  ({ ctx, owner: owner } = await startWithCompany('consentowner', 'Consent Works'));
  thirdParty = await openedApp(
    ctx,
    owner,
    { tokenAuthMethod: 'client_secret_basic', askConsent: true },
    grafana,
  );
});
afterAll(() => ctx.close());

const consents = (accountId: string) =>
  ctx.database.db
    .selectFrom('app_consents')
    .select(['scopes', 'claims'])
    .where('account_id', '=', accountId)
    .execute();

describe('a catalogue application the company added (issue 35)', () => {
  it('asks no one for consent unless the application sends prompt=consent', async () => {
    const added = await openedApp(ctx, owner, { tokenAuthMethod: 'client_secret_basic' }, grafana);
    const detail = await call<{ askConsent: boolean }>(
      ctx,
      '/api/v1/manage/app/detail',
      { appId: added.appId },
      { token: owner.token, companyId: owner.companyId },
    );
    expect(detail.data.askConsent).toBe(false);
    const person = await companyMember(ctx, owner, 'gita');
    const { jar, auth, landing } = await signInFresh(ctx.baseUrl, added.clientId, person);
    expect(landing.page).toBeUndefined();
    const tokens = await redeem(ctx.baseUrl, added, auth, landing);
    expect(claimsOf(tokens.id_token).preferred_username).toBe('gita');
    expect(await consents(person.id)).toEqual([]);
    // The application may still ask for the page.
    const asked = await go(jar, authorization(ctx.baseUrl, added.clientId, { prompt: 'consent' }).url);
    expect(asked.page?.html).toContain('Grafana asks to use your Tessera account gita');
  });
});

describe('an application that asks each person for consent', () => {
  it('asks once, naming the app, its company and what it reads; the answer is remembered', async () => {
    const person = await companyMember(ctx, owner, 'paula');
    const { jar, auth, landing } = await signInFresh(ctx.baseUrl, thirdParty.clientId, person);
    const page = landing.page!;
    expect(page.html).toContain('Grafana asks to use your Tessera account paula');
    expect(page.html).toContain('Added by Consent Works');
    expect(page.html).toContain('See your name and username');
    expect(page.html).toContain('See your email address');
    const allowed = await submit(jar, page, /\/consent$/, { decision: 'allow' });
    const tokens = await redeem(ctx.baseUrl, thirdParty, auth, allowed);
    expect(claimsOf(tokens.id_token).email).toBeUndefined();
    expect(claimsOf(tokens.id_token).preferred_username).toBe('paula');
    expect(await consents(person.id)).toEqual([{ scopes: ['openid', 'profile', 'email'], claims: [] }]);

    // Another browser, another session: no page for what was allowed.
    const again = await signInFresh(ctx.baseUrl, thirdParty.clientId, person);
    expect(again.landing.callback?.searchParams.get('code')).toBeTruthy();

    // Something new (offline access) is asked for, and then a refresh token comes.
    const offline = authorization(ctx.baseUrl, thirdParty.clientId, {
      scope: 'openid profile email offline_access',
    });
    const asked = await go(again.jar, offline.url);
    expect(asked.page?.html).toContain('Keep this access while you are not using it');
    const granted = await submit(again.jar, asked.page!, /\/consent$/, { decision: 'allow' });
    const withRefresh = await redeem(ctx.baseUrl, thirdParty, offline, granted);
    expect(withRefresh.refresh_token).toBeTruthy();
    expect((await consents(person.id))[0]?.scopes).toContain('offline_access');
  });

  it('answers access_denied when the person declines, and remembers nothing', async () => {
    const person = await companyMember(ctx, owner, 'dora');
    const { jar, landing } = await signInFresh(ctx.baseUrl, thirdParty.clientId, person);
    const declined = await submit(jar, landing.page!, /\/consent$/, { decision: 'deny' });
    expect(errorOf(declined)).toBe('access_denied');
    expect(await consents(person.id)).toEqual([]);
  });
});

describe('the claims request parameter', () => {
  it('releases a claim asked by name only when the app is allowed its scope', async () => {
    const app = await openedApp(ctx, owner, { scopes: ['profile'] });
    const person = await companyMember(ctx, owner, 'clara');
    await ctx.database.db
      .updateTable('accounts')
      .set({ email: 'clara@example.com' })
      .where('id', '=', person.id)
      .execute();
    const claims = JSON.stringify({ id_token: { email: null, name: null }, userinfo: { email: null } });
    const { auth, landing } = await signInFresh(ctx.baseUrl, app.clientId, person, {
      scope: 'openid',
      claims,
    });
    const tokens = await redeem(ctx.baseUrl, app, auth, landing);
    const idToken = claimsOf(tokens.id_token);
    expect(idToken.name).toBe('clara');
    expect(idToken.email).toBeUndefined();
    const info = (await (
      await fetch(`${ctx.baseUrl}/oidc/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    ).json()) as Record<string, unknown>;
    expect(info.email).toBeUndefined();

    const allowed = await openedApp(ctx, owner, { scopes: ['profile', 'email'] });
    const second = await signInFresh(ctx.baseUrl, allowed.clientId, person, { scope: 'openid', claims });
    const more = await redeem(ctx.baseUrl, allowed, second.auth, second.landing);
    expect(claimsOf(more.id_token).email).toBe('clara@example.com');
  });
});

describe('a native application', () => {
  it('confirms a reused single sign-on session, and not right after the password', async () => {
    const native = 'com.example.wiki:/callback';
    const app = await openedApp(ctx, owner, { redirectUris: [native], tokenAuthMethod: 'none' });
    const person = await companyMember(ctx, owner, 'nina');
    const jar = new CookieJar();
    const first = await go(jar, authorization(ctx.baseUrl, app.clientId, {}, native).url, native);
    const signedIn = await go(jar, `${first.page!.url}/login`, native, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: /name="csrf" value="([^"]+)"/.exec(first.page!.html)![1]!,
        identifier: person.username,
        password: person.password,
      }).toString(),
    });
    expect(signedIn.callback?.searchParams.get('code')).toBeTruthy();
    const reused = await go(jar, authorization(ctx.baseUrl, app.clientId, {}, native).url, native);
    expect(reused.page?.html).toContain('Allow access');
    const confirmed = await submit(jar, reused.page!, /\/consent$/, { decision: 'allow' }, native);
    expect(confirmed.callback?.searchParams.get('code')).toBeTruthy();
  });
});
