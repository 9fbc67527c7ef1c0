import * as client from 'openid-client';
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
import { authorization, CALLBACK, openedApp, relyingParty, type TestApp } from '../../../test/oidc-flow.ts';
import { type RogueScenario, type RogueUpstream, startRogueUpstream } from '../../../test/rogue-upstream.ts';
import { TwoSiteBrowser } from '../../../test/two-site-browser.ts';

/**
 * The OpenID Connect identity source (issue 33) against a real upstream: a second Tessera server
 * started here is the company's identity provider. A person signs in there and lands signed in
 * at the downstream Tessera's application (its relying party is openid-client); the source's
 * Test reads the upstream's discovery and keys; state and code are used once; home-realm
 * discovery sends an address of the source's domain there; crafted ID tokens from a rogue
 * provider (wrong nonce, issuer or audience, alg none, a key not in its JWKS, expired) are
 * refused; its back-channel logout tokens naming a `sid` end that session only (not with another
 * person's `sub`, nor at another source); an upstream at an address the outbound rule refuses is
 * never reached.
 */

let upstream: TestContext;
let down: TestContext;
let rogue: RogueUpstream;
let downOwner: Awaited<ReturnType<typeof ownerWithCompany>>;
let downApp: TestApp;
let upApp: TestApp;
let sourceId = '';
let rogueSourceId = '';
let alice: { id: string; username: string; password: string };

async function createSource(body: Record<string, unknown>) {
  const created = await call<{ sourceId: string; callbackUrl: string; jwksUrl: string }>(
    down,
    '/api/v1/manage/identity-source/create',
    { type: 'oidc', ...body },
    downOwner,
  );
  expect(created.code, created.msg).toBe(200);
  return created.data;
}

beforeAll(async () => {
  [upstream, down, rogue] = await Promise.all([
    startTestApp({ listen: true }),
    // Only 127.0.0.1 is reachable from the downstream (the upstreams listen there): [::1] is refused.
    startTestApp({ listen: true, outboundNetworks: ['127.0.0.1/32'] }),
    startRogueUpstream(),
  ]);
  await Promise.all([grantLicense(upstream, { app: 10 }), grantLicense(down, { app: 10 })]);
  const upOwner = await ownerWithCompany(upstream, 'up-owner', 'Upstream Corp');
  upApp = await openedApp(upstream, upOwner);
  alice = await companyMember(upstream, upOwner, 'alice');
  await upstream.database.db
    .updateTable('accounts')
    .set({ email: 'alice@corp.example', display_name: 'Alice Upstream' })
    .where('username', '=', 'alice')
    .execute();
  downOwner = await ownerWithCompany(down, 'down-owner', 'Down Corp');
  downApp = await openedApp(down, downOwner);
  const source = await createSource({
    name: 'Corp IdP',
    issuer: `${upstream.baseUrl}/oidc`,
    clientId: upApp.clientId,
    clientSecret: upApp.clientSecret,
    firstScan: 'create',
    emailDomains: ['corp.example'],
  });
  sourceId = (source as unknown as { sourceId: string }).sourceId;
  const registered = await call(
    upstream,
    '/api/v1/manage/app/update',
    {
      appId: upApp.appId,
      redirectUris: [source.callbackUrl],
      backchannelLogoutUri: (source as unknown as { backchannelLogoutUrl: string }).backchannelLogoutUrl,
    },
    upOwner,
  );
  expect(registered.code, registered.msg).toBe(200);
  rogueSourceId = (
    (await createSource({
      name: 'Rogue IdP',
      issuer: rogue.issuer,
      clientId: rogue.clientId,
      clientSecret: 'rogue-secret',
      firstScan: 'create',
    })) as unknown as { sourceId: string }
  ).sourceId;
});
afterAll(async () => {
  await Promise.all([upstream?.close(), down?.close(), rogue?.close()]);
});

/** The downstream application's sign-in page in a fresh browser. */
async function signInPage(browser = new TwoSiteBrowser()) {
  const auth = authorization(down.baseUrl, downApp.clientId, { prompt: 'login' });
  const page = await browser.follow(auth.url, CALLBACK);
  expect(page.html).toContain('name="identifier"');
  return { browser, auth, page };
}

/** Presses the button of `id` on the sign-in page; follows until `stopAt`. */
function pressButton(at: Awaited<ReturnType<typeof signInPage>>, id: string, stopAt: string) {
  const action = new RegExp(`action="([^"]*/upstream/${id})"`).exec(at.page.html)?.[1];
  expect(action, 'the source has a button').toBeTruthy();
  return at.browser.follow(absolute(at.page.url, decodeEntities(action as string)), stopAt, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfOf(at.page.html) }).toString(),
  });
}

/** Signs in at the upstream's own sign-in page; stops where the upstream sends the browser back. */
function signInUpstream(browser: TwoSiteBrowser, page: { url: string; html: string }, stopAt: string) {
  return browser.follow(`${page.url.split('?')[0]}/login`, stopAt, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      csrf: csrfOf(page.html),
      identifier: alice.username,
      password: alice.password,
    }).toString(),
  });
}

const callbackPrefix = () => `${down.baseUrl}/portal/upstream/${sourceId}/callback`;

describe('the OpenID Connect identity source', () => {
  it("Test reads the upstream's discovery and keys; an upstream at a refused address is never reached", async () => {
    const ok = await call<{ ok: boolean; details: { issuer: string; keys: number } }>(
      down,
      '/api/v1/manage/identity-source/oidc/test',
      { issuer: `${upstream.baseUrl}/oidc` },
      downOwner,
    );
    expect(ok.code, ok.msg).toBe(200);
    expect(ok.data.ok).toBe(true);
    expect(ok.data.details.issuer).toBe(`${upstream.baseUrl}/oidc`);
    expect(ok.data.details.keys).toBeGreaterThan(0);

    const port = new URL(upstream.baseUrl).port;
    const refused = await call<{ ok: boolean; reason: string }>(
      down,
      '/api/v1/manage/identity-source/oidc/test',
      { issuer: `http://[::1]:${port}/oidc` },
      downOwner,
    );
    expect(refused.data).toMatchObject({ ok: false, reason: 'outbound.address_refused' });
  });

  it('keeps the client secret sealed and never sends it back; refuses a source without one', async () => {
    const detail = await call<{ settings: Record<string, unknown> }>(
      down,
      '/api/v1/manage/identity-source/detail',
      { sourceId },
      downOwner,
    );
    expect(detail.data.settings.secretSet).toBe(true);
    expect(JSON.stringify(detail.data)).not.toContain(upApp.clientSecret);
    const row = await down.database.db
      .selectFrom('identity_sources')
      .select('secret_sealed')
      .where('id', '=', sourceId)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(upApp.clientSecret);
    const missing = await call(
      down,
      '/api/v1/manage/identity-source/create',
      { type: 'oidc', name: 'No secret', issuer: 'https://idp.example', clientId: 'x' },
      downOwner,
    );
    expect(missing.code).toBe(400);
  });

  it("signs a person in at the upstream Tessera and lands them in the downstream's application", async () => {
    const at = await signInPage();
    expect(at.page.html).toContain('Sign in with Corp IdP');
    const upstreamPage = await pressButton(at, sourceId, CALLBACK);
    expect(upstreamPage.url.startsWith(upstream.baseUrl), upstreamPage.url).toBe(true);
    const back = await signInUpstream(at.browser, upstreamPage, callbackPrefix());
    expect(back.stopped, back.html.slice(0, 300)).toBeDefined();
    const landed = await at.browser.follow((back.stopped as URL).href, CALLBACK);
    expect(landed.stopped, landed.html.slice(0, 400)).toBeDefined();

    // The application's relying party (openid-client) redeems the code and verifies the ID token.
    const rp = await relyingParty(down, downApp);
    const tokens = await client.authorizationCodeGrant(rp, landed.stopped as URL, {
      pkceCodeVerifier: at.auth.verifier,
      expectedState: at.auth.state,
      expectedNonce: at.auth.nonce,
    });
    expect(tokens.claims()?.preferred_username).toBe('alice');
    expect(tokens.claims()?.amr).toEqual(['fed']);

    const person = await down.database.db
      .selectFrom('identity_links as l')
      .innerJoin('accounts as a', 'a.id', 'l.account_id')
      .select(['a.username', 'a.email', 'a.display_name'])
      .where('l.source_id', '=', sourceId)
      .executeTakeFirstOrThrow();
    expect(person).toEqual({
      username: 'alice',
      email: 'alice@corp.example',
      display_name: 'Alice Upstream',
    });
    const event = await down.database.db
      .selectFrom('login_events')
      .select(['result', 'method'])
      .where('identifier', '=', 'alice')
      .executeTakeFirstOrThrow();
    expect(event).toEqual({ result: 'success', method: 'oidc:Corp IdP' });

    // State replay: the same answer again finds its state used.
    const replayed = await at.browser.follow((back.stopped as URL).href, CALLBACK);
    expect(replayed.stopped).toBeUndefined();
    expect(replayed.status).toBe(400);

    // Code replay: the used code with a fresh state of a new sign-in is refused by the upstream.
    const again = await signInPage(at.browser);
    const toUpstream = await pressButton(again, sourceId, `${upstream.baseUrl}/oidc/auth`);
    const freshState = (toUpstream.stopped as URL).searchParams.get('state') as string;
    const oldCode = (back.stopped as URL).searchParams.get('code') as string;
    const withOldCode = new URL(callbackPrefix());
    withOldCode.search = new URLSearchParams({
      code: oldCode,
      state: freshState,
      iss: `${upstream.baseUrl}/oidc`,
    }).toString();
    const refused = await again.browser.follow(withOldCode.href, CALLBACK);
    expect(refused.stopped).toBeUndefined();
    expect(refused.status).toBe(502);
    expect(refused.html).toContain('Corp IdP');
  });

  it("ends the person's downstream sessions when the upstream signs them out (back-channel logout)", async () => {
    const link = await down.database.db
      .selectFrom('identity_links')
      .select('account_id')
      .where('source_id', '=', sourceId)
      .executeTakeFirstOrThrow();
    const sessionsOfAlice = async () =>
      (
        await down.database.db
          .selectFrom('oidc_payloads')
          .select('id')
          .where('model', '=', 'Session')
          .where('account_id', '=', link.account_id)
          .execute()
      ).length;
    expect(await sessionsOfAlice()).toBeGreaterThan(0);

    // A token that is not the upstream's is refused and ends nothing.
    const forged = await fetch(`${down.baseUrl}/portal/upstream/${sourceId}/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' }).toString(),
    });
    expect(forged.status).toBe(400);
    expect(await sessionsOfAlice()).toBeGreaterThan(0);

    // The upstream signs Alice out everywhere: its logout token reaches the downstream.
    const told = await upstream.tessera.signOutAccountEverywhere(alice.id);
    expect(told.delivered).toBeGreaterThan(0);
    expect(await sessionsOfAlice()).toBe(0);
  });

  it('home-realm discovery: an address of the source’s domain goes to the upstream, its password unasked', async () => {
    const at = await signInPage();
    expect(at.page.html).toContain('data-upstream-domains="corp.example"');
    expect(at.page.html).not.toMatch(/id="password"[^>]*required/);
    const sent = await at.browser.follow(
      `${at.page.url.split('?')[0]}/login`,
      `${upstream.baseUrl}/oidc/auth`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          csrf: csrfOf(at.page.html),
          identifier: 'Bob@Corp.Example',
          password: '',
        }).toString(),
      },
    );
    expect(sent.stopped?.searchParams.get('login_hint')).toBe('Bob@Corp.Example');
    expect(sent.stopped?.searchParams.get('client_id')).toBe(upApp.clientId);
    // Another domain signs in with a password as before.
    const other = await signInPage();
    const refused = await other.browser.follow(`${other.page.url.split('?')[0]}/login`, CALLBACK, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: csrfOf(other.page.html),
        identifier: 'bob@else.example',
        password: 'x',
      }).toString(),
    });
    expect(refused.status).toBe(401);
  });
});

describe('attacks on the OpenID Connect identity source (a provider that crafts its ID tokens)', () => {
  /** Signs in through the rogue provider with the scenario; answers where the browser lands. */
  async function throughRogue(
    scenario: RogueScenario,
    amr?: string[],
    sub = `mallory-${scenario}`,
    sid?: string,
  ) {
    const at = await signInPage();
    const toRogue = await pressButton(at, rogueSourceId, rogue.issuer);
    const authorizeUrl = toRogue.stopped as URL;
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    rogue.next = {
      scenario,
      nonce: authorizeUrl.searchParams.get('nonce') as string,
      sub,
      amr,
      sid,
    };
    const callback = new URL(`${down.baseUrl}/portal/upstream/${rogueSourceId}/callback`);
    callback.search = new URLSearchParams({
      code: 'rogue-code',
      state: authorizeUrl.searchParams.get('state') as string,
    }).toString();
    return at.browser.follow(callback.href, CALLBACK);
  }

  it("asks for the company's second factor unless the source counts the provider's", async () => {
    const policy = await call(
      down,
      '/api/v1/manage/safety/mfa/update',
      { mode: 'required', types: ['otp'], lockout: { maxFailures: 3, lockMinutes: 15 } },
      downOwner,
    );
    expect(policy.code, policy.msg).toBe(200);
    const settings = {
      sourceId: rogueSourceId,
      type: 'oidc',
      name: 'Rogue IdP',
      issuer: rogue.issuer,
      clientId: rogue.clientId,
      firstScan: 'create',
    };
    const asked = await throughRogue('valid', ['pwd', 'mfa'], 'mallory-mfa');
    expect(asked.stopped, 'not trusted: the second factor is asked').toBeUndefined();
    expect(asked.html).toContain('/step/');

    const trusting = await call(
      down,
      '/api/v1/manage/identity-source/update',
      { ...settings, trustUpstreamMfa: true, mfaAmrValues: ['mfa', 'hwk'] },
      downOwner,
    );
    expect(trusting.code, trusting.msg).toBe(200);
    const counted = await throughRogue('valid', ['pwd', 'mfa'], 'mallory-mfa');
    expect(counted.stopped, counted.html.slice(0, 300)).toBeDefined();
    const withoutMfa = await throughRogue('valid', ['pwd'], 'mallory-mfa');
    expect(withoutMfa.stopped, "the provider's password alone is no second factor").toBeUndefined();
    expect(withoutMfa.html).toContain('/step/');

    await call(down, '/api/v1/manage/identity-source/update', settings, downOwner);
    await call(
      down,
      '/api/v1/manage/safety/mfa/update',
      { mode: 'off', types: ['otp'], lockout: { maxFailures: 3, lockMinutes: 15 } },
      downOwner,
    );
  });

  it('authenticates with private_key_jwt by a key Tessera makes and publishes at the JWKS URL', async () => {
    const settings = {
      sourceId: rogueSourceId,
      type: 'oidc',
      name: 'Rogue IdP',
      issuer: rogue.issuer,
      clientId: rogue.clientId,
      firstScan: 'create',
    };
    const saved = await call<{ jwksUrl: string }>(
      down,
      '/api/v1/manage/identity-source/update',
      { ...settings, clientAuth: 'private_key_jwt' },
      downOwner,
    );
    expect(saved.code, saved.msg).toBe(200);
    const jwks = (await (await fetch(saved.data.jwksUrl)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    rogue.assertionJwks = saved.data.jwksUrl;
    try {
      const landed = await throughRogue('valid', undefined, 'mallory-pkjwt');
      expect(landed.stopped, landed.html.slice(0, 300)).toBeDefined();
      expect(rogue.lastAssertion?.iss).toBe(rogue.clientId);
      // A provider that expects another key refuses the client: the sign-in fails.
      rogue.assertionJwks = `${rogue.issuer}/jwks`;
      const refused = await throughRogue('valid', undefined, 'mallory-pkjwt');
      expect(refused.stopped).toBeUndefined();
      expect(refused.status).toBe(502);
    } finally {
      rogue.assertionJwks = undefined;
      await call(
        down,
        '/api/v1/manage/identity-source/update',
        { ...settings, clientAuth: 'client_secret_basic', clientSecret: 'rogue-secret' },
        downOwner,
      );
    }
  });

  it('reads the provider’s discovery and keys once, not at every sign-in, and its keys again when it rotates them', async () => {
    expect((await throughRogue('valid', undefined, 'mallory-keys')).stopped).toBeDefined();
    const before = { ...rogue.reads };
    expect((await throughRogue('valid', undefined, 'mallory-keys')).stopped).toBeDefined();
    expect(rogue.reads).toEqual(before);
    await rogue.rotate();
    const rotated = await throughRogue('valid', undefined, 'mallory-keys');
    expect(rotated.stopped, rotated.html.slice(0, 300)).toBeDefined();
    expect(rogue.reads).toEqual({ discovery: before.discovery, jwks: before.jwks + 1 });
  });

  it('accepts a well-formed answer (the control)', async () => {
    const landed = await throughRogue('valid');
    expect(landed.stopped, landed.html.slice(0, 400)).toBeDefined();
  });

  it.each(['wrong_nonce', 'wrong_issuer', 'wrong_audience', 'alg_none', 'unknown_key', 'expired'] as const)(
    'refuses an ID token with %s',
    async (scenario) => {
      const landed = await throughRogue(scenario);
      expect(landed.stopped).toBeUndefined();
      expect(landed.status).toBe(502);
      expect(landed.html).toContain('Rogue IdP');
      const people = await down.database.db
        .selectFrom('identity_links')
        .select('external_id')
        .where('external_id', '=', `mallory-${scenario}`)
        .execute();
      expect(people).toEqual([]);
      const event = await down.database.db
        .selectFrom('login_events')
        .select('failure_cause')
        .where('failure_cause', '=', 'upstream_failed')
        .executeTakeFirst();
      expect(event).toBeDefined();
    },
  );

  describe('back-channel logout tokens naming the provider’s session (sid)', () => {
    /** Signs `sub` in through the rogue provider in a fresh browser in its session `sid`: the Tessera session's uid. */
    async function sessionThroughRogue(sub: string, sid: string) {
      const landed = await throughRogue('valid', undefined, sub, sid);
      expect(landed.stopped, landed.html.slice(0, 300)).toBeDefined();
      const row = await down.database.db
        .selectFrom('upstream_sessions')
        .select('sso_session_uid')
        .where('source_id', '=', rogueSourceId)
        .where('sid', '=', sid)
        .executeTakeFirstOrThrow();
      return row.sso_session_uid as string;
    }
    /** Which of these Tessera single sign-on sessions are live. */
    const live = async (...uids: string[]) =>
      (
        await down.database.db
          .selectFrom('oidc_payloads')
          .select('uid')
          .where('model', '=', 'Session')
          .where('uid', 'in', uids)
          .execute()
      )
        .map((row) => row.uid)
        .sort();
    const deliver = (token: string, source = rogueSourceId) =>
      fetch(`${down.baseUrl}/portal/upstream/${source}/backchannel-logout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: token }).toString(),
      }).then((response) => response.status);

    it('a token naming only a sid ends that session; the person’s other browser stays signed in; once', async () => {
      const first = await sessionThroughRogue('mallory-sid', 'rogue-sid-1');
      const second = await sessionThroughRogue('mallory-sid', 'rogue-sid-2');
      expect(await live(first, second)).toEqual([first, second].sort());
      const token = await rogue.logoutToken({ sid: 'rogue-sid-1' });
      expect(await deliver(token)).toBe(200);
      expect(await live(first, second)).toEqual([second]);
      expect(await deliver(token), 'a token is used once').toBe(400);
      // A sid no session came from is a logout already done: success, and nothing else ends.
      expect(await deliver(await rogue.logoutToken({ sid: 'rogue-sid-unknown' }))).toBe(200);
      expect(await live(second)).toEqual([second]);
      // Neither sub nor sid: refused.
      expect(await deliver(await rogue.logoutToken({}))).toBe(400);
      expect(await live(second)).toEqual([second]);
    });

    it('with a sub and a sid, ends the session only when it is that person’s', async () => {
      const other = await sessionThroughRogue('mallory-other', 'rogue-sid-other');
      const own = await sessionThroughRogue('mallory-both', 'rogue-sid-both');
      for (const sub of ['mallory-other', 'mallory-nobody'])
        expect(await deliver(await rogue.logoutToken({ sub, sid: 'rogue-sid-both' }))).toBe(200);
      expect(await live(other, own)).toEqual([other, own].sort());
      expect(await deliver(await rogue.logoutToken({ sub: 'mallory-both', sid: 'rogue-sid-both' }))).toBe(
        200,
      );
      expect(await live(other, own)).toEqual([other]);
    });

    it('a sid of another source ends nothing, though the token is valid there', async () => {
      const session = await sessionThroughRogue('mallory-elsewhere', 'rogue-sid-elsewhere');
      const twin = (
        (await createSource({
          name: 'Rogue IdP twin',
          issuer: rogue.issuer,
          clientId: rogue.clientId,
          clientSecret: 'rogue-secret',
          firstScan: 'create',
        })) as unknown as { sourceId: string }
      ).sourceId;
      const token = await rogue.logoutToken({ sid: 'rogue-sid-elsewhere' });
      expect(await deliver(token, twin)).toBe(200);
      expect(await live(session)).toEqual([session]);
      expect(await deliver(token)).toBe(200);
      expect(await live(session)).toEqual([]);
    });
  });
});
