import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, request } from '../../test/browser-flow.ts';
import {
  call,
  companyMember,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { manage, samlAppFor, signInOnPage, spAnswer, travel } from '../../test/saml-flow.ts';
import { startTestServiceProvider, type TestServiceProvider } from '../../test/saml-sp.ts';

/**
 * The console's SAML settings (issue 19): metadata from a document or a URL fetched once, the
 * rules of fields entered by hand, catalogue apps, assertion encryption, and the rotation of the
 * company's signing key as a real service provider (@node-saml/node-saml) lives through it.
 */
let ctx: TestContext;
let sp: TestServiceProvider;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let erin: { id: string; username: string; password: string };
let appId: string;

const asOwner = () => ({ token: owner.token, companyId: owner.companyId });

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  sp = await startTestServiceProvider();
  owner = await ownerWithCompany(ctx, 'cfg-owner', 'Config Co');
  erin = await companyMember(ctx, owner, 'cfg-erin');
  ({ appId } = await samlAppFor(ctx, owner, sp, 'Portal'));
});
afterAll(async () => {
  await sp?.close();
  await ctx?.close();
});

async function signInAtSp(jar = new CookieJar()) {
  const url = `${sp.baseUrl}/login?binding=redirect`;
  const page = await travel(jar, await request(jar, url), url);
  const done = page.url.includes('/interaction/')
    ? await signInOnPage(jar, page.url, page.html, erin.username, erin.password)
    : page;
  return spAnswer(done.html);
}

describe('metadata', () => {
  it('fetched from its URL fills the settings the service provider publishes', async () => {
    const settings = await manage(ctx, owner, '/api/v1/manage/app/saml/detail', { appId });
    expect(settings).toMatchObject({
      entityId: sp.entityId,
      acs: [{ url: `${sp.baseUrl}/acs`, index: 1, isDefault: true }],
      sloUrl: `${sp.baseUrl}/slo`,
      sloBinding: 'post',
      requireSignedRequests: true,
      signAssertion: true,
      metadataUrl: sp.metadataUrl,
    });
    expect(settings.signingCertificates).toHaveLength(1);
    expect(settings.encryptionCertificate).not.toBeNull();
  });

  it('pasted, as a document, gives the same settings', async () => {
    const created = await manage<{ app: { appId: string } }>(ctx, owner, '/api/v1/manage/app/create', {
      name: 'Pasted',
      protocol: 'saml',
    });
    const other = await startTestServiceProvider();
    try {
      const settings = await manage(ctx, owner, '/api/v1/manage/app/saml/metadata/import', {
        appId: created.app.appId,
        xml: other.metadata,
      });
      expect(settings).toMatchObject({ entityId: other.entityId, metadataUrl: null });
      // The same service provider twice in one company: its entity id names one app only.
      const again = await call(
        ctx,
        '/api/v1/manage/app/saml/metadata/import',
        { appId, xml: other.metadata },
        asOwner(),
      );
      expect(again).toMatchObject({ code: 409, data: { reason: 'saml.entity_id_taken' } });
    } finally {
      await other.close();
    }
  });

  it('is not fetched from addresses inside the platform, also behind a redirect', async () => {
    const redirector = createServer((_request, response) => {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      response.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      for (const url of [
        'http://169.254.169.254/latest/meta-data/',
        'http://[::ffff:169.254.169.254]/',
        `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/metadata`,
      ]) {
        const answer = await call(ctx, '/api/v1/manage/app/saml/metadata/import', { appId, url }, asOwner());
        expect({ url, answer }).toMatchObject({
          url,
          answer: { code: 400, data: { reason: 'outbound.address_never' } },
        });
      }
    } finally {
      redirector.close();
    }
  });
});

describe('settings by hand', () => {
  it('refuses unsafe or inconsistent settings and changes nothing', async () => {
    const before = await manage(ctx, owner, '/api/v1/manage/app/saml/detail', { appId });
    const tries: [Record<string, unknown>, string][] = [
      [{ acs: [{ url: 'http://wiki.example/acs', index: 0 }] }, 'saml.url_invalid'],
      [{ acs: [{ url: 'https://wiki.example/*', index: 0 }] }, 'saml.url_invalid'],
      [
        {
          acs: [
            { url: 'https://a.example/acs', index: 0 },
            { url: 'https://b.example/acs', index: 0 },
          ],
        },
        'saml.acs_index_taken',
      ],
      [{ signResponse: false, signAssertion: false }, 'saml.signing_required'],
      [{ signingCertificates: ['not a certificate'] }, 'saml.certificate_invalid'],
      [{ attributes: [{ name: 'tenant', source: 'fixed' }] }, 'saml.fixed_value_required'],
      [{ encryptionCertificate: null, encryptAssertion: true }, 'saml.encryption_needs_certificate'],
    ];
    for (const [change, reason] of tries) {
      const answer = await call(ctx, '/api/v1/manage/app/saml/update', { appId, ...change }, asOwner());
      expect({ change, reason: (answer.data as { reason?: string }).reason }).toEqual({ change, reason });
    }
    expect(await manage(ctx, owner, '/api/v1/manage/app/saml/detail', { appId })).toEqual(before);
  });

  it('a member of the company may not change them', async () => {
    const token = await sessionFor(ctx, erin.id, 'admin');
    const answer = await call(
      ctx,
      '/api/v1/manage/app/saml/update',
      { appId, entityId: 'https://taken-over.example' },
      { token, companyId: owner.companyId },
    );
    // A member administers no company: to them it is not there.
    expect(answer).toMatchObject({ code: 404, data: { reason: 'company.not_found' } });
  });
});

describe('assertions', () => {
  it('encrypted for the service provider, with a persistent NameID of this app', async () => {
    await manage(ctx, owner, '/api/v1/manage/app/saml/update', {
      appId,
      encryptAssertion: true,
      nameIdFormat: 'persistent',
      nameIdSource: 'persistent',
    });
    try {
      const { profile } = await signInAtSp();
      expect(profile?.nameIDFormat).toBe('urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
      expect(profile?.nameID).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(profile?.nameID).not.toContain(erin.username);
      const sent = sp.events.at(-1)?.response ?? '';
      expect(sent).toContain('EncryptedAssertion');
      expect(sent).not.toContain(String(profile?.nameID));
    } finally {
      await manage(ctx, owner, '/api/v1/manage/app/saml/update', {
        appId,
        encryptAssertion: false,
        nameIdFormat: 'unspecified',
        nameIdSource: 'username',
      });
    }
  });
});

describe('catalogue', () => {
  it('a catalogue SAML app comes with its known settings under the given address', async () => {
    const created = await manage<{ app: { appId: string } }>(ctx, owner, '/api/v1/manage/app/create', {
      name: 'Nextcloud',
      type: 'third_party',
      protocol: 'saml',
      template: 'nextcloud_saml',
      baseUrl: 'https://cloud.example.com',
    });
    const settings = await manage(ctx, owner, '/api/v1/manage/app/saml/detail', {
      appId: created.app.appId,
    });
    expect(settings).toMatchObject({
      entityId: 'https://cloud.example.com/apps/user_saml/saml/metadata',
      acs: [{ url: 'https://cloud.example.com/apps/user_saml/saml/acs', index: 0, isDefault: true }],
      sloUrl: 'https://cloud.example.com/apps/user_saml/saml/sls',
    });
  });
});

describe('signing key rotation', () => {
  it('publishes the next certificate first, then signs with it; the service provider that read both keeps working', async () => {
    const prepared = await manage<{ certificates: { pem: string; status: string }[]; metadataXml: string }>(
      ctx,
      owner,
      '/api/v1/manage/app/saml/key/prepare',
      {},
    );
    expect(prepared.certificates.map((c) => c.status)).toEqual(['active', 'next']);
    const published = await (await fetch(`${ctx.baseUrl}/saml/${owner.companyId}/metadata`)).text();
    expect(published.match(/<ds:X509Certificate>/g)).toHaveLength(2);
    const again = await call(ctx, '/api/v1/manage/app/saml/key/prepare', {}, asOwner());
    expect(again).toMatchObject({ code: 409, data: { reason: 'saml.key_next_exists' } });

    // The service provider reads the metadata now (both certificates), before the switch.
    const idp = await manage<{ entityId: string; ssoUrl: string; sloUrl: string }>(
      ctx,
      owner,
      '/api/v1/manage/app/saml/idp',
      {},
    );
    const both = prepared.certificates.map((c) => c.pem.replace(/-----[A-Z ]+-----|\s+/g, ''));
    sp.useIdp({ ...idp, certificates: both });
    expect((await signInAtSp()).profile?.nameID).toBe(erin.username);

    const activated = await manage<{ certificates: { pem: string; status: string }[] }>(
      ctx,
      owner,
      '/api/v1/manage/app/saml/key/activate',
      {},
    );
    expect(activated.certificates).toHaveLength(1);
    expect(activated.certificates[0]?.pem).toBe(prepared.certificates[1]?.pem);
    expect((await signInAtSp()).profile?.nameID).toBe(erin.username);

    // A service provider that knows only the old certificate now refuses: the old key signs nothing.
    sp.useIdp({ ...idp, certificates: [both[0] as string] });
    const refused = await signInAtSp();
    expect(refused.error).toMatch(/signature/i);
    sp.useIdp({ ...idp, certificates: [both[1] as string] });
  });
});
