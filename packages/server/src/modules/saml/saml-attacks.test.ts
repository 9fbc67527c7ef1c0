import { createPrivateKey } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, request } from '../../test/browser-flow.ts';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { manage, post, samlAppFor, signInOnPage, spAnswer, travel } from '../../test/saml-flow.ts';
import { startTestServiceProvider, type TestServiceProvider } from '../../test/saml-sp.ts';
import { signRootElement } from './saml-signature.ts';

/**
 * What an attacker sends to a company's identity provider (issue 19): signed requests wrapped
 * or altered, replays, an answer address of their own, comments in a NameID, DTDs and external
 * entities. Every one is refused with a page saying why, and nothing is signed in or out. The
 * requests start as @node-saml/node-saml builds and signs them.
 */
let ctx: TestContext;
let sp: TestServiceProvider;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let appId: string;
let idp: { ssoUrl: string; sloUrl: string };
let dave: { id: string; username: string; password: string };

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  sp = await startTestServiceProvider();
  owner = await ownerWithCompany(ctx, 'attack-owner', 'Attack Co');
  dave = await companyMember(ctx, owner, 'attack-dave');
  ({ appId, idp } = await samlAppFor(ctx, owner, sp, 'Target'));
});
afterAll(async () => {
  await sp?.close();
  await ctx?.close();
});

/** A fresh AuthnRequest as the service provider signs it for HTTP-POST (without its XML declaration). */
async function signedAuthnRequest(): Promise<string> {
  const message = await sp.saml().getAuthorizeMessageAsync('', undefined, {});
  return inflateRawSync(Buffer.from(String(message.SAMLRequest), 'base64'))
    .toString('utf8')
    .replace(/^<\?xml[^>]*\?>/, '');
}

/** The message signed anew with the service provider's own key (what a legitimate SP could send). */
const resignedBySp = (xml: string) =>
  signRootElement(
    xml.replace(/<Signature[\s\S]*<\/Signature>/, ''),
    {
      privateKey: createPrivateKey(sp.signingKeyPem),
      certificate: sp.signingCertPem.replace(/-----[A-Z ]+-----|\s+/g, ''),
    },
    'rsa-sha256',
  );

const postTo = async (url: string, parameter: 'SAMLRequest' | 'SAMLResponse', xml: string) => {
  const jar = new CookieJar();
  const answer = await post(jar, url, { [parameter]: Buffer.from(xml, 'utf8').toString('base64') });
  return { status: answer.status, html: await answer.text(), location: answer.headers.get('location') };
};

const refusedWith = (answer: { status: number; html: string }, words: string) => {
  expect(answer.status).toBe(400);
  expect(answer.html).toContain(words);
};

const idOf = (xml: string) => /<samlp:AuthnRequest[^>]* ID="([^"]+)"/.exec(xml)?.[1] as string;

describe('signed AuthnRequests', () => {
  it('are taken as signed, once: the same request again is a replay', async () => {
    const xml = await signedAuthnRequest();
    const first = await postTo(idp.ssoUrl, 'SAMLRequest', xml);
    expect(first.status).toBe(303);
    expect(first.location).toContain('/oidc/auth');
    refusedWith(await postTo(idp.ssoUrl, 'SAMLRequest', xml), 'This request was used already');
  });

  it('refuses a used request wrapped under a new root with a fresh ID', async () => {
    const xml = await signedAuthnRequest();
    await postTo(idp.ssoUrl, 'SAMLRequest', xml);
    const id = idOf(xml);
    const open = /<samlp:AuthnRequest[^>]*>/.exec(xml)?.[0] as string;
    const issuer = /<saml:Issuer[\s\S]*?<\/saml:Issuer>/.exec(xml)?.[0] as string;
    const wrapped = `${open.replace(`ID="${id}"`, 'ID="_fresh1"')}${issuer}<samlp:Extensions>${xml}</samlp:Extensions></samlp:AuthnRequest>`;
    refusedWith(await postTo(idp.ssoUrl, 'SAMLRequest', wrapped), 'is not valid');
  });

  it('refuses the signature moved to a new root that points at the signed original inside it', async () => {
    const xml = await signedAuthnRequest();
    const id = idOf(xml);
    const signature = /<Signature[\s\S]*<\/Signature>/.exec(xml)?.[0] as string;
    const original = xml.replace(signature, '');
    const open = /<samlp:AuthnRequest[^>]*>/.exec(xml)?.[0] as string;
    const issuer = /<saml:Issuer[\s\S]*?<\/saml:Issuer>/.exec(xml)?.[0] as string;
    const wrapped = `${open.replace(`ID="${id}"`, 'ID="_fresh2"')}${issuer}${signature}<samlp:Extensions>${original}</samlp:Extensions></samlp:AuthnRequest>`;
    refusedWith(await postTo(idp.ssoUrl, 'SAMLRequest', wrapped), 'is not valid');
  });

  it('refuses two elements with the signed ID (the signed one hidden inside)', async () => {
    const xml = await signedAuthnRequest();
    const signature = /<Signature[\s\S]*<\/Signature>/.exec(xml)?.[0] as string;
    const open = /<samlp:AuthnRequest[^>]*>/.exec(xml)?.[0] as string;
    const issuer = /<saml:Issuer[\s\S]*?<\/saml:Issuer>/.exec(xml)?.[0] as string;
    const evil = open.replace(/AssertionConsumerServiceURL="[^"]*"/, 'ForceAuthn="false"');
    const wrapped = `${evil}${issuer}${signature}<samlp:Extensions>${xml}</samlp:Extensions></samlp:AuthnRequest>`;
    refusedWith(await postTo(idp.ssoUrl, 'SAMLRequest', wrapped), 'is not valid');
  });

  it('refuses a signed request whose answer address was changed afterwards', async () => {
    const xml = await signedAuthnRequest();
    const altered = xml.replace(
      /AssertionConsumerServiceURL="[^"]*"/,
      'AssertionConsumerServiceURL="https://attacker.example/acs"',
    );
    refusedWith(await postTo(idp.ssoUrl, 'SAMLRequest', altered), 'is not valid');
  });

  it('refuses an answer address that is not registered, even signed by the service provider', async () => {
    const xml = resignedBySp(
      (await signedAuthnRequest()).replace(
        /AssertionConsumerServiceURL="[^"]*"/,
        'AssertionConsumerServiceURL="https://attacker.example/acs"',
      ),
    );
    refusedWith(await postTo(idp.ssoUrl, 'SAMLRequest', xml), 'an address that is not registered');
  });

  it('refuses an unsigned request when the service provider signs its requests', async () => {
    const xml = (await signedAuthnRequest()).replace(/<Signature[\s\S]*<\/Signature>/, '');
    refusedWith(await postTo(idp.ssoUrl, 'SAMLRequest', xml), 'is not signed, and it must be');
    const query = `SAMLRequest=${encodeURIComponent(
      (await sp.saml().getAuthorizeUrlAsync('', undefined, {})).split('SAMLRequest=')[1]?.split('&')[0] ?? '',
    )}`;
    const redirect = await request(new CookieJar(), `${idp.ssoUrl}?${decodeURIComponent(query)}`);
    expect(redirect.status).toBe(400);
  });
});

describe('XML that is not parsed', () => {
  const xxe = (root: string) =>
    `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${root}`;

  it('refuses a DTD with an external entity in a protocol message', async () => {
    const body = xxe(
      '<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_x" Version="2.0"><saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">&xxe;</saml:Issuer></samlp:AuthnRequest>',
    );
    refusedWith(await postTo(idp.ssoUrl, 'SAMLRequest', body), 'document type declaration');
  });

  it('refuses a DTD in metadata and keeps the settings', async () => {
    const before = await manage(ctx, owner, '/api/v1/manage/app/saml/detail', { appId });
    const answer = await call(
      ctx,
      '/api/v1/manage/app/saml/metadata/import',
      {
        appId,
        xml: xxe('<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&xxe;"/>'),
      },
      { token: owner.token, companyId: owner.companyId },
    );
    expect(answer).toMatchObject({ code: 400, data: { reason: 'saml.metadata_dtd' } });
    expect(await manage(ctx, owner, '/api/v1/manage/app/saml/detail', { appId })).toEqual(before);
  });
});

describe('LogoutRequests', () => {
  it('reads a NameID with a comment as it was signed, whole: the person it seems to name stays signed in', async () => {
    const jar = new CookieJar();
    const url = `${sp.baseUrl}/login?binding=redirect`;
    const page = await travel(jar, await request(jar, url), url);
    const done = await signInOnPage(jar, page.url, page.html, dave.username, dave.password);
    const profile = spAnswer(done.html).profile as { nameID: string; sessionIndex: string };
    const now = new Date().toISOString();
    const forged = resignedBySp(
      `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_comment1" Version="2.0" IssueInstant="${now}" Destination="${idp.sloUrl}"><saml:Issuer>${sp.entityId}</saml:Issuer><saml:NameID>attack-dave<!---->.elsewhere</saml:NameID><samlp:SessionIndex>${profile.sessionIndex}</samlp:SessionIndex></samlp:LogoutRequest>`,
    );
    // A reader of the first text node would see "attack-dave"; the signature covers "attack-dave.elsewhere".
    const answer = await postTo(idp.sloUrl, 'SAMLRequest', forged);
    expect(answer.status).toBeLessThan(400);
    const live = await ctx.database.db
      .selectFrom('saml_sessions')
      .select('ended_at')
      .where('id', '=', profile.sessionIndex)
      .executeTakeFirstOrThrow();
    expect(live.ended_at).toBeNull();
  });
});
