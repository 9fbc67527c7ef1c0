import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { UNUSABLE_PASSWORD_HASH } from '../account/password.ts';
import {
  assertScimError,
  assertValidUser,
  createToken,
  ENTERPRISE,
  PATCH_OP,
  type ScimAnswer,
  scimClient,
  USER,
} from './scim-test-client.ts';

/**
 * Issue 31 (inbound SCIM): /Users through the console's user rules. The request bodies are the
 * ones Microsoft Entra ID's provisioning documentation ("Develop a SCIM endpoint …", request and
 * response examples) and Okta's SCIM 2.0 reference show; every User we answer is checked by
 * SCIMMY's schema definitions.
 */

let ctx: TestContext;
let a: Awaited<ReturnType<typeof ownerWithCompany>>;
let b: Awaited<ReturnType<typeof ownerWithCompany>>;
let scim: ReturnType<typeof scimClient>;
let scimB: ReturnType<typeof scimClient>;

beforeAll(async () => {
  ctx = await startTestApp();
  a = await ownerWithCompany(ctx, 'scim-users-a', 'Alpha People');
  b = await ownerWithCompany(ctx, 'scim-users-b', 'Beta People');
  scim = scimClient(ctx, a.companyId, (await createToken(ctx, a, 'Entra ID')).secret);
  scimB = scimClient(ctx, b.companyId, (await createToken(ctx, b, 'Okta')).secret);
});
afterAll(() => ctx.close());

const accountsCount = async () =>
  (await ctx.database.db.selectFrom('accounts').select('id').execute()).length;
const created = (answer: ScimAnswer) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  assertValidUser(answer.body);
  return answer.body as { id: string; meta: { version: string; location: string } } & Record<string, unknown>;
};

describe('Microsoft Entra ID', () => {
  let entraUserId: string;

  it('probes with filter=userName eq before creating, then creates (documented Create User body)', async () => {
    const probe = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "Test_User_dfeef4c5-5681-4387-b016-bdf221e82081"')}`,
    );
    expect(probe.status).toBe(200);
    expect(probe.body).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    const answer = await scim('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: true,
      emails: [
        { primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' },
      ],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    });
    const user = created(answer);
    entraUserId = user.id;
    expect(answer.headers.location).toBe(user.meta.location);
    expect(answer.headers.etag).toBe(user.meta.version);
    expect(user).toMatchObject({
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: true,
      displayName: 'givenName familyName',
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      emails: [
        { value: 'test_user_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com', type: 'work', primary: true },
      ],
    });
    // The console's users screen shows the same person; no password was set, and the audit names the token.
    const listed = await call<{ list: { userId: string; username: string }[] }>(
      ctx,
      '/api/v1/manage/user/list',
      { page: 1, size: 50 },
      a,
    );
    expect(listed.data.list.map((u) => u.userId)).toContain(user.id);
    const account = await ctx.database.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(account.password_hash).toBe(UNUSABLE_PASSWORD_HASH);
    const event = await ctx.database.db
      .selectFrom('audit_events')
      .select(['actor_account_id', 'action'])
      .where('target_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(event).toEqual({ actor_account_id: 'scim:Entra ID', action: 'user.create' });
    // The log screen names the token as the actor.
    const log = await call<{ list: { actorName: string | null }[] }>(
      ctx,
      '/api/v1/manage/log/admin/list',
      { range: 'month', page: 1, pageSize: 20, action: 'user.create' },
      a,
    );
    expect(log.code, log.msg).toBe(200);
    expect(log.data.list.map((e) => e.actorName)).toContain('scim:Entra ID');
    const found = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "test_user_AB6490ee-1e48-479e-a20b-2d77186b5dd1"')}`,
    );
    expect(found.body.totalResults).toBe(1);
    assertValidUser((found.body.Resources as Record<string, unknown>[])[0] as Record<string, unknown>);
  });

  it('refuses the same userName again (409 uniqueness), changing nothing', async () => {
    const before = await accountsCount();
    const again = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'test_user_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
    });
    assertScimError(again, 409, 'uniqueness');
    expect(await accountsCount()).toBe(before);
  });

  it('updates multi-valued and single-valued attributes with capitalised ops (documented PATCH bodies)', async () => {
    const answer = await scim('PATCH', `/Users/${entraUserId}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    assertValidUser(answer.body);
    expect(answer.body).toMatchObject({
      emails: [{ value: 'updatedemail@microsoft.com', type: 'work', primary: true }],
      name: { familyName: 'updatedFamilyName', givenName: 'givenName' },
    });
    // Entra ID also sends Add for a value it has not sent before, and URN paths of the enterprise extension.
    const add = await scim('PATCH', `/Users/${entraUserId}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Add', path: 'title', value: 'scim tester' },
        { op: 'Add', path: `${ENTERPRISE}:employeeNumber`, value: '99887766' },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Research' },
        { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+86 138 0013 8000' },
      ],
    });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    assertValidUser(add.body);
    expect(add.body).toMatchObject({
      title: 'scim tester',
      phoneNumbers: [{ value: '+8613800138000', type: 'mobile' }],
      [ENTERPRISE]: { employeeNumber: '99887766', department: 'Research' },
    });
    // The documented userName replace (the user principal name changed): a rename, audited as the token.
    const rename = await scim('PATCH', `/Users/${entraUserId}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' },
      ],
    });
    expect(rename.status, JSON.stringify(rename.body)).toBe(200);
    assertValidUser(rename.body);
    expect(rename.body).toMatchObject({
      id: entraUserId,
      userName: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com',
      title: 'scim tester',
    });
    const renamed = await ctx.database.db
      .selectFrom('audit_events')
      .select(['actor_account_id', 'before', 'after'])
      .where('target_id', '=', entraUserId)
      .where('action', '=', 'user.rename')
      .executeTakeFirstOrThrow();
    expect(renamed).toMatchObject({
      actor_account_id: 'scim:Entra ID',
      before: { username: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1' },
      after: { username: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' },
    });
    const found = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "5B50642D-79fc-4410-9e90-4c077cdd1a59@testuser.com"')}`,
    );
    expect((found.body.Resources as { id: string }[]).map((u) => u.id)).toEqual([entraUserId]);
  });

  it('sets the manager by id as Entra ID sends it', async () => {
    const boss = created(
      await scim('POST', '/Users', { schemas: [USER], userName: 'entra.boss', displayName: 'The Boss' }),
    );
    const answer = await scim('PATCH', `/Users/${entraUserId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: `${ENTERPRISE}:manager`, value: boss.id }],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    assertValidUser(answer.body);
    expect((answer.body[ENTERPRISE] as Record<string, unknown>).manager).toMatchObject({
      value: boss.id,
      displayName: 'The Boss',
    });
    const bogus = await scim('PATCH', `/Users/${entraUserId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: `${ENTERPRISE}:manager`, value: 'not-a-user' }],
    });
    assertScimError(bogus, 400, 'invalidValue');
  });

  it('soft-deletes with active=false, also as the string "False", and re-enables', async () => {
    const disable = await scim('PATCH', `/Users/${entraUserId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: false }],
    });
    expect(disable.body.active).toBe(false);
    const status = async () =>
      (
        await ctx.database.db
          .selectFrom('company_members')
          .select('status')
          .where('company_id', '=', a.companyId)
          .where('account_id', '=', entraUserId)
          .executeTakeFirstOrThrow()
      ).status;
    expect(await status()).toBe('disabled');
    const enable = await scim('PATCH', `/Users/${entraUserId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    expect(enable.body.active).toBe(true);
    // Entra ID's non-compliant form: no path, the value an object, the boolean a string.
    const stringly = await scim('PATCH', `/Users/${entraUserId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', value: { active: 'False' } }],
    });
    expect(stringly.status).toBe(200);
    expect(stringly.body.active).toBe(false);
    expect(await status()).toBe('disabled');
    const nonsense = await scim('PATCH', `/Users/${entraUserId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'maybe' }],
    });
    assertScimError(nonsense, 400, 'invalidValue');
    expect(await status()).toBe('disabled');
  });

  it('deletes (documented DELETE): 204, then 404', async () => {
    const gone = created(await scim('POST', '/Users', { schemas: [USER], userName: 'entra.leaver' }));
    const deleted = await scim('DELETE', `/Users/${gone.id}`);
    expect(deleted.status).toBe(204);
    assertScimError(await scim('GET', `/Users/${gone.id}`), 404);
    assertScimError(await scim('DELETE', `/Users/${gone.id}`), 404);
  });
});

describe('Okta', () => {
  it('checks with filter, startIndex=1 and count=100, creates, reads and updates by PUT', async () => {
    const probe = await scimB(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "test.user@okta.local"')}&startIndex=1&count=100`,
    );
    expect(probe.body).toMatchObject({ totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
    const oktaBody = {
      schemas: [USER],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      active: true,
    };
    // Okta's default username format is the email: a username may hold one @ and a domain.
    const before = await accountsCount();
    assertScimError(
      await scimB('POST', '/Users', { ...oktaBody, userName: 'test.user@@okta.local' }),
      400,
      'invalidValue',
    );
    expect(await accountsCount()).toBe(before);
    const user = created(await scimB('POST', '/Users', oktaBody));
    expect(user).toMatchObject({
      userName: 'test.user@okta.local',
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
    });
    const read = await scimB('GET', `/Users/${user.id}`);
    expect(read.body).toEqual(user);
    // Okta's updates are PUTs of the whole user.
    const put = await scimB('PUT', `/Users/${user.id}`, {
      ...oktaBody,
      id: user.id,
      name: { givenName: 'Another', familyName: 'User' },
      displayName: 'Another User',
      emails: [{ primary: true, value: 'another.user@okta.local', type: 'work' }],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    assertValidUser(put.body);
    expect(put.body).toMatchObject({
      displayName: 'Another User',
      name: { givenName: 'Another' },
      emails: [{ value: 'another.user@okta.local' }],
    });
    // The email changed at Okta, and so the username mapped from it: a PUT with the new userName renames.
    const renamed = await scimB('PUT', `/Users/${user.id}`, {
      ...oktaBody,
      userName: 'another.user@okta.local',
      emails: [{ primary: true, value: 'another.user@okta.local', type: 'work' }],
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ id: user.id, userName: 'another.user@okta.local' });
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['actor_account_id', 'after'])
      .where('target_id', '=', user.id)
      .where('action', '=', 'user.rename')
      .executeTakeFirstOrThrow();
    expect(audit).toEqual({ actor_account_id: 'scim:Okta', after: { username: 'another.user@okta.local' } });
    // Deactivation is a PUT with active false.
    const off = await scimB('PUT', `/Users/${user.id}`, {
      ...oktaBody,
      userName: 'another.user@okta.local',
      active: false,
    });
    expect(off.body.active).toBe(false);
    // B's people: its owner and the Okta user.
    const list = await scimB('GET', '/Users?startIndex=1&count=100');
    expect(list.body.totalResults).toBe(2);
    expect((list.body.Resources as { userName: string }[]).map((u) => u.userName).sort()).toEqual([
      'another.user@okta.local',
      'scim-users-b',
    ]);
  });
});

describe('rules and the wall', () => {
  it('keeps company A’s people from B’s token and B’s path (404, nothing changed)', async () => {
    const aUser = created(
      await scim('POST', '/Users', { schemas: [USER], userName: 'alpha.only', displayName: 'Alpha Only' }),
    );
    assertScimError(await scimB('GET', `/Users/${aUser.id}`), 404);
    assertScimError(
      await scimB('PUT', `/Users/${aUser.id}`, {
        schemas: [USER],
        userName: 'alpha.only',
        displayName: 'Hijacked',
      }),
      404,
    );
    assertScimError(
      await scimB('PATCH', `/Users/${aUser.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      }),
      404,
    );
    assertScimError(await scimB('DELETE', `/Users/${aUser.id}`), 404);
    const list = await scimB('GET', `/Users?filter=${encodeURIComponent('userName eq "alpha.only"')}`);
    expect(list.body.totalResults).toBe(0);
    expect((await scim('GET', `/Users/${aUser.id}`)).body).toMatchObject({
      displayName: 'Alpha Only',
      active: true,
    });
    // The same username in B is taken (usernames are unique across the platform, as in the console).
    assertScimError(
      await scimB('POST', '/Users', { schemas: [USER], userName: 'alpha.only' }),
      409,
      'uniqueness',
    );
  });

  it('refuses bad input with the console’s words and stores nothing', async () => {
    const before = await accountsCount();
    for (const body of [
      { schemas: [USER] },
      { schemas: [USER], userName: 'bad mail', emails: [{ value: 'not-an-email' }] },
      { schemas: [USER], userName: 'bad.mail', emails: [{ value: 'not-an-email' }] },
      { schemas: [USER], userName: 'bad.phone', phoneNumbers: [{ value: 'call me' }] },
      { schemas: [USER], userName: 'bad.active', active: 'sometimes' },
      { schemas: [USER], userName: 'bad.emails', emails: 'x@example.com' },
      { schemas: [USER], userName: 'with.password', password: 'Sunny-Day-42' },
    ]) {
      const answer = await scim('POST', '/Users', body, { 'accept-language': 'zh-CN' });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.scimType).toBe('invalidValue');
    }
    const invalidJson = await ctx.tessera.app.inject({
      method: 'POST',
      url: `/scim/v2/${a.companyId}/Users`,
      headers: {
        authorization: (await createToken(ctx, a, 'json')).secret.replace(/^/, 'Bearer '),
        'content-type': 'application/scim+json',
      },
      payload: '{"userName": ',
    });
    expect(invalidJson.statusCode).toBe(400);
    expect(invalidJson.json()).toMatchObject({ scimType: 'invalidSyntax', status: '400' });
    expect(await accountsCount()).toBe(before);
  });

  it('takes a password only when the company allows it, and then by its password rules', async () => {
    const refused = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'pw.user',
      password: 'Sunny-Day-42',
    });
    expect(refused.body.detail).toBe('This company does not accept passwords over SCIM');
    await call(ctx, '/api/v1/manage/company/scim/settings/update', { allowPasswords: true }, a);
    const weak = await scim('POST', '/Users', { schemas: [USER], userName: 'pw.user', password: 'abc' });
    assertScimError(weak, 400, 'invalidValue');
    const user = created(
      await scim('POST', '/Users', { schemas: [USER], userName: 'pw.user', password: 'Sunny-Day-42' }),
    );
    expect(JSON.stringify(user)).not.toContain('Sunny-Day-42');
    const account = await ctx.database.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(account.password_hash).toMatch(/^\$argon2id\$/);
    await call(ctx, '/api/v1/manage/company/scim/settings/update', { allowPasswords: false }, a);
  });

  it('meets the company quota as the console does (403, nobody created)', async () => {
    const operator = await createAccount(ctx, { username: 'scim-quota-operator', platformAdmin: true });
    const token = await sessionFor(ctx, operator.id, 'admin');
    const people = (await scimB('GET', '/Users?count=0')).body.totalResults as number;
    const set = await call(
      ctx,
      '/api/v1/manage/license/quota/update',
      { companyId: b.companyId, quotas: { user: people } },
      { token },
    );
    expect(set.code, set.msg).toBe(200);
    const before = await accountsCount();
    const refused = await scimB('POST', '/Users', { schemas: [USER], userName: 'over.quota' });
    assertScimError(refused, 403);
    expect(await accountsCount()).toBe(before);
    await call(
      ctx,
      '/api/v1/manage/license/quota/update',
      { companyId: b.companyId, quotas: { user: null } },
      { token },
    );
  });

  it('answers 412 to a stale If-Match and applies a current one', async () => {
    const user = created(
      await scim('POST', '/Users', { schemas: [USER], userName: 'etag.user', displayName: 'First' }),
    );
    const changed = await scim(
      'PATCH',
      `/Users/${user.id}`,
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'Second' }] },
      { 'if-match': user.meta.version },
    );
    expect(changed.status).toBe(200);
    const stale = await scim(
      'PUT',
      `/Users/${user.id}`,
      { schemas: [USER], userName: 'etag.user', displayName: 'Third' },
      { 'if-match': user.meta.version },
    );
    assertScimError(stale, 412);
    expect((await scim('GET', `/Users/${user.id}`)).body.displayName).toBe('Second');
    expect(
      (await scim('DELETE', `/Users/${user.id}`, undefined, { 'if-match': user.meta.version })).status,
    ).toBe(412);
  });
});
