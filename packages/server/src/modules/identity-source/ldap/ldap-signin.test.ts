import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browse,
  CookieJar,
  csrfOf,
  decodeEntities,
  followToRedirectUri,
  request,
  signInToPortal,
  startAuthorization,
  submitSignIn,
} from '../../../test/browser-flow.ts';
import { createLdapSource, DIRECTORY, LDAP_URL, noDirectory } from '../../../test/directory.ts';
import { personUid } from '../../../test/directory-seed.ts';
import {
  accountRow,
  call,
  companyMember,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../../test/harness.ts';
import { openedApp as openApp } from '../../../test/opened-app.ts';
import { hashPassword } from '../../account/password.ts';
import { saveSafetyPart } from '../../safety/safety.repo.ts';

/**
 * LDAP sign-in through the one sign-in page and the one pipeline (issue 14): the directory checks
 * the password of its people, a first sign-in creates them in the company whose application it
 * is, no other company's directory is asked, injections find nobody, a local password never lets
 * a directory person in, a silent directory gives a clear message.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let sourceId: string;
let appClientId: string;
const redirectUri = 'http://localhost:7001/callback';
const password: string = DIRECTORY.peoplePassword;

const openedApp = (company: { token: string; companyId: string }) => openApp(ctx, company, redirectUri);

/** Signs in to the application of `clientId` on the sign-in page: the POST's answer and the page it shows. */
async function signIn(clientId: string, identifier: string, secret = password) {
  const start = await startAuthorization({ baseUrl: ctx.baseUrl, clientId, redirectUri });
  const posted = await submitSignIn(start.jar, start.location, identifier, secret);
  const location = posted.headers.get('location') ?? '';
  return {
    status: posted.status,
    location,
    html: posted.status === 303 ? '' : decodeEntities(await posted.text()),
    posted,
    jar: start.jar,
  };
}

const lastEvent = async (identifier: string) =>
  ctx.database.db
    .selectFrom('login_events')
    .select(['result', 'failure_cause', 'company_id', 'account_id'])
    .where('identifier', '=', identifier)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
const accountNamed = (username: string) =>
  ctx.database.db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst();

describe.skipIf(noDirectory)('LDAP sign-in', () => {
  beforeAll(async () => {
    ctx = await startTestApp({ listen: true });
    owner = await ownerWithCompany(ctx, 'dir-owner', 'Directory Corp');
    sourceId = await createLdapSource(ctx, owner);
    appClientId = await openedApp(owner);
  });
  afterAll(() => ctx?.close());

  it("creates a directory person at their first sign-in to the company's application, linked by entryUUID", async () => {
    const result = await signIn(appClientId, personUid(100));
    expect(result.status, result.html).toBe(303);
    const account = await accountNamed(personUid(100));
    expect(account).toMatchObject({
      home_company_id: owner.companyId,
      password_hash: '!',
      email: `${personUid(100)}@tessera.test`,
    });
    const link = await ctx.database.db
      .selectFrom('identity_links')
      .selectAll()
      .where('account_id', '=', account?.id as string)
      .executeTakeFirstOrThrow();
    expect(link).toMatchObject({
      source_id: sourceId,
      company_id: owner.companyId,
      external_name: personUid(100),
    });
    expect(link.external_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await lastEvent(personUid(100))).toMatchObject({
      result: 'success',
      company_id: owner.companyId,
      account_id: account?.id,
    });
  });

  it('checks every later password against the directory, counting wrong ones like any other', async () => {
    const wrong = await signIn(appClientId, personUid(100), 'Not-the-password-1');
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('The account or password is incorrect');
    expect(await lastEvent(personUid(100))).toMatchObject({
      result: 'failure',
      failure_cause: 'wrong_password',
    });
    expect((await accountNamed(personUid(100)))?.failed_count).toBe(1);
    // The shared page (the user centre, no company) signs a linked person in through the directory too.
    const portal = await signInToPortal(ctx.baseUrl, personUid(100), password);
    expect(portal.page.html).toContain('My account');
    expect((await accountNamed(personUid(100)))?.failed_count).toBe(0);
  });

  it('never lets a directory person in with a local password', async () => {
    const stale = 'Stale-local-pass-1';
    const account = await accountNamed(personUid(100));
    await ctx.database.db
      .updateTable('accounts')
      .set({ password_hash: await hashPassword(stale) })
      .where('id', '=', account?.id as string)
      .execute();
    const refused = await signIn(appClientId, personUid(100), stale);
    expect(refused.status).toBe(401);
    expect(await lastEvent(personUid(100))).toMatchObject({ failure_cause: 'wrong_password' });
    expect((await signIn(appClientId, personUid(100))).status).toBe(303);
  });

  it('finds nobody for injection usernames, whatever the password', async () => {
    for (const identifier of ['*', ')(uid=*', `${personUid(1)})(|(uid=*`, '\\', 'user0001\u0000']) {
      const result = await signIn(appClientId, identifier);
      expect({ identifier, status: result.status }).toEqual({ identifier, status: 401 });
    }
    const created = await ctx.database.db
      .selectFrom('identity_links')
      .select('account_id')
      .where('source_id', '=', sourceId)
      .execute();
    expect(created).toHaveLength(1);
  });

  it("asks no directory about an unknown identifier on the shared page, and no other company's for its applications", async () => {
    const portal = await signInToPortalExpectingRefusal(personUid(200));
    expect(portal).toContain('The account or password is incorrect');
    const other = await ownerWithCompany(ctx, 'other-owner', 'Other Corp');
    const otherApp = await openedApp(other);
    expect((await signIn(otherApp, personUid(201))).status).toBe(401);
    expect(await accountNamed(personUid(200))).toBeUndefined();
    expect(await accountNamed(personUid(201))).toBeUndefined();
    // Someone of the other company named like a directory person: their own password decides, not the directory's.
    await companyMember(ctx, other, personUid(202), 'Own-password-42');
    expect((await signIn(appClientId, personUid(202))).status).toBe(401);
    expect(await lastEvent(personUid(202))).toMatchObject({ failure_cause: 'wrong_password' });
  });

  it('skips the second factor only for a source with the skip-MFA flag', async () => {
    await saveSafetyPart(ctx.database.db, owner.companyId, 'mfa', {
      mode: 'required',
      types: ['otp'],
      lockout: { maxFailures: 5, lockMinutes: 15 },
    });
    const asked = await signIn(appClientId, personUid(300));
    expect(asked.status).toBe(303);
    const page = await browse(asked.jar, new URL(asked.location, ctx.baseUrl).toString());
    expect(page.html).toContain('Set up two-step verification');
    const settings = await call<{ settings: Record<string, unknown> }>(
      ctx,
      '/api/v1/manage/identity-source/detail',
      { sourceId },
      owner,
    );
    const { bindPasswordSet: _, ...rest } = settings.data.settings;
    const saved = await call(
      ctx,
      '/api/v1/manage/identity-source/update',
      { ...rest, sourceId, type: 'ldap', skipMfa: true },
      owner,
    );
    expect(saved.code, saved.msg).toBe(200);
    const skipped = await signIn(appClientId, personUid(300));
    const landed = await followToRedirectUri(skipped.jar, ctx.baseUrl, skipped.posted, redirectUri);
    expect(landed.searchParams.get('code')).toBeTruthy();
  });

  it('gives a clear message and tries nothing else when the directory does not answer', async () => {
    const detail = await call<{ settings: Record<string, unknown> }>(
      ctx,
      '/api/v1/manage/identity-source/detail',
      { sourceId },
      owner,
    );
    const { bindPasswordSet: _, ...rest } = detail.data.settings;
    const moved = await call(
      ctx,
      '/api/v1/manage/identity-source/update',
      { ...rest, sourceId, type: 'ldap', url: 'ldap://127.0.0.1:9', bindPassword: DIRECTORY.readerPassword },
      owner,
    );
    expect(moved.code, moved.msg).toBe(200);
    const before = (await accountNamed(personUid(100)))?.failed_count;
    const result = await signIn(appClientId, personUid(100));
    expect(result.status).toBe(503);
    expect(result.html).toContain("Your company's directory did not answer");
    expect(await lastEvent(personUid(100))).toMatchObject({ failure_cause: 'directory_unavailable' });
    expect((await accountNamed(personUid(100)))?.failed_count).toBe(before);
    expect(LDAP_URL).toBeTruthy();
  });

  it('refuses the people of a disabled source, recording why', async () => {
    await call(ctx, '/api/v1/manage/identity-source/status', { sourceId, enabled: false }, owner);
    expect((await signIn(appClientId, personUid(100))).status).toBe(401);
    expect(await lastEvent(personUid(100))).toMatchObject({ failure_cause: 'source_disabled' });
    expect((await accountRow(ctx, (await accountNamed(personUid(100)))?.id as string)).status).toBe(
      'enabled',
    );
  });
});

/** The user centre's sign-in page with a refused password: its text. */
async function signInToPortalExpectingRefusal(identifier: string) {
  const jar = new CookieJar();
  const first = await browse(jar, `${ctx.baseUrl}/portal/account`);
  const posted = await request(jar, `${first.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfOf(first.html), identifier, password }).toString(),
  });
  expect(posted.status).toBe(401);
  return decodeEntities(await posted.text());
}
