import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, formSubmission } from '../../../test/browser-flow.ts';
import { call, companyMember } from '../../../test/harness.ts';
import { authorization, claimsOf, redeem } from '../../../test/oidc-flow.ts';
import { manage } from '../../../test/saml-flow.ts';
import {
  changeSource,
  pressSamlButton,
  samlButton,
  signInUpstream,
  startTwoTesseras,
  TwoSiteBrowser,
  type TwoTesseras,
} from '../../../test/saml-source-flow.ts';

/**
 * The SAML identity source (issue 33) against a real upstream: a second Tessera server acting as
 * the company's SAML identity provider (modules/saml), on its own port and database. People
 * sign in there and land signed in at the downstream's application.
 */
let two: TwoTesseras;

beforeAll(async () => {
  two = await startTwoTesseras();
});
afterAll(async () => {
  await two?.close();
});

describe('settings and service provider metadata', () => {
  it('reads the upstream metadata into the source and publishes Tessera’s own SP metadata', async () => {
    const detail = await call<{
      settings: Record<string, unknown> & { signingCertificates: string[] };
      serviceProvider: {
        entityId: string;
        acsUrl: string;
        metadataUrl: string;
        certificate: { pem: string };
      };
    }>(two.downstream, '/api/v1/manage/identity-source/detail', { sourceId: two.sourceId }, two.downOwner);
    expect(detail.code).toBe(200);
    const idpEntityId = `${two.upstream.baseUrl}/saml/${encodeURIComponent(two.upOwner.companyId)}`;
    expect(detail.data.settings).toMatchObject({
      idpEntityId,
      ssoUrl: `${idpEntityId}/sso`,
      ssoBinding: 'redirect',
      firstScan: 'create',
    });
    expect(detail.data.settings.signingCertificates[0]).toContain('-----BEGIN CERTIFICATE-----');
    const sp = detail.data.serviceProvider;
    expect(sp.acsUrl).toBe(`${two.downstream.baseUrl}/saml-source/${two.sourceId}/acs`);
    const metadata = await (await fetch(sp.metadataUrl)).text();
    expect(metadata).toContain(`entityID="${sp.entityId}"`);
    expect(metadata).toContain('AuthnRequestsSigned="true"');
    expect(metadata).toContain('WantAssertionsSigned="true"');
    expect(metadata).toContain(`Location="${sp.acsUrl}"`);
    const der = sp.certificate.pem.replace(/-----[A-Z ]+-----|\s+/g, '');
    expect(metadata.replace(/\s+/g, '')).toContain(der);
  });

  it('refuses metadata with a DOCTYPE, and a document that is no identity provider', async () => {
    const as = two.downOwner;
    const path = '/api/v1/manage/identity-source/saml/metadata/read';
    const dtd = await call(two.downstream, path, { xml: '<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>' }, as);
    expect(dtd.data).toMatchObject({ reason: 'saml.metadata_dtd' });
    const sp = await call(
      two.downstream,
      path,
      {
        url: `${two.downstream.baseUrl.replace('localhost', '127.0.0.1')}/saml-source/${two.sourceId}/metadata`,
      },
      as,
    );
    expect(sp.data).toMatchObject({ reason: 'saml_source.metadata_no_idp' });
  });
});

describe('sign-in at the upstream', () => {
  it('signs a person in at the upstream and lands them in the downstream application, created on first sign-in', async () => {
    const browser = new TwoSiteBrowser();
    const { auth, landing: atUpstream } = await pressSamlButton(two, browser);
    expect(atUpstream.page?.url).toContain(`${two.upstream.baseUrl}/interaction/`);
    const back = await signInUpstream(browser, atUpstream.page!, two.alice);
    expect(back.trail.some((url) => url.endsWith(`/saml-source/${two.sourceId}/acs`))).toBe(true);
    expect(back.callback?.toString(), back.page?.html.slice(0, 800)).toContain('code=');
    const tokens = await redeem(two.downstream.baseUrl, two.app, auth, back);
    expect(tokens.id_token).toBeTruthy();
    const person = await two.downstream.database.db
      .selectFrom('identity_links as l')
      .innerJoin('accounts as a', 'a.id', 'l.account_id')
      .select(['a.username', 'a.email', 'a.display_name', 'l.external_id'])
      .where('l.source_id', '=', two.sourceId)
      .executeTakeFirstOrThrow();
    expect(person).toEqual({
      username: 'alice',
      email: 'alice@upstream.example',
      display_name: 'Alice Upstream',
      external_id: 'alice',
    });
    const event = await two.downstream.database.db
      .selectFrom('login_events')
      .select(['result', 'method', 'identifier'])
      .where('client_id', '=', two.app.clientId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(event).toEqual({ result: 'success', method: 'saml:Upstream SSO', identifier: 'alice' });
    expect(claimsOf(tokens.id_token).amr).toEqual(['fed']);
  });

  it("asks for the company's second factor unless the upstream's authentication context counts as one", async () => {
    const mfa = { acr_values: 'https://refeds.org/profile/mfa' };
    const start = async () => {
      const browser = new TwoSiteBrowser();
      const { auth, landing } = await pressSamlButton(two, browser, mfa);
      return { auth, back: await signInUpstream(browser, landing.page!, two.alice) };
    };
    const asked = await start();
    expect(asked.back.callback).toBeUndefined();
    expect(asked.back.page?.url).toMatch(/\/interaction\/[^/]+$/);
    // What the upstream Tessera names a password sign-in: counted here, for the test's sake.
    await changeSource(two, () => ({
      mfaContexts: ['urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport'],
    }));
    const counted = await start();
    const tokens = await redeem(two.downstream.baseUrl, two.app, counted.auth, counted.back);
    expect(claimsOf(tokens.id_token)).toMatchObject({
      amr: ['fed', 'mfa'],
      acr: 'https://refeds.org/profile/mfa',
    });
  });

  it('signs the same person in again through the link, without a new account', async () => {
    const browser = new TwoSiteBrowser();
    const { auth, landing: atUpstream } = await pressSamlButton(two, browser);
    const back = await signInUpstream(browser, atUpstream.page!, two.alice);
    expect((await redeem(two.downstream.baseUrl, two.app, auth, back)).id_token).toBeTruthy();
    const links = await two.downstream.database.db
      .selectFrom('identity_links')
      .select('account_id')
      .where('source_id', '=', two.sourceId)
      .execute();
    expect(links).toHaveLength(1);
  });
});

describe("the sign-in page's button and home-realm discovery (issue 33)", () => {
  /** A top-level department of a company, made through the console's call. */
  async function department(ctx: TwoTesseras['upstream'], owner: TwoTesseras['upOwner'], name: string) {
    const root = await ctx.database.db
      .selectFrom('departments')
      .select('id')
      .where('company_id', '=', owner.companyId)
      .where('parent_id', 'is', null)
      .executeTakeFirstOrThrow();
    return (
      await manage<{ departmentId: string }>(ctx, owner, '/api/v1/manage/department/create', {
        name,
        parentId: root.id,
      })
    ).departmentId;
  }

  beforeAll(async () => {
    await changeSource(two, () => ({
      emailDomains: ['upstream.example'],
      logoUrl: 'https://logo.example/sso.png',
      groupsAttribute: 'groups',
    }));
    // The upstream sends its people's departments as the groups attribute.
    await manage(two.upstream, two.upOwner, '/api/v1/manage/app/saml/update', {
      appId: two.samlAppId,
      nameIdFormat: 'unspecified',
      attributes: [
        { name: 'email', source: 'email' },
        { name: 'displayName', source: 'name' },
        { name: 'groups', source: 'departments' },
      ],
    });
  });

  it('refuses an email domain for an OpenID Connect source when the SAML source has it: one source per domain', async () => {
    const refused = await call(
      two.downstream,
      '/api/v1/manage/identity-source/create',
      {
        type: 'oidc',
        name: 'Other provider',
        issuer: 'https://idp.other.example',
        clientId: 'tessera',
        clientSecret: 'a-client-secret',
        emailDomains: ['upstream.example'],
      },
      two.downOwner,
    );
    expect(refused.data).toMatchObject({ reason: 'upstream.domain_taken' });
    const sources = await two.downstream.database.db
      .selectFrom('identity_sources')
      .select('type')
      .where('company_id', '=', two.downOwner.companyId)
      .execute();
    expect(sources.map((row) => row.type)).toEqual(['saml']);
  });

  it("shows the source's button with its name and logo, which starts the sign-in at the upstream", async () => {
    const browser = new TwoSiteBrowser();
    const first = await browser.go(authorization(two.downstream.baseUrl, two.app.clientId).url);
    const page = first.page!;
    const uid = new URL(page.url).pathname.split('/').pop();
    expect(page.html).toMatch(
      new RegExp(
        `action="/interaction/${uid}/upstream/${two.sourceId}"[\\s\\S]*?` +
          '<button type="submit" class="secondary upstream upstream-saml"><img src="https://logo.example/sso.png"[^>]*> Sign in with Upstream SSO</button>',
      ),
    );
    const button = samlButton(page, two.sourceId);
    const atUpstream = await browser.go(button.url, button.init);
    expect(atUpstream.page?.url).toContain(`${two.upstream.baseUrl}/interaction/`);
  });

  it('sends an address of a listed domain to the upstream, and a new person joins the departments of its groups', async () => {
    const bob = await companyMember(two.upstream, two.upOwner, 'bob');
    const upEngineering = await department(two.upstream, two.upOwner, 'Engineering');
    await manage(two.upstream, two.upOwner, '/api/v1/manage/department/member/add', {
      departmentId: upEngineering,
      userIds: [bob.id],
    });
    const downEngineering = await department(two.downstream, two.downOwner, 'Engineering');
    await department(two.downstream, two.downOwner, 'Sales');

    const browser = new TwoSiteBrowser();
    const auth = authorization(two.downstream.baseUrl, two.app.clientId);
    const first = await browser.go(auth.url);
    const page = first.page!;
    expect(page.html).toContain('data-upstream-domains="upstream.example"');
    // The password is not asked for such an address: the browser goes to the upstream's page.
    const sent = await browser.go(
      `${page.url.split('?')[0]}/login`,
      formSubmission({ csrf: csrfOf(page.html), identifier: 'Bob@Upstream.Example', password: '' }),
    );
    expect(sent.page?.url).toContain(`${two.upstream.baseUrl}/interaction/`);
    expect(sent.trail.some((url) => url.startsWith(`${two.upstream.baseUrl}/saml/`))).toBe(true);
    const back = await signInUpstream(browser, sent.page!, bob);
    expect((await redeem(two.downstream.baseUrl, two.app, auth, back)).id_token).toBeTruthy();

    const person = await two.downstream.database.db
      .selectFrom('identity_links as l')
      .innerJoin('accounts as a', 'a.id', 'l.account_id')
      .select(['a.id', 'a.username'])
      .where('l.source_id', '=', two.sourceId)
      .where('l.external_id', '=', 'bob')
      .executeTakeFirstOrThrow();
    expect(person.username).toBe('bob');
    const departments = await two.downstream.database.db
      .selectFrom('department_members')
      .select('department_id')
      .where('account_id', '=', person.id)
      .execute();
    expect(departments.map((row) => row.department_id)).toEqual([downEngineering]);
  });

  it('keeps departments in step with the groups at every sign-in, never taking an administrator’s membership', async () => {
    const db = two.downstream.database.db;
    const departmentOf = async (ctx: TwoTesseras['upstream'], companyId: string, name: string) =>
      (
        await ctx.database.db
          .selectFrom('departments')
          .select('id')
          .where('company_id', '=', companyId)
          .where('name', '=', name)
          .executeTakeFirstOrThrow()
      ).id;
    const bob = await two.upstream.database.db
      .selectFrom('accounts')
      .select(['id', 'username'])
      .where('username', '=', 'bob')
      .executeTakeFirstOrThrow();
    const bobDown = await db
      .selectFrom('identity_links')
      .select('account_id')
      .where('source_id', '=', two.sourceId)
      .where('external_id', '=', 'bob')
      .executeTakeFirstOrThrow();
    const up = {
      engineering: await departmentOf(two.upstream, two.upOwner.companyId, 'Engineering'),
      sales: await department(two.upstream, two.upOwner, 'Sales'),
      support: await department(two.upstream, two.upOwner, 'Support'),
    };
    const down = {
      engineering: await departmentOf(two.downstream, two.downOwner.companyId, 'Engineering'),
      sales: await departmentOf(two.downstream, two.downOwner.companyId, 'Sales'),
      support: await department(two.downstream, two.downOwner, 'Support'),
    };
    const members = async (
      ctx: TwoTesseras['upstream'],
      owner: TwoTesseras['upOwner'],
      path: string,
      departmentId: string,
      userId: string,
    ) => manage(ctx, owner, `/api/v1/manage/department/member/${path}`, { departmentId, userIds: [userId] });
    const signInBob = async () => {
      const browser = new TwoSiteBrowser();
      const { auth, landing: atUpstream } = await pressSamlButton(two, browser);
      const back = await signInUpstream(browser, atUpstream.page!, { ...bob, password: 'Sunny-Day-42' });
      expect((await redeem(two.downstream.baseUrl, two.app, auth, back)).id_token).toBeTruthy();
      const rows = await db
        .selectFrom('department_members')
        .select('department_id')
        .where('account_id', '=', bobDown.account_id)
        .execute();
      return rows.map((row) => row.department_id).sort();
    };
    // An administrator puts Bob in Sales downstream; upstream, he leaves Engineering for Sales and Support.
    await members(two.downstream, two.downOwner, 'add', down.sales, bobDown.account_id);
    await members(two.upstream, two.upOwner, 'remove', up.engineering, bob.id);
    await members(two.upstream, two.upOwner, 'add', up.sales, bob.id);
    await members(two.upstream, two.upOwner, 'add', up.support, bob.id);
    expect(await signInBob()).toEqual([down.sales, down.support].sort());
    // Upstream he leaves Sales and Support: Support (the source's) goes, Sales (the administrator's) stays.
    await members(two.upstream, two.upOwner, 'remove', up.sales, bob.id);
    await members(two.upstream, two.upOwner, 'remove', up.support, bob.id);
    expect(await signInBob()).toEqual([down.sales]);
    // Back in Engineering upstream: placed again.
    await members(two.upstream, two.upOwner, 'add', up.engineering, bob.id);
    expect(await signInBob()).toEqual([down.engineering, down.sales].sort());
  });
});

describe("the upstream's metadata, read again (issue 33)", () => {
  interface Refresh {
    refreshedAt: string | null;
    failedAt: string | null;
    error: string | null;
  }
  const bare = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s+/g, '');
  const detail = async () =>
    (
      await call<{ settings: { signingCertificates: string[] }; metadataRefresh: Refresh }>(
        two.downstream,
        '/api/v1/manage/identity-source/detail',
        { sourceId: two.sourceId },
        two.downOwner,
      )
    ).data;
  const refreshNow = () =>
    manage<Refresh>(two.downstream, two.downOwner, '/api/v1/manage/identity-source/saml/metadata/refresh', {
      sourceId: two.sourceId,
    });
  const upstreamCertificates = async (path: string) =>
    (await manage<{ certificates: { pem: string; status: string }[] }>(two.upstream, two.upOwner, path, {}))
      .certificates;

  it('follows a rotation of the upstream’s signing key, on demand and by the daily job; a failed read keeps the last good settings and shows why', async () => {
    // The address as the test's downstream may reach it (its outbound rule allows 127.0.0.1).
    const metadataUrl = `${two.upstream.baseUrl.replace('//localhost:', '//127.0.0.1:')}/saml/${two.upOwner.companyId}/metadata`;
    await changeSource(two, () => ({ metadataUrl }));
    const [current] = (await upstreamCertificates('/api/v1/manage/app/saml/idp')).map((c) => bare(c.pem));
    expect((await detail()).settings.signingCertificates.map(bare)).toEqual([current]);

    // The upstream publishes its next certificate: "refresh now" takes it beside the current one.
    const next = (await upstreamCertificates('/api/v1/manage/app/saml/key/prepare')).find(
      (c) => c.status === 'next',
    );
    const refreshed = await refreshNow();
    expect(refreshed).toMatchObject({ failedAt: null, error: null });
    expect(refreshed.refreshedAt).toBeTruthy();
    expect((await detail()).settings.signingCertificates.map(bare).sort()).toEqual(
      [current, bare(next?.pem ?? '')].sort(),
    );

    // The metadata cannot be read: the certificates stay, the error is shown on the source.
    await changeSource(two, () => ({ metadataUrl: 'http://127.0.0.1:9/metadata' }));
    const failed = await refreshNow();
    expect(failed.failedAt).toBeTruthy();
    expect(failed.error).toMatch(/metadata/i);
    expect((await detail()).settings.signingCertificates).toHaveLength(2);

    // The upstream signs with its new key and retires the old one; the daily job follows.
    await changeSource(two, () => ({ metadataUrl }));
    await upstreamCertificates('/api/v1/manage/app/saml/key/activate');
    await two.downstream.database.db
      .updateTable('saml_source_metadata_refreshes')
      .set({ next_refresh_at: new Date(Date.now() - 1000) })
      .execute();
    await two.downstream.tessera.jobs.runSoon('saml-source.metadata-refresh.schedule');
    await two.downstream.tessera.jobs.drain();
    const after = await detail();
    expect(after.settings.signingCertificates.map(bare)).toEqual([bare(next?.pem ?? '')]);
    expect(after.metadataRefresh).toMatchObject({ failedAt: null, error: null });

    // A person signs in with an assertion signed by the new key.
    const browser = new TwoSiteBrowser();
    const { auth, landing: atUpstream } = await pressSamlButton(two, browser);
    const back = await signInUpstream(browser, atUpstream.page!, two.alice);
    expect((await redeem(two.downstream.baseUrl, two.app, auth, back)).id_token).toBeTruthy();
  });
});
