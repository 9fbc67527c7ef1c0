import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { call, companyMember, ownerWithCompany, type TestContext } from '../../test/harness.ts';
import { signedInTo, startLogoutReceiver, verifiedLogoutToken } from '../../test/logout-receiver.ts';
import {
  authorization,
  type CookieJar,
  claimsOf,
  go,
  openedApp,
  startWithCompany,
  type TestApp,
} from '../../test/oidc-flow.ts';
import { createToken, PATCH_OP, scimClient } from '../scim/scim-test-client.ts';
import { createSignOut, withSignOut } from './sign-out.ts';

/**
 * Issue 13: "an administrator's disable or reset does the same" as signing out. When an
 * administrator disables, locks or removes a person, resets their password or removes their
 * factors, the database ends the person's sessions with the change; the applications they were
 * signed in to get a Back-Channel Logout token for each session (verified here as a relying party
 * verifies it), after the change committed and before the administrator's call answers.
 */

type Company = Awaited<ReturnType<typeof ownerWithCompany>>;

let ctx: TestContext;
let acme: Company;
let globex: Company;
let receiver: Awaited<ReturnType<typeof startLogoutReceiver>>;
let wiki: TestApp;
let crm: TestApp;
let globexApp: TestApp;

beforeAll(async () => {
  ({ ctx, owner: acme } = await startWithCompany('signoutacme', 'Acme'));
  globex = await ownerWithCompany(ctx, 'signoutglobex', 'Globex');
  receiver = await startLogoutReceiver();
  wiki = await openedApp(ctx, acme, { backchannelLogoutUri: `${receiver.base}/wiki` });
  crm = await openedApp(ctx, acme, { backchannelLogoutUri: `${receiver.base}/crm` });
  globexApp = await openedApp(ctx, globex, { backchannelLogoutUri: `${receiver.base}/globex` });
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
});

const as = (company: Company) => (path: string, body: unknown) =>
  call(ctx, path, body, { token: company.token, companyId: company.companyId });

/** The logout tokens received since the last call, by path, each verified for its app. */
async function logoutsReceived(apps: Record<string, TestApp>) {
  const deliveries = receiver.received.splice(0);
  const verified: Record<string, Awaited<ReturnType<typeof verifiedLogoutToken>>> = {};
  for (const { path, token } of deliveries) {
    const app = apps[path.slice(1)];
    expect(app, `a token for ${path}`).toBeDefined();
    verified[path.slice(1)] = await verifiedLogoutToken(ctx.baseUrl, token, app!.clientId);
  }
  expect(deliveries.length).toBe(Object.keys(verified).length);
  return verified;
}

/** What a signed-in browser gets from an app asking without showing anything (prompt=none). */
async function silently(jar: CookieJar, app: TestApp) {
  const landing = await go(jar, authorization(ctx.baseUrl, app.clientId, { prompt: 'none' }).url);
  return landing.callback?.searchParams.get('code') ? 'code' : landing.callback?.searchParams.get('error');
}

describe("an administrator's action signs the person out of their applications", () => {
  it('disabling a person: each app of the session gets a valid logout token, and single sign-on ends', async () => {
    const person = await companyMember(ctx, acme, 'dora');
    const { jar, idTokens } = await signedInTo(ctx.baseUrl, [wiki, crm], person);
    receiver.received.length = 0;

    const disabled = await as(acme)('/api/v1/manage/user/status', { userId: person.id, status: 'disabled' });
    expect(disabled.code, disabled.msg).toBe(200);
    const tokens = await logoutsReceived({ wiki, crm });
    expect(Object.keys(tokens).sort()).toEqual(['crm', 'wiki']);
    for (const [name, idToken] of [
      ['wiki', idTokens[0]],
      ['crm', idTokens[1]],
    ] as const) {
      expect(tokens[name]?.sub).toBe(claimsOf(idToken).sub);
      expect(tokens[name]?.sid).toBe(claimsOf(idToken).sid);
    }
    expect(await silently(jar, wiki)).toBe('login_required');
  });

  it('locking, a password reset and removing factors do the same; enabling again tells nobody', async () => {
    const person = await companyMember(ctx, acme, 'lars');
    const admin = as(acme);
    await signedInTo(ctx.baseUrl, [wiki], person);
    receiver.received.length = 0;
    expect((await admin('/api/v1/manage/user/status', { userId: person.id, status: 'locked' })).code).toBe(
      200,
    );
    expect(Object.keys(await logoutsReceived({ wiki }))).toEqual(['wiki']);
    expect((await admin('/api/v1/manage/user/status', { userId: person.id, status: 'enabled' })).code).toBe(
      200,
    );
    expect(receiver.received).toEqual([]);

    const { idTokens } = await signedInTo(ctx.baseUrl, [crm], person);
    const password = 'Fresh-Start-77';
    const reset = await admin('/api/v1/manage/user/password/reset', {
      userId: person.id,
      password,
      confirmPassword: password,
      mustChangePassword: false,
    });
    expect(reset.code, reset.msg).toBe(200);
    expect((await logoutsReceived({ crm })).crm?.sid).toBe(claimsOf(idTokens[0]).sid);

    await signedInTo(ctx.baseUrl, [wiki], { ...person, password });
    await ctx.database.db
      .insertInto('mfa_factors')
      .values({ id: newId(), account_id: person.id, type: 'otp', name: 'Phone', status: 'bound' })
      .execute();
    expect((await admin('/api/v1/manage/mfa/admin/user/del', { userId: person.id })).code).toBe(200);
    expect(Object.keys(await logoutsReceived({ wiki }))).toEqual(['wiki']);
  });

  it("a person who also belongs to another company: that company's apps are told, the others go on", async () => {
    const person = await companyMember(ctx, acme, 'nina');
    await ctx.database.db
      .insertInto('company_members')
      .values({ company_id: globex.companyId, account_id: person.id, role: 'member', status: 'enabled' })
      .execute();
    const { jar, idTokens } = await signedInTo(ctx.baseUrl, [wiki, globexApp], person);
    receiver.received.length = 0;

    expect(
      (await as(acme)('/api/v1/manage/user/status', { userId: person.id, status: 'disabled' })).code,
    ).toBe(200);
    const tokens = await logoutsReceived({ wiki });
    expect(tokens.wiki?.sid).toBe(claimsOf(idTokens[0]).sid);
    expect(await silently(jar, globexApp)).toBe('code');

    // Removed by Globex (its record only: the account belongs to Acme too): Globex's app is told.
    expect((await as(globex)('/api/v1/manage/user/del', { userId: person.id })).code).toBe(200);
    expect((await logoutsReceived({ globex: globexApp })).globex?.sub).toBe(claimsOf(idTokens[1]).sub);
  });

  it('removing a person the company fully manages, from the administrators card too', async () => {
    const person = await companyMember(ctx, acme, 'rolf');
    await signedInTo(ctx.baseUrl, [crm], person);
    receiver.received.length = 0;
    expect((await as(acme)('/api/v1/manage/company/user/del', { userId: person.id })).code).toBe(200);
    expect(Object.keys(await logoutsReceived({ crm }))).toEqual(['crm']);
  });

  it('a change that rolls back tells nobody, and its sessions go on', async () => {
    const person = await companyMember(ctx, acme, 'otto');
    const { jar } = await signedInTo(ctx.baseUrl, [wiki], person);
    receiver.received.length = 0;
    const signOut = createSignOut({ db: ctx.database.db, provider: ctx.tessera.provider, log: console });
    const failing = withSignOut(ctx.database.db, signOut, async (trx, signOutBefore) => {
      await signOutBefore(person.id);
      await trx.updateTable('accounts').set({ status: 'disabled' }).where('id', '=', person.id).execute();
      throw new Error('refused halfway');
    });
    await expect(failing).rejects.toThrow('refused halfway');
    expect(receiver.received).toEqual([]);
    expect(await silently(jar, wiki)).toBe('code');
  });

  it('over SCIM: a PATCH refused after its disable tells nobody; a deactivation tells the apps once it committed', async () => {
    const person = await companyMember(ctx, acme, 'sandy');
    const { jar } = await signedInTo(ctx.baseUrl, [wiki], person);
    receiver.received.length = 0;
    await as(acme)('/api/v1/manage/company/scim/settings/update', { allowPasswords: true });
    const scim = scimClient(ctx, acme.companyId, (await createToken(ctx, acme, 'Entra ID')).secret);
    // A directory person: the disable is allowed, the password of the same request is not.
    const now = new Date();
    const source = { id: newId(), company_id: acme.companyId, created_at: now, updated_at: now };
    await ctx.database.db
      .insertInto('identity_sources')
      .values({ ...source, type: 'ldap', name: 'Directory', settings: '{}', secret_sealed: null })
      .execute();
    await ctx.database.db
      .insertInto('identity_links')
      .values({
        source_id: source.id,
        company_id: acme.companyId,
        account_id: person.id,
        external_id: 'sandy',
        external_dn: null,
        external_name: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const disable = { op: 'replace', path: 'active', value: false };
    const refused = await scim('PATCH', `/Users/${person.id}`, {
      schemas: [PATCH_OP],
      Operations: [disable, { op: 'replace', path: 'password', value: 'Brand-New-Day-88' }],
    });
    expect(refused.status).toBe(409);
    expect(receiver.received).toEqual([]);
    expect(await silently(jar, wiki)).toBe('code');

    const done = await scim('PATCH', `/Users/${person.id}`, { schemas: [PATCH_OP], Operations: [disable] });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(Object.keys(await logoutsReceived({ wiki }))).toEqual(['wiki']);
    expect(await silently(jar, wiki)).toBe('login_required');
  });
});

describe('signOutAccountEverywhere', () => {
  it("tells one company's apps, or every app, and ends the single sign-on sessions", async () => {
    const person = await companyMember(ctx, acme, 'greta');
    await ctx.database.db
      .insertInto('company_members')
      .values({ company_id: globex.companyId, account_id: person.id, role: 'member', status: 'enabled' })
      .execute();
    const { jar } = await signedInTo(ctx.baseUrl, [wiki, globexApp], person);
    receiver.received.length = 0;

    const forOne = await ctx.tessera.signOutAccountEverywhere(person.id, { companyId: acme.companyId });
    expect(forOne).toEqual({ sessions: 1, delivered: 1, failed: 0 });
    expect(Object.keys(await logoutsReceived({ wiki }))).toEqual(['wiki']);
    expect(await silently(jar, globexApp)).toBe('code');

    const everywhere = await ctx.tessera.signOutAccountEverywhere(person.id);
    expect(everywhere).toEqual({ sessions: 1, delivered: 1, failed: 0 });
    expect(Object.keys(await logoutsReceived({ globex: globexApp }))).toEqual(['globex']);
    expect(await silently(jar, wiki)).toBe('login_required');
  });
});
