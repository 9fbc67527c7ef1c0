import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLdapSource, DIRECTORY, NOTHING_TO_DO, noDirectory } from '../../../test/directory.ts';
import { personUid } from '../../../test/directory-seed.ts';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../../test/harness.ts';

/**
 * Directory sync against Debian's slapd seeded with 1 200 people in nested units and groups
 * (scripts/with-slapd.sh): the reader account gets 500 entries per search, so reading them all
 * takes paged searches (RFC 2696). Issue 14: preview = apply, a second sync changes nothing,
 * collisions outside the company are only counted.
 */

interface Run {
  runId: string;
  status: string;
  counts: Record<string, number> | null;
  errors: { reason: string; message: string }[];
  appliedByRunId: string | null;
}

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let sourceId: string;
const admin = <T = Record<string, unknown>>(path: string, body: unknown = {}) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

async function runOf(path: string, body: Record<string, unknown>): Promise<Run> {
  const started = await admin<Run>(path, { sourceId, ...body });
  expect(started.code, started.msg).toBe(200);
  await ctx.tessera.jobs.drain();
  return (
    await admin<Run>('/api/v1/manage/identity-source/sync/run', { sourceId, runId: started.data.runId })
  ).data;
}

/** Every row of a kind of a run, page by page. */
async function rowsOf(runId: string, kind: string) {
  const rows: { label: string; changes: unknown[] }[] = [];
  for (let page = 1; ; page++) {
    const answer = await admin<{ list: typeof rows; total: number }>(
      '/api/v1/manage/identity-source/sync/rows',
      {
        sourceId,
        runId,
        kind,
        page,
        pageSize: 100,
      },
    );
    rows.push(...answer.data.list);
    if (rows.length >= answer.data.total) return rows;
  }
}

const userCount = async () =>
  (await admin<{ total: number }>('/api/v1/manage/user/list', { page: 1, pageSize: 1 })).data.total;

describe.skipIf(noDirectory)('directory sync of the 1 200-person directory', () => {
  let preview: Run;
  beforeAll(async () => {
    ctx = await startTestApp();
    await grantLicense(ctx, { user: 10_000 });
    owner = await ownerWithCompany(ctx, 'sync-owner', 'Synced Corp');
    // Another company already has user0007: the directory's user0007 cannot come in.
    const other = await ownerWithCompany(ctx, 'other-owner', 'Other Corp');
    await companyMember(ctx, other, personUid(7));
    sourceId = await createLdapSource(ctx, owner);
  });
  afterAll(() => ctx?.close());

  it('previews every person (more than one unpaged search gives) and the group tree, changing nothing', async () => {
    preview = await runOf('/api/v1/manage/identity-source/sync/preview', {});
    expect(preview.status, JSON.stringify(preview.errors)).toBe('succeeded');
    expect(preview.counts).toMatchObject({
      created: DIRECTORY.peopleCount, // 1 200 generated + alice - user0007
      departmentsCreated: 10,
      disabled: 0,
      conflicts: 0,
      conflictsElsewhere: 1,
    });
    expect(DIRECTORY.peopleCount + 1).toBeGreaterThan(DIRECTORY.sizeLimit);
    expect(await userCount()).toBe(1);
    // The outside collision is a count only: no row names it.
    const conflicts = await rowsOf(preview.runId, 'conflict');
    expect(JSON.stringify(conflicts)).not.toContain(personUid(7));
    const created = await rowsOf(preview.runId, 'created');
    expect(created.map((row) => row.label)).not.toContain(personUid(7));
    // And the company's budget of such answers paid for it.
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('after')
      .where('company_id', '=', owner.companyId)
      .where('action', '=', 'user.identifier_taken')
      .execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0]?.after)).not.toContain(personUid(7));
  });

  it('applies exactly what the preview showed', async () => {
    const applied = await runOf('/api/v1/manage/identity-source/sync/apply', { runId: preview.runId });
    expect(applied.status, JSON.stringify(applied.errors)).toBe('succeeded');
    expect(applied.counts).toEqual(preview.counts);
    for (const kind of ['created', 'department_created'])
      expect(await rowsOf(applied.runId, kind)).toEqual(await rowsOf(preview.runId, kind));
    expect(await userCount()).toBe(1 + DIRECTORY.peopleCount);
    const reread = await admin<Run>('/api/v1/manage/identity-source/sync/run', {
      sourceId,
      runId: preview.runId,
    });
    expect(reread.data.appliedByRunId).toBe(applied.runId);
    // A preview is applied once.
    const again = await admin('/api/v1/manage/identity-source/sync/apply', {
      sourceId,
      runId: preview.runId,
    });
    expect(again.data).toMatchObject({ reason: 'sync.preview_applied' });
  });

  it('builds the department tree from nested groups and puts people in their groups', async () => {
    const tree = await admin<{ tree: Dept }>('/api/v1/manage/department/tree');
    type Dept = { name: string; children: Dept[]; memberCount?: number };
    const find = (node: Dept, name: string): Dept | undefined =>
      node.name === name ? node : node.children.map((c) => find(c, name)).find(Boolean);
    const staff = find(tree.data.tree, 'staff');
    expect(staff?.children.map((c) => c.name).sort()).toEqual(['engineering', 'sales', 'support']);
    expect(find(tree.data.tree, 'platform')?.children.map((c) => c.name)).toEqual(['sre']);
    const alice = await admin<{
      list: { userId: string; departments: { name: string }[]; managed: boolean }[];
    }>('/api/v1/manage/user/list', { keyword: DIRECTORY.alice.mail });
    expect(alice.data.list[0]).toMatchObject({ managed: true, departments: [{ name: 'backend' }] });
    // A directory person's password is the directory's: no local one can be set.
    const reset = await admin('/api/v1/manage/user/password/reset', {
      userId: alice.data.list[0]?.userId,
      password: 'Stale-local-1',
      confirmPassword: 'Stale-local-1',
    });
    expect(reset.data).toMatchObject({ reason: 'user.directory_managed' });
  });

  it('changes nothing on a second sync', async () => {
    const auditBefore = await ctx.database.db
      .selectFrom('audit_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const second = await runOf('/api/v1/manage/identity-source/sync/start', {});
    expect(second.status, JSON.stringify(second.errors)).toBe('succeeded');
    expect(second.counts).toMatchObject({
      ...NOTHING_TO_DO,
      unchanged: DIRECTORY.peopleCount,
      conflictsElsewhere: 1,
    });
    const auditAfter = await ctx.database.db
      .selectFrom('audit_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    // The run's own record only (sync_sync requested, identity_source.sync done): no new identifier check either.
    expect(Number(auditAfter.n) - Number(auditBefore.n)).toBe(2);
  });

  it('refuses a preview whose company changed before it was applied', async () => {
    const stale = await runOf('/api/v1/manage/identity-source/sync/preview', {});
    expect(stale.counts?.created).toBe(0);
    const someone = await admin<{ list: { userId: string; departments: { departmentId: string }[] }[] }>(
      '/api/v1/manage/user/list',
      { keyword: personUid(1) },
    );
    const person = someone.data.list[0];
    await admin('/api/v1/manage/user/update', { userId: person?.userId, departmentIds: [] });
    const applied = await runOf('/api/v1/manage/identity-source/sync/apply', { runId: stale.runId });
    expect(applied.status).toBe('failed');
    expect(applied.errors.map((e) => e.reason)).toEqual(['sync.preview_stale']);
    // The next sync puts the person back in their group.
    const fixed = await runOf('/api/v1/manage/identity-source/sync/start', {});
    expect(fixed.counts).toMatchObject({ moved: 1, created: 0 });
  });

  it('lists the runs newest first with their counts', async () => {
    const runs = await admin<{ list: Run[]; total: number }>('/api/v1/manage/identity-source/sync/runs', {
      sourceId,
    });
    expect(runs.data.total).toBe(6);
    expect(runs.data.list[0]).toMatchObject({ status: 'succeeded', counts: { moved: 1 } });
  });
});
