import { generateKeyPairSync } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formSubmission } from '../../../test/browser-flow.ts';
import { formOf } from '../../../test/oidc-flow.ts';
import {
  pressSamlButton,
  signInUpstream,
  startTwoTesseras,
  TwoSiteBrowser,
  type TwoTesseras,
} from '../../../test/saml-source-flow.ts';
import { signRedirectQuery } from '../../saml/saml-signature.ts';
import { newSamlId, samlInstant } from '../../saml/saml-xml.ts';

/**
 * Single logout of the SAML identity source (issue 33) against a second Tessera server as the
 * upstream SAML identity provider: a sign-out at the downstream sends a signed LogoutRequest to
 * the upstream, whose session ends, and its LogoutResponse brings the browser back; a sign-out at
 * the upstream sends its LogoutRequest to the downstream's SLO endpoint, which ends the
 * downstream sessions made through it. Unsigned, foreign and replayed messages are refused.
 */
let two: TwoTesseras;
let slo = '';

beforeAll(async () => {
  two = await startTwoTesseras();
  slo = `${two.downstream.baseUrl}/saml-source/${two.sourceId}/slo`;
});
afterAll(async () => {
  await two?.close();
});

/** Signs Alice in at the downstream application through the upstream. */
async function signIn(browser: TwoSiteBrowser) {
  const { landing: atUpstream } = await pressSamlButton(two, browser);
  expect(atUpstream.page?.html, 'the upstream asks who it is').toContain('name="identifier"');
  const back = await signInUpstream(browser, atUpstream.page!, two.alice);
  expect(back.callback?.toString(), back.page?.html.slice(0, 600)).toContain('code=');
}

/** Whether pressing the button again goes through the upstream without its sign-in page. */
async function upstreamSignedIn(browser: TwoSiteBrowser) {
  const { landing } = await pressSamlButton(two, browser, { prompt: 'login' });
  return landing.callback !== undefined;
}

/** Confirms a sign-out page ("yes, sign out") and follows, stopping before `stopAt`. */
const confirm = (browser: TwoSiteBrowser, page: { url: string; html: string }, stopAt: string) => {
  const form = formOf(page, /session\/end\/confirm/);
  return browser.go(form.action, formSubmission({ ...form.fields, logout: 'yes' }), stopAt);
};

const downSessions = async () => {
  const link = await two.downstream.database.db
    .selectFrom('identity_links')
    .select('account_id')
    .where('source_id', '=', two.sourceId)
    .executeTakeFirstOrThrow();
  const rows = await two.downstream.database.db
    .selectFrom('oidc_payloads')
    .select('id')
    .where('model', '=', 'Session')
    .where('account_id', '=', link.account_id)
    .execute();
  return rows.length;
};

/** A LogoutRequest of the upstream's entity id over HTTP-Redirect, signed with `key` or not at all. */
function craftedRequest(key?: ReturnType<typeof generateKeyPairSync>['privateKey']) {
  const idp = `${two.upstream.baseUrl}/saml/${encodeURIComponent(two.upOwner.companyId)}`;
  const xml = `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newSamlId()}" Version="2.0" IssueInstant="${samlInstant(new Date())}" Destination="${slo}"><saml:Issuer>${idp}</saml:Issuer><saml:NameID>alice</saml:NameID></samlp:LogoutRequest>`;
  const query = `SAMLRequest=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}`;
  if (!key) return `${slo}?${query}`;
  const signed = `${query}&SigAlg=${encodeURIComponent('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256')}`;
  const signature = signRedirectQuery(signed, { privateKey: key, certificate: '' }, 'rsa-sha256');
  return `${slo}?${signed}&Signature=${encodeURIComponent(signature)}`;
}

describe('single logout with the upstream SAML identity provider', () => {
  it('publishes the SLO endpoint and reads the upstream’s', async () => {
    const metadata = await (
      await fetch(`${two.downstream.baseUrl}/saml-source/${two.sourceId}/metadata`)
    ).text();
    expect(metadata).toContain(
      `<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${slo}"/>`,
    );
    const source = await two.downstream.database.db
      .selectFrom('identity_sources')
      .select('settings')
      .where('id', '=', two.sourceId)
      .executeTakeFirstOrThrow();
    expect((source.settings as { sloUrl?: string }).sloUrl).toMatch(/\/slo$/);
  });

  it('signing out downstream signs out at the upstream, whose LogoutResponse is taken once', async () => {
    const browser = new TwoSiteBrowser();
    await signIn(browser);
    const remembered = await two.downstream.database.db
      .selectFrom('upstream_sessions')
      .select(['name_id', 'session_index', 'sso_session_uid'])
      .where('source_id', '=', two.sourceId)
      .executeTakeFirstOrThrow();
    expect(remembered).toMatchObject({ name_id: 'alice' });
    expect(remembered.session_index).toBeTruthy();
    expect(await upstreamSignedIn(browser)).toBe(true);

    const endSession = `${two.downstream.baseUrl}/oidc/session/end?${new URLSearchParams({ client_id: two.app.clientId })}`;
    const asked = await browser.go(endSession);
    const atUpstream = await confirm(browser, asked.page!, slo);
    expect(atUpstream.trail.some((url) => url.includes('SAMLRequest=') && url.includes('Signature='))).toBe(
      true,
    );
    // The upstream asks to confirm its own sign-out; then its LogoutResponse comes back.
    expect(atUpstream.page?.url.startsWith(two.upstream.baseUrl), atUpstream.page?.url).toBe(true);
    const response = await confirm(browser, atUpstream.page!, slo);
    const answer = response.callback as URL;
    expect(answer?.searchParams.get('SAMLResponse'), response.page?.html.slice(0, 400)).toBeTruthy();
    const ended = await browser.go(answer.href);
    expect(ended.page?.url.startsWith(two.downstream.baseUrl), ended.page?.url).toBe(true);
    expect(ended.page?.status).toBe(200);
    expect(ended.page?.html).toContain('signed out');
    // Replayed, the LogoutResponse is refused.
    const replayed = await browser.fetch(answer.href);
    expect(replayed.status).toBe(400);

    expect(await upstreamSignedIn(browser)).toBe(false);
  });

  it('a LogoutRequest of the upstream ends the downstream session; replayed, it is refused', async () => {
    const browser = new TwoSiteBrowser();
    await signIn(browser);
    expect(await downSessions()).toBeGreaterThan(0);
    const asked = await browser.go(`${two.upstream.baseUrl}/oidc/session/end`);
    const request = await confirm(browser, asked.page!, slo);
    const sent = request.callback as URL;
    expect(sent?.searchParams.get('SAMLRequest'), request.page?.html.slice(0, 400)).toBeTruthy();
    const answered = await browser.go(sent.href);
    expect(answered.trail.some((url) => url.includes('SAMLResponse='))).toBe(true);
    expect(answered.page?.url.startsWith(two.upstream.baseUrl)).toBe(true);
    expect(await downSessions()).toBe(0);

    const replayed = await fetch(sent.href, { redirect: 'manual' });
    expect(replayed.status).toBe(400);
  });

  it('refuses unsigned and foreign LogoutRequests, and LogoutResponses to nothing it sent', async () => {
    const browser = new TwoSiteBrowser();
    await signIn(browser);
    const before = await downSessions();
    expect(before).toBeGreaterThan(0);
    const unsigned = await fetch(craftedRequest(), { redirect: 'manual' });
    expect(unsigned.status).toBe(400);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const foreign = await fetch(craftedRequest(privateKey), { redirect: 'manual' });
    expect(foreign.status).toBe(400);
    expect(await downSessions()).toBe(before);

    const idp = `${two.upstream.baseUrl}/saml/${encodeURIComponent(two.upOwner.companyId)}`;
    const xml = `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newSamlId()}" Version="2.0" IssueInstant="${samlInstant(new Date())}" Destination="${slo}" InResponseTo="_nothing"><saml:Issuer>${idp}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:LogoutResponse>`;
    const response = await fetch(
      `${slo}?SAMLResponse=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}`,
      { redirect: 'manual' },
    );
    expect(response.status).toBe(400);
  });
});
