import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formSubmission } from '../../../test/browser-flow.ts';
import { manage } from '../../../test/saml-flow.ts';
import {
  changeSource,
  pressSamlButton,
  signInUpstream,
  startTwoTesseras,
  TwoSiteBrowser,
  type TwoTesseras,
} from '../../../test/saml-source-flow.ts';
import { generateSigningKey } from '../../saml/saml-certificates.ts';
import { certificatePem, signRootElement } from '../../saml/saml-signature.ts';

/**
 * Attacks on the SAML identity source (issue 33) with crafted responses: each starts from a
 * genuine signed response of the upstream (a second Tessera acting as identity provider), altered
 * as an attacker would; where an attack needs a signature of its own, it is made with xml-crypto
 * by a key whose certificate the source trusts (as a rotation certificate), so that only the
 * check under test stands in the way. The downstream's log says why each was refused.
 */
let two: TwoTesseras;
const log: string[] = [];
/** A browser already signed in at the upstream: its AuthnRequests are answered at once. */
const browser = new TwoSiteBrowser();
let acsUrl = '';
let trustedKey: Awaited<ReturnType<typeof generateSigningKey>>;

beforeAll(async () => {
  two = await startTwoTesseras({}, { write: (line) => void log.push(line) });
  acsUrl = `${two.downstream.baseUrl}/saml-source/${two.sourceId}/acs`;
  // The attacker's signing key is trusted by the source: only the check under test can stop it.
  trustedKey = await generateSigningKey('CN=Rotation test key');
  await changeSource(two, (settings) => ({
    signingCertificates: [...settings.signingCertificates, certificatePem(trustedKey.certificate)],
  }));
  // Signs in at the upstream once (the genuine round trip works for this browser).
  const { page } = await startSignIn(browser);
  expect(page?.url).toContain('/interaction/');
  const back = await signInUpstream(browser, page!, two.alice);
  expect(back.callback?.searchParams.get('code')).toBeTruthy();
});
afterAll(async () => {
  await two?.close();
});

async function startSignIn(at: TwoSiteBrowser) {
  // A fresh visit to the downstream each time (its own session would answer at once); the
  // upstream's session stays, so the upstream answers without its sign-in page.
  at.jars.delete(new URL(two.downstream.baseUrl).origin);
  return (await pressSamlButton(two, at, {}, acsUrl)).landing;
}

/** A new sign-in of `at`, stopped where the upstream's genuine response would be posted to the ACS. */
async function genuineResponse(at = browser) {
  const stopped = await startSignIn(at);
  expect(stopped.form?.action, stopped.page?.html.slice(0, 400)).toBe(acsUrl);
  return Buffer.from(stopped.form?.fields.SAMLResponse ?? '', 'base64').toString('utf8');
}

/** Posts a response to the ACS as `at`; answers where that ends and the refusal the log gives. */
async function post(xml: string, at = browser) {
  const before = log.length;
  const landing = await at.go(acsUrl, formSubmission({ SAMLResponse: Buffer.from(xml).toString('base64') }));
  const refusal = log
    .slice(before)
    .map((line) => JSON.parse(line) as { msg?: string; reason?: string })
    .find((entry) => entry.msg === 'SAML source response refused')?.reason;
  return { landing, refusal };
}

const expectRefused = async (xml: string, reason: RegExp) => {
  const { landing, refusal } = await post(xml);
  expect(landing.callback, 'no sign-in').toBeUndefined();
  expect(landing.page?.status).toBe(400);
  expect(refusal).toMatch(reason);
};

const assertionOf = (xml: string) => {
  const found = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)?.[0];
  if (!found) throw new Error(`no assertion in ${xml.slice(0, 300)}`);
  return found;
};
const withoutSignature = (element: string) => element.replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/, '');
/** The assertion changed by `change` and signed again by the trusted test key. */
const resigned = (xml: string, change: (assertion: string) => string) => {
  const assertion = withoutSignature(assertionOf(xml));
  const signed = signRootElement(change(assertion), trustedKey, 'rsa-sha256');
  return withoutSignature(xml).replace(assertionOf(xml), signed);
};
const evil = (assertion: string) =>
  withoutSignature(assertion)
    .replace(/ID="[^"]+"/, 'ID="_evil"')
    .replace(/>alice<\/saml:NameID>/, '>mallory</saml:NameID>');

describe('a genuine response', () => {
  it('signs in once; the same response posted again is refused', async () => {
    const xml = await genuineResponse();
    const first = await post(xml);
    expect(first.landing.callback?.searchParams.get('code')).toBeTruthy();
    await expectRefused(xml, /InResponseTo is not valid/);
  });

  it('is refused as a replay on any instance once its assertion was used, even if its request were still open', async () => {
    const xml = await genuineResponse();
    const id = /InResponseTo="([^"]+)"/.exec(xml)?.[1] ?? '';
    const first = await browser.fetch(
      acsUrl,
      formSubmission({ SAMLResponse: Buffer.from(xml).toString('base64') }),
    );
    expect(first.status).toBe(303);
    // As if a second instance had read the request before the first marked it answered.
    await two.downstream.database.db
      .updateTable('saml_source_requests')
      .set({ handoff_hash: null, verified: null })
      .where('id', '=', id)
      .execute();
    await expectRefused(xml, /replayed/);
  });
});

describe('signatures and wrapping', () => {
  it('refuses an assertion signed by a key the source does not trust', async () => {
    const xml = await genuineResponse();
    const stranger = await generateSigningKey('CN=Stranger');
    const forged = withoutSignature(xml).replace(
      assertionOf(xml),
      signRootElement(evil(assertionOf(xml)), stranger, 'rsa-sha256'),
    );
    await expectRefused(forged, /signature/i);
  });

  it('refuses an unsigned assertion added before or after the signed one', async () => {
    const xml = await genuineResponse();
    const signed = assertionOf(xml);
    await expectRefused(xml.replace(signed, `${evil(signed)}${signed}`), /2 assertions/);
    await expectRefused(xml.replace(signed, `${signed}${evil(signed)}`), /2 assertions/);
  });

  it('refuses the signed assertion moved into Extensions or a signature Object, with another in its place', async () => {
    const xml = await genuineResponse();
    const signed = assertionOf(xml);
    const extensions = `<samlp:Extensions>${signed}</samlp:Extensions>`;
    const moved = withoutSignature(xml).replace(signed, '');
    const issuerEnd = moved.indexOf('</saml:Issuer>') + '</saml:Issuer>'.length;
    await expectRefused(
      `${moved.slice(0, issuerEnd)}${extensions}${moved.slice(issuerEnd).replace('</samlp:Status>', `</samlp:Status>${evil(signed)}`)}`,
      /2 assertions/,
    );
    const inObject = signed.replace(
      '</ds:Signature>',
      `<ds:Object>${evil(signed)}</ds:Object></ds:Signature>`,
    );
    await expectRefused(xml.replace(signed, inObject), /2 assertions/);
  });

  it('refuses two signed assertions', async () => {
    const xml = await genuineResponse();
    const signed = assertionOf(xml);
    await expectRefused(xml.replace(signed, `${signed}${signed}`), /2 assertions/);
  });

  it('refuses an unsigned assertion in a response the upstream signed', async () => {
    await manage(two.upstream, two.upOwner, '/api/v1/manage/app/saml/update', {
      appId: two.samlAppId,
      signAssertion: false,
      signResponse: true,
    });
    try {
      const xml = await genuineResponse();
      expect(assertionOf(xml)).not.toContain('<ds:Signature');
      expect(xml).toContain('<ds:Signature');
      await expectRefused(xml, /signature/i);
    } finally {
      await manage(two.upstream, two.upOwner, '/api/v1/manage/app/saml/update', {
        appId: two.samlAppId,
        signAssertion: true,
      });
    }
  });
});

describe('conditions of the assertion', () => {
  it('refuses another audience', async () => {
    const xml = await genuineResponse();
    const forged = resigned(xml, (a) =>
      a.replace(
        /<saml:Audience>[^<]+<\/saml:Audience>/,
        '<saml:Audience>https://other.example/sp</saml:Audience>',
      ),
    );
    await expectRefused(forged, /audience/i);
  });

  it('refuses another recipient, and another destination', async () => {
    const xml = await genuineResponse();
    const forged = resigned(xml, (a) =>
      a.replace(/Recipient="[^"]+"/, 'Recipient="https://other.example/acs"'),
    );
    await expectRefused(forged, /bearer confirmation/);
    const elsewhere = (await genuineResponse()).replace(
      /Destination="[^"]+"/,
      'Destination="https://other.example/acs"',
    );
    await expectRefused(elsewhere, /Destination/);
  });

  it('refuses an expired assertion', async () => {
    const xml = await genuineResponse();
    const past = new Date(Date.now() - 10 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const conditions = resigned(xml, (a) =>
      a.replace(/(<saml:Conditions [^>]*NotOnOrAfter=")[^"]+"/, `$1${past}"`),
    );
    await expectRefused(conditions, /assertion expired/);
    const everywhere = resigned(await genuineResponse(), (a) =>
      a.replace(/NotOnOrAfter="[^"]+"/g, `NotOnOrAfter="${past}"`),
    );
    await expectRefused(everywhere, /No valid subject confirmation/);
  });

  it('refuses a DOCTYPE with entities', async () => {
    const xml = await genuineResponse();
    const bomb = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>${xml.replace(/^<\?xml[^>]*>/, '')}`;
    await expectRefused(bomb, /dtd/);
  });
});

describe('the request it answers', () => {
  it('refuses a response to a request Tessera never sent', async () => {
    const xml = await genuineResponse();
    const forged = resigned(xml.replace(/InResponseTo="[^"]+"/, 'InResponseTo="_never_sent"'), (a) =>
      a.replace(/InResponseTo="[^"]+"/, 'InResponseTo="_never_sent"'),
    );
    await expectRefused(forged, /InResponseTo is not valid/);
  });

  it("does not sign in another browser that posts someone else's response (its interaction is not theirs)", async () => {
    const xml = await genuineResponse();
    const victim = new TwoSiteBrowser();
    await startSignIn(victim);
    const { landing, refusal } = await post(xml, victim);
    expect(refusal).toBeUndefined();
    expect(landing.callback).toBeUndefined();
    expect(landing.page?.status).toBe(400);
    expect(landing.trail.at(-1)).toMatch(/\/interaction\/[^/]+\/saml-done\?handoff=/);
  });
});
