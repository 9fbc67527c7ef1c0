import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import {
  assertScimError,
  createToken,
  PATCH_OP,
  type ScimAnswer,
  scimClient,
  USER,
} from './scim-test-client.ts';

/**
 * A SCIM create, PUT or PATCH of a user is all-or-nothing: a request refused at any step (an
 * identifier another person has, a password, a directory person's username, a write that fails
 * in the database) leaves every stored detail of the person as it was, ETag included.
 */

type Doc = Record<string, unknown>;

let ctx: TestContext;
let a: Awaited<ReturnType<typeof ownerWithCompany>>;
let scim: ReturnType<typeof scimClient>;

beforeAll(async () => {
  ctx = await startTestApp();
  a = await ownerWithCompany(ctx, 'scim-atomic-a', 'Atomic People');
  scim = scimClient(ctx, a.companyId, (await createToken(ctx, a, 'Entra ID')).secret);
  await call(ctx, '/api/v1/manage/company/scim/settings/update', { allowPasswords: true }, a);
});
afterAll(() => ctx.close());

const created = (answer: ScimAnswer) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body as { id: string; meta: { version: string } } & Doc;
};
const person = async (userName: string, extra: Doc = {}) =>
  created(await scim('POST', '/Users', { schemas: [USER], userName, ...extra }));
const read = async (id: string) => (await scim('GET', `/Users/${id}`)).body;
const auditsOf = async (id: string) =>
  (
    await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', id)
      .orderBy('created_at')
      .execute()
  ).map((r) => r.action);
const findByUserName = async (userName: string) =>
  (await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).body.totalResults;

/** Marks the person as synced from an LDAP directory, as a directory sync does. */
async function fromDirectory(accountId: string) {
  const now = new Date();
  const sourceId = `src-${accountId}`;
  await ctx.database.db
    .insertInto('identity_sources')
    .values({
      id: sourceId,
      company_id: a.companyId,
      type: 'ldap',
      name: 'Directory',
      settings: '{}',
      secret_sealed: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await ctx.database.db
    .insertInto('identity_links')
    .values({
      source_id: sourceId,
      company_id: a.companyId,
      account_id: accountId,
      external_id: accountId,
      external_dn: null,
      external_name: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/**
 * Makes the database refuse to disable the people whose username starts with `refuse-disable`
 * (a write that fails after others of the same request succeeded), for the length of `run`.
 */
async function withDisableRefused(run: () => Promise<void>) {
  const { db } = ctx.database;
  await sql`create function scim_atomic_refuse_disable() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from accounts where id = new.account_id and username like 'refuse-disable%') then
        raise exception 'disable refused by the test';
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger scim_atomic_refuse_disable before update of status on company_members
    for each row when (new.status = 'disabled') execute function scim_atomic_refuse_disable()`.execute(db);
  try {
    await run();
  } finally {
    await sql`drop trigger scim_atomic_refuse_disable on company_members`.execute(db);
    await sql`drop function scim_atomic_refuse_disable()`.execute(db);
  }
}

describe('PATCH', () => {
  it('refuses a rename with an email another person has (409) and changes nothing', async () => {
    await person('atomic.other', { emails: [{ value: 'taken@atomic.test', primary: true }] });
    const user = await person('atomic.patch', { nickName: 'Pat' });
    const before = await read(user.id);
    const answer = await scim('PATCH', `/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'userName', value: 'atomic.renamed' },
        { op: 'replace', path: 'nickName', value: 'Patricia' },
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'taken@atomic.test' },
      ],
    });
    assertScimError(answer, 409, 'uniqueness');
    expect(await read(user.id)).toEqual(before);
    expect(await findByUserName('atomic.renamed')).toBe(0);
    expect(await auditsOf(user.id)).toEqual(['user.create']);
  });

  it('undoes the rename and the profile when a later write fails in the database', async () => {
    const user = await person('refuse-disable.patch', { nickName: 'Ray' });
    const before = await read(user.id);
    await withDisableRefused(async () => {
      const answer = await scim('PATCH', `/Users/${user.id}`, {
        schemas: [PATCH_OP],
        Operations: [
          { op: 'replace', path: 'userName', value: 'refuse-disable.renamed' },
          { op: 'replace', path: 'nickName', value: 'Raymond' },
          { op: 'replace', path: 'active', value: false },
        ],
      });
      expect(answer.status).toBe(500);
    });
    expect(await read(user.id)).toEqual(before);
    expect(await findByUserName('refuse-disable.renamed')).toBe(0);
  });
});

describe('PUT', () => {
  it('refuses a profile change with a password against the rules (400) and changes nothing', async () => {
    const user = await person('atomic.put', { displayName: 'Old Name' });
    const before = await read(user.id);
    const answer = await scim('PUT', `/Users/${user.id}`, {
      ...before,
      displayName: 'New Name',
      nickName: 'Newbie',
      password: 'abc',
    });
    assertScimError(answer, 400, 'invalidValue');
    expect(await read(user.id)).toEqual(before);
  });
});

describe('a person synced from a directory', () => {
  it('refuses a rename with 409 mutability and changes nothing', async () => {
    const user = await person('atomic.directory', { nickName: 'Dee' });
    await fromDirectory(user.id);
    const before = await read(user.id);
    const answer = await scim('PATCH', `/Users/${user.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'userName', value: 'atomic.directory2' },
        { op: 'replace', path: 'nickName', value: 'Deedee' },
      ],
    });
    assertScimError(answer, 409, 'mutability');
    expect(await read(user.id)).toEqual(before);
    expect(await findByUserName('atomic.directory2')).toBe(0);
  });

  it('keeps the nickname when the password of the same PUT is refused (the directory holds it)', async () => {
    const user = await person('atomic.directory.pw', { nickName: 'Dot' });
    await fromDirectory(user.id);
    const before = await read(user.id);
    const answer = await scim('PUT', `/Users/${user.id}`, {
      ...before,
      nickName: 'Dorothy',
      password: 'Sunny-Day-42-Long',
    });
    assertScimError(answer, 409, 'mutability');
    expect(await read(user.id)).toEqual(before);
    expect(await auditsOf(user.id)).toEqual(['user.create']);
  });
});

describe('POST', () => {
  it('with active false leaves no person behind when the disable fails', async () => {
    const count = async () => (await ctx.database.db.selectFrom('accounts').select('id').execute()).length;
    const accounts = await count();
    await withDisableRefused(async () => {
      const answer = await scim('POST', '/Users', {
        schemas: [USER],
        userName: 'refuse-disable.new',
        active: false,
        externalId: 'ext-refuse-disable',
      });
      expect(answer.status).toBe(500);
    });
    expect(await count()).toBe(accounts);
    expect(await findByUserName('refuse-disable.new')).toBe(0);
    // The same request succeeds once the database takes it, and the person is disabled.
    const user = await person('refuse-disable.new', { active: false, externalId: 'ext-refuse-disable' });
    expect(user.active).toBe(false);
  });
});
