import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../test/harness.ts';
import { CALLBACK, relyingParty } from '../../../test/oidc-flow.ts';
import {
  callbackPrefix,
  deliverLogoutToken,
  downSessionsOf,
  linkedAccountId,
  type OidcSourceTesseras,
  postSignIn,
  pressButton,
  signInPage,
  signInUpstream,
  startOidcSourceTesseras,
} from '../../../test/oidc-source-flow.ts';
import { type RogueScenario, type RogueUpstream, startRogueUpstream } from '../../../test/rogue-upstream.ts';

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

let two: OidcSourceTesseras;
let rogue: RogueUpstream;
let sourceId = '';
let rogueSourceId = '';

beforeAll(async () => {
  [two, rogue] = await Promise.all([
    startOidcSourceTesseras({
      source: { emailDomains: ['corp.example'] },
      registration: (source) => ({ backchannelLogoutUri: source.backchannelLogoutUrl }),
    }),
    startRogueUpstream(),
  ]);
  sourceId = two.source.sourceId;
  rogueSourceId = (
    await two.createSource({
      name: 'Rogue IdP',
      issuer: rogue.issuer,
      clientId: rogue.clientId,
      clientSecret: 'rogue-secret',
      firstScan: 'create',
    })
  ).sourceId;
});
afterAll(async () => {
  await Promise.all([two?.close(), rogue?.close()]);
});

describe('the OpenID Connect identity source', () => {
  it("Test reads the upstream's discovery and keys; an upstream at a refused address is never reached", async () => {
    const ok = await call<{ ok: boolean; details: { issuer: string; keys: number } }>(
      two.downstream,
      '/api/v1/manage/identity-source/oidc/test',
      { issuer: `${two.upstream.baseUrl}/oidc` },
      two.downOwner,
    );
    expect(ok.code, ok.msg).toBe(200);
    expect(ok.data.ok).toBe(true);
    expect(ok.data.details.issuer).toBe(`${two.upstream.baseUrl}/oidc`);
    expect(ok.data.details.keys).toBeGreaterThan(0);

    const port = new URL(two.upstream.baseUrl).port;
    const refused = await call<{ ok: boolean; reason: string }>(
      two.downstream,
      '/api/v1/manage/identity-source/oidc/test',
      { issuer: `http://[::1]:${port}/oidc` },
      two.downOwner,
    );
    expect(refused.data).toMatchObject({ ok: false, reason: 'outbound.address_refused' });
  });

  it('keeps the client secret sealed and never sends it back; refuses a source without one', async () => {
    const detail = await call<{ settings: Record<string, unknown> }>(
      two.downstream,
      '/api/v1/manage/identity-source/detail',
      { sourceId },
      two.downOwner,
    );
    expect(detail.data.settings.secretSet).toBe(true);
    expect(JSON.stringify(detail.data)).not.toContain(two.upApp.clientSecret);
    const row = await two.downstream.database.db
      .selectFrom('identity_sources')
      .select('secret_sealed')
      .where('id', '=', sourceId)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(two.upApp.clientSecret);
    const missing = await call(
      two.downstream,
      '/api/v1/manage/identity-source/create',
      { type: 'oidc', name: 'No secret', issuer: 'https://idp.example', clientId: 'x' },
      two.downOwner,
    );
    expect(missing.code).toBe(400);
  });

  it("signs a person in at the upstream Tessera and lands them in the downstream's application", async () => {
    const at = await signInPage(two);
    expect(at.page.html).toContain('Sign in with Corp IdP');
    const upstreamPage = await pressButton(at, sourceId, CALLBACK);
    expect(upstreamPage.url.startsWith(two.upstream.baseUrl), upstreamPage.url).toBe(true);
    const back = await signInUpstream(two, at.browser, upstreamPage);
    expect(back.stopped, back.html.slice(0, 300)).toBeDefined();
    const landed = await at.browser.follow((back.stopped as URL).href, CALLBACK);
    expect(landed.stopped, landed.html.slice(0, 400)).toBeDefined();

    // The application's relying party (openid-client) redeems the code and verifies the ID token.
    const rp = await relyingParty(two.downstream, two.downApp);
    const tokens = await client.authorizationCodeGrant(rp, landed.stopped as URL, {
      pkceCodeVerifier: at.auth.verifier,
      expectedState: at.auth.state,
      expectedNonce: at.auth.nonce,
    });
    expect(tokens.claims()?.preferred_username).toBe('alice');
    expect(tokens.claims()?.amr).toEqual(['fed']);

    const person = await two.downstream.database.db
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
    const event = await two.downstream.database.db
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
    const again = await signInPage(two, at.browser);
    const toUpstream = await pressButton(again, sourceId, `${two.upstream.baseUrl}/oidc/auth`);
    const freshState = (toUpstream.stopped as URL).searchParams.get('state') as string;
    const oldCode = (back.stopped as URL).searchParams.get('code') as string;
    const withOldCode = new URL(callbackPrefix(two));
    withOldCode.search = new URLSearchParams({
      code: oldCode,
      state: freshState,
      iss: `${two.upstream.baseUrl}/oidc`,
    }).toString();
    const refused = await again.browser.follow(withOldCode.href, CALLBACK);
    expect(refused.stopped).toBeUndefined();
    expect(refused.status).toBe(502);
    expect(refused.html).toContain('Corp IdP');
  });

  it("ends the person's downstream sessions when the upstream signs them out (back-channel logout)", async () => {
    const accountId = await linkedAccountId(two);
    const sessionsOfAlice = async () => (await downSessionsOf(two, accountId)).length;
    expect(await sessionsOfAlice()).toBeGreaterThan(0);

    // A token that is not the upstream's is refused and ends nothing.
    const forged = await deliverLogoutToken(two, 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.');
    expect(forged.status).toBe(400);
    expect(await sessionsOfAlice()).toBeGreaterThan(0);

    // The upstream signs Alice out everywhere: its logout token reaches the downstream.
    const told = await two.upstream.tessera.signOutAccountEverywhere(two.alice.id);
    expect(told.delivered).toBeGreaterThan(0);
    expect(await sessionsOfAlice()).toBe(0);
  });

  it('home-realm discovery: an address of the source’s domain goes to the upstream, its password unasked', async () => {
    const at = await signInPage(two);
    expect(at.page.html).toContain('data-upstream-domains="corp.example"');
    expect(at.page.html).not.toMatch(/id="password"[^>]*required/);
    const sent = await postSignIn(
      at.browser,
      at.page,
      { identifier: 'Bob@Corp.Example', password: '' },
      `${two.upstream.baseUrl}/oidc/auth`,
    );
    expect(sent.stopped?.searchParams.get('login_hint')).toBe('Bob@Corp.Example');
    expect(sent.stopped?.searchParams.get('client_id')).toBe(two.upApp.clientId);
    // Another domain signs in with a password as before.
    const other = await signInPage(two);
    const refused = await postSignIn(
      other.browser,
      other.page,
      { identifier: 'bob@else.example', password: 'x' },
      CALLBACK,
    );
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
    const at = await signInPage(two);
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
    const callback = new URL(callbackPrefix(two, rogueSourceId));
    callback.search = new URLSearchParams({
      code: 'rogue-code',
      state: authorizeUrl.searchParams.get('state') as string,
    }).toString();
    return at.browser.follow(callback.href, CALLBACK);
  }

  it("asks for the company's second factor unless the source counts the provider's", async () => {
    const policy = await call(
      two.downstream,
      '/api/v1/manage/safety/mfa/update',
      { mode: 'required', types: ['otp'], lockout: { maxFailures: 3, lockMinutes: 15 } },
      two.downOwner,
    );
    expect(policy.code, policy.msg).toBe(200);
    const asked = await throughRogue('valid', ['pwd', 'mfa'], 'mallory-mfa');
    expect(asked.stopped, 'not trusted: the second factor is asked').toBeUndefined();
    expect(asked.html).toContain('/step/');

    const trusting = await two.updateSource(rogueSourceId, {
      trustUpstreamMfa: true,
      mfaAmrValues: ['mfa', 'hwk'],
    });
    expect(trusting.code, trusting.msg).toBe(200);
    const counted = await throughRogue('valid', ['pwd', 'mfa'], 'mallory-mfa');
    expect(counted.stopped, counted.html.slice(0, 300)).toBeDefined();
    const withoutMfa = await throughRogue('valid', ['pwd'], 'mallory-mfa');
    expect(withoutMfa.stopped, "the provider's password alone is no second factor").toBeUndefined();
    expect(withoutMfa.html).toContain('/step/');

    await two.updateSource(rogueSourceId);
    await call(
      two.downstream,
      '/api/v1/manage/safety/mfa/update',
      { mode: 'off', types: ['otp'], lockout: { maxFailures: 3, lockMinutes: 15 } },
      two.downOwner,
    );
  });

  it('authenticates with private_key_jwt by a key Tessera makes and publishes at the JWKS URL', async () => {
    const saved = await two.updateSource(rogueSourceId, { clientAuth: 'private_key_jwt' });
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
      await two.updateSource(rogueSourceId, {
        clientAuth: 'client_secret_basic',
        clientSecret: 'rogue-secret',
      });
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
      const people = await two.downstream.database.db
        .selectFrom('identity_links')
        .select('external_id')
        .where('external_id', '=', `mallory-${scenario}`)
        .execute();
      expect(people).toEqual([]);
      const event = await two.downstream.database.db
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
      const row = await two.downstream.database.db
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
        await two.downstream.database.db
          .selectFrom('oidc_payloads')
          .select('uid')
          .where('model', '=', 'Session')
          .where('uid', 'in', uids)
          .execute()
      )
        .map((row) => row.uid)
        .sort();
    const deliver = (token: string, source = rogueSourceId) =>
      deliverLogoutToken(two, token, source).then((response) => response.status);

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
        await two.createSource({
          name: 'Rogue IdP twin',
          issuer: rogue.issuer,
          clientId: rogue.clientId,
          clientSecret: 'rogue-secret',
          firstScan: 'create',
        })
      ).sourceId;
      const token = await rogue.logoutToken({ sid: 'rogue-sid-elsewhere' });
      expect(await deliver(token, twin)).toBe(200);
      expect(await live(session)).toEqual([session]);
      expect(await deliver(token)).toBe(200);
      expect(await live(session)).toEqual([]);
    });
  });
});
