import { randomBytes } from 'node:crypto';
import { Attribute, Change } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asDirectoryAdmin,
  createLdapSource,
  DIRECTORY,
  noDirectory,
  type TestUnit,
  testUnit,
} from '../../../test/directory.ts';
import { adGuid } from '../../../test/directory-seed.ts';
import { call, ownerWithCompany, sessionFor, startTestApp, type TestContext } from '../../../test/harness.ts';
import { guidFromBytes } from '../ldap/ldap-escape.ts';

/**
 * Directory changes between syncs, in units of the test's own (issue 14): a person deleted from
 * the directory ends disabled (never deleted) with their sessions ended, and comes back enabled;
 * Active Directory's objectGUID, sAMAccountName and disabled bit; the company quota.
 */

interface Run {
  runId: string;
  status: string;
  counts: Record<string, number> | null;
  errors: { reason: string; message: string }[];
}

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
const admin = <T = Record<string, unknown>>(path: string, body: unknown = {}) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

async function sync(sourceId: string): Promise<Run> {
  const started = await admin<Run>('/api/v1/manage/identity-source/sync/start', { sourceId });
  expect(started.code, started.msg).toBe(200);
  await ctx.tessera.jobs.drain();
  return (
    await admin<Run>('/api/v1/manage/identity-source/sync/run', { sourceId, runId: started.data.runId })
  ).data;
}

const userNamed = async (username: string) =>
  (
    await admin<{ list: { userId: string; username: string; status: string }[] }>(
      '/api/v1/manage/user/list',
      { keyword: username },
    )
  ).data.list.find((u) => u.username === username);

describe.skipIf(noDirectory)('directory changes between syncs', () => {
  const units: TestUnit[] = [];
  const unitName = () => `t${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    ctx = await startTestApp();
    owner = await ownerWithCompany(ctx, 'changes-owner', 'Changing Corp');
  });
  afterAll(async () => {
    for (const unit of units) await unit.cleanup();
    await ctx?.close();
  });

  it('disables a person deleted from the directory (never deletes them) and ends their sessions', async () => {
    const unit = await testUnit(unitName());
    units.push(unit);
    for (const uid of ['ann', 'bob', 'cid']) await unit.addPerson(uid, { group: 'crew' });
    const sourceId = await createLdapSource(ctx, owner, {
      userRootDn: unit.peopleDn,
      groupRootDn: unit.groupsDn,
    });
    expect((await sync(sourceId)).counts).toMatchObject({ created: 3, departmentsCreated: 1 });
    const bob = await userNamed('bob');
    const token = await sessionFor(ctx, bob?.userId as string);

    await unit.removePerson('bob');
    const gone = await sync(sourceId);
    expect(gone.counts).toMatchObject({ disabled: 1, created: 0, unchanged: 2 });
    const disabledRows = await admin<{ list: { label: string; note: string }[] }>(
      '/api/v1/manage/identity-source/sync/rows',
      {
        sourceId,
        runId: gone.runId,
        kind: 'disabled',
      },
    );
    expect(disabledRows.data.list).toEqual([
      expect.objectContaining({ label: 'bob', note: 'No longer in the directory' }),
    ]);
    expect(await userNamed('bob')).toMatchObject({ status: 'disabled' });
    // The console's status change did it: the account is disabled and its sessions are over.
    const session = await ctx.database.db
      .selectFrom('console_sessions')
      .select('revoked_at')
      .where('account_id', '=', bob?.userId as string)
      .executeTakeFirstOrThrow();
    expect(session.revoked_at).not.toBeNull();
    expect((await call(ctx, '/api/v1/manage/company/my/list', {}, { token })).code).toBe(401);
    // A new entry with the same name is someone else to the directory (a new entryUUID).
    await unit.addPerson('bob', { group: 'crew' });
    expect((await sync(sourceId)).counts).toMatchObject({ created: 0, conflicts: 1 });
  });

  it('enables a person the sync disabled when their entry comes back in scope', async () => {
    const unit = await testUnit(unitName());
    units.push(unit);
    await unit.addPerson('dan');
    const sourceId = await createLdapSource(ctx, owner, { userRootDn: unit.peopleDn, groupRootDn: null });
    expect((await sync(sourceId)).counts).toMatchObject({ created: 1 });
    await unit.movePerson('dan', unit.peopleDn, unit.groupsDn);
    expect((await sync(sourceId)).counts).toMatchObject({ disabled: 1 });
    await unit.movePerson('dan', unit.groupsDn, unit.peopleDn);
    expect((await sync(sourceId)).counts).toMatchObject({ enabled: 1, disabled: 0 });
    expect(await userNamed('dan')).toMatchObject({ status: 'enabled' });
  });

  it('reads Active Directory entries: objectGUID as a GUID, sAMAccountName, the disabled bit, no computers', async () => {
    const sourceId = await createLdapSource(ctx, owner, {
      name: 'Active Directory',
      userRootDn: DIRECTORY.adDn,
      usernameAttribute: 'sAMAccountName',
      uniqueIdAttribute: 'objectGUID',
      userFilter: '(&(objectClass=user)(!(objectClass=computer)))',
      groupRootDn: DIRECTORY.adDn,
      groupFilter: '(objectClass=group)',
    });
    const run = await sync(sourceId);
    // ada comes in; dora is disabled in the directory (so not added); carl$ is a computer.
    expect(run.counts).toMatchObject({ created: 1, departmentsCreated: 1 });
    const link = await ctx.database.db
      .selectFrom('identity_links')
      .select(['external_id', 'external_name'])
      .where('source_id', '=', sourceId)
      .executeTakeFirstOrThrow();
    expect(link).toEqual({ external_id: guidFromBytes(adGuid(1)), external_name: 'ada' });
    expect(link.external_id).toBe('1e0c2f6b-4d9a-3b4c-8e21-000000000001');
  });

  it('disables a person whose Active Directory account is disabled, and enables them again', async () => {
    const unit = await testUnit(unitName());
    units.push(unit);
    const dn = `cn=Eve Example,${unit.peopleDn}`;
    const control = (value: number) =>
      asDirectoryAdmin((client) =>
        client.modify(dn, [
          new Change({
            operation: 'replace',
            modification: new Attribute({ type: 'userAccountControl', values: [String(value)] }),
          }),
        ]),
      );
    const values: Record<string, string | Buffer> = {
      objectClass: 'user',
      cn: 'Eve Example',
      sn: 'Example',
      sAMAccountName: 'eve.example',
      userAccountControl: '512',
      objectGUID: adGuid(4242),
    };
    await asDirectoryAdmin((client) =>
      client.add(
        dn,
        Object.entries(values).map(([type, value]) => new Attribute({ type, values: [value] as string[] })),
      ),
    );
    const sourceId = await createLdapSource(ctx, owner, {
      name: 'AD unit',
      userRootDn: unit.peopleDn,
      usernameAttribute: 'sAMAccountName',
      uniqueIdAttribute: 'objectGUID',
      userFilter: '(&(objectClass=user)(!(objectClass=computer)))',
      groupRootDn: null,
      groupFilter: null,
    });
    expect((await sync(sourceId)).counts).toMatchObject({ created: 1 });
    await control(514);
    expect((await sync(sourceId)).counts).toMatchObject({ disabled: 1 });
    expect(await userNamed('eve.example')).toMatchObject({ status: 'disabled' });
    await control(512);
    expect((await sync(sourceId)).counts).toMatchObject({ enabled: 1 });
    expect(await userNamed('eve.example')).toMatchObject({ status: 'enabled' });
  });

  it("stops at the company's user quota: the batch is refused whole and recorded", async () => {
    const unit = await testUnit(unitName());
    units.push(unit);
    for (const uid of ['q1', 'q2', 'q3']) await unit.addPerson(uid);
    const small = await ownerWithCompany(ctx, 'quota-owner', 'Small Corp');
    await ctx.database.db
      .insertInto('company_quotas')
      .values({ company_id: small.companyId, module: 'user', quota: 2 })
      .onConflict((oc) => oc.columns(['company_id', 'module']).doUpdateSet({ quota: 2 }))
      .execute();
    const sourceId = await createLdapSource(ctx, small, { userRootDn: unit.peopleDn, groupRootDn: null });
    const started = await call<Run>(ctx, '/api/v1/manage/identity-source/sync/start', { sourceId }, small);
    await ctx.tessera.jobs.drain();
    const run = await call<Run>(
      ctx,
      '/api/v1/manage/identity-source/sync/run',
      { sourceId, runId: started.data.runId },
      { ...small, lang: 'zh' },
    );
    expect(run.data.status).toBe('failed');
    expect(run.data.errors).toEqual([
      { reason: 'quota.user_quota_exceeded', message: expect.stringContaining('2') },
    ]);
    const members = await call<{ total: number }>(ctx, '/api/v1/manage/user/list', {}, small);
    expect(members.data.total).toBe(1);
  });
});
