import { randomBytes } from 'node:crypto';
import { Attribute, Change } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asDirectoryAdmin,
  createLdapSource,
  noDirectory,
  type TestUnit,
  testUnit,
} from '../../../test/directory.ts';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../../test/harness.ts';

/**
 * Issue 29 against slapd: a directory sync that changes a person's email clears its verified
 * mark (the person proves the new address again), and one that leaves it keeps the mark.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let unit: TestUnit | undefined;
const admin = <T = Record<string, unknown>>(path: string, body: unknown = {}) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

async function sync(sourceId: string) {
  const started = await admin<{ runId: string }>('/api/v1/manage/identity-source/sync/start', { sourceId });
  expect(started.code, started.msg).toBe(200);
  await ctx.tessera.jobs.drain();
  const run = await admin<{ status: string; counts: Record<string, number> | null }>(
    '/api/v1/manage/identity-source/sync/run',
    { sourceId, runId: started.data.runId },
  );
  expect(run.data.status).toBe('succeeded');
  return run.data.counts;
}

const marks = (username: string) =>
  ctx.database.db
    .selectFrom('accounts')
    .select(['id', 'email', 'email_verified_at'])
    .where('username', '=', username)
    .executeTakeFirstOrThrow();

describe.skipIf(noDirectory)('a directory sync and the verified email', () => {
  beforeAll(async () => {
    ctx = await startTestApp();
    owner = await ownerWithCompany(ctx, 'verify-sync-owner', 'Verify Sync Corp');
  });
  afterAll(async () => {
    await unit?.cleanup();
    await ctx?.close();
  });

  it('clears the mark when the directory changes the email, and keeps it otherwise', async () => {
    unit = await testUnit(`v${randomBytes(4).toString('hex')}`);
    await unit.addPerson('vera', { mail: 'vera@example.com' });
    await unit.addPerson('walt', { mail: 'walt@example.com' });
    const sourceId = await createLdapSource(ctx, owner, {
      userRootDn: unit.peopleDn,
      groupRootDn: unit.groupsDn,
    });
    expect(await sync(sourceId)).toMatchObject({ created: 2 });
    const proved = new Date('2026-11-01T08:00:00.000Z');
    await ctx.database.db
      .updateTable('accounts')
      .set({ email_verified_at: proved })
      .where('username', 'in', ['vera', 'walt'])
      .execute();

    const dn = unit.personDn('vera');
    await asDirectoryAdmin((client) =>
      client.modify(dn, [
        new Change({
          operation: 'replace',
          modification: new Attribute({ type: 'mail', values: ['vera.new@example.com'] }),
        }),
      ]),
    );
    expect(await sync(sourceId)).toMatchObject({ updated: 1 });
    expect(await marks('vera')).toMatchObject({ email: 'vera.new@example.com', email_verified_at: null });
    expect(await marks('walt')).toMatchObject({ email: 'walt@example.com', email_verified_at: proved });
  });
});
