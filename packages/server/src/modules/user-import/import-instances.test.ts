import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import {
  anotherInstance,
  MAIL_NEVER_SENT,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { holdImportTurn, startImport, waitForTask, workbookOf } from '../../test/import-kit.ts';
import { IMPORT_JOB, importJobKey } from './import.service.ts';

/**
 * Imports across restarts and instances: they run as jobs (modules/jobs), so a stopped
 * instance's import is taken back when its lease runs out and failed as interrupted (it stored
 * nothing), a waiting one is run by whichever instance is up, and a live instance's import is
 * left alone.
 */

let ctx: TestContext;
type Owner = Awaited<ReturnType<typeof ownerWithCompany>>;
let owner: Owner;
let other: Owner;

beforeAll(async () => {
  ctx = await startTestApp({ mail: MAIL_NEVER_SENT });
  owner = await ownerWithCompany(ctx, 'instances-owner', 'Instances Ltd');
  other = await ownerWithCompany(ctx, 'instances-other', 'Other Instances Ltd');
});
afterAll(() => ctx.close());

const workbook = (usernames: string[]) => workbookOf(usernames.map((username) => [username]));

async function upload(usernames: string[], as: Owner, via: Pick<TestContext, 'tessera'> = ctx) {
  const started = await startImport(via, as, { bytes: await workbook(usernames) });
  expect(started.code, started.msg).toBe(200);
  return started.data.taskId as string;
}

/** Starts the app again on the same database (after `ctx.tessera.close()`), as a server restart does. */
async function startAgain() {
  ctx.tessera = await anotherInstance(ctx, { mail: MAIL_NEVER_SENT });
}

const stateOf = (id: string) =>
  ctx.database.db
    .selectFrom('import_tasks')
    .select(['status', 'created', 'started_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('imports across restarts', () => {
  it('lets an import under way finish when the server stops; one still waiting is taken up at the next start', async () => {
    // Another instance is running an import of a third company: its next upload waits.
    const third = await ownerWithCompany(ctx, 'third-owner', 'Third Ltd');
    const held = await holdImportTurn(ctx, third);
    const running = await upload(['stop.one', 'stop.two'], owner);
    const waiting = await upload(['stop.three'], third);
    while ((await stateOf(running)).started_at === null) await new Promise((r) => setTimeout(r, 20));
    await ctx.tessera.close();
    expect(await stateOf(running)).toMatchObject({ status: 'success', created: 2 });
    expect(await stateOf(waiting)).toMatchObject({ status: 'importing', started_at: null });
    await held.release();
    await startAgain();
    // On PostgreSQL the file waited in the database; the embedded database's process kept it itself.
    const resumed = await waitForTask(ctx, third, waiting);
    if (ctx.database.kind === 'postgres') expect(resumed).toMatchObject({ status: 'success', created: 1 });
    else expect(resumed.errors[0]?.message).toMatch(/interrupted by a server restart/);
  });

  it('fails the imports of a stopped instance and those without a job, never those of a live instance', async () => {
    const { db } = ctx.database;
    const task = (id: string, of: Owner) => ({
      id,
      company_id: of.companyId,
      created_by: of.account.id,
      status: 'importing' as const,
      total: 3,
      started_at: new Date(),
    });
    // Left by a version that ran imports in its own process (no job); running on an instance
    // that stopped (its lease ran out a minute ago); running on a live instance (another company:
    // one import per company runs at a time).
    const [orphan, stopped] = [newId(), newId()];
    await db
      .insertInto('import_tasks')
      .values([task(orphan, owner), task(stopped, owner)])
      .execute();
    const live = await holdImportTurn(ctx, other);
    await db
      .insertInto('jobs')
      .values({
        id: newId(),
        kind: IMPORT_JOB,
        key: importJobKey(owner.companyId),
        payload: JSON.stringify({ taskId: stopped }),
        status: 'running',
        run_after: new Date(),
        every_seconds: null,
        attempts: 1,
        max_attempts: 1,
        locked_by: 'stopped-instance',
        lease_until: sql<Date>`now() - interval '1 minute'`,
        last_error: null,
        started_at: new Date(),
      })
      .execute();
    await ctx.tessera.close();
    await startAgain();
    for (const id of [orphan, stopped]) {
      const failed = await waitForTask(ctx, owner, id);
      expect(failed).toMatchObject({ status: 'failed', created: 0 });
      expect(failed.errors.map((error) => error.message)).toEqual([
        'The import was interrupted by a server restart; nothing was stored, please import the file again',
      ]);
    }
    expect(await stateOf(live.taskId)).toMatchObject({ status: 'importing' });
    await live.release();
  });
});

describe('several instances', () => {
  it('finishes on a live instance the import that a stopped instance was running (PostgreSQL)', async (test) => {
    if (ctx.database.kind !== 'postgres') test.skip('several instances need PostgreSQL');
    const { db } = ctx.database;
    // An instance took the import and stopped mid-way: its job is running under a lease that ran out.
    const held = await holdImportTurn(ctx, owner);
    const id = await upload(['resume.one', 'resume.two'], owner);
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('jobs').where('id', '=', held.jobId).execute();
      await trx.deleteFrom('import_tasks').where('id', '=', held.taskId).execute();
      await trx
        .updateTable('jobs')
        .set({
          status: 'running',
          attempts: 1,
          locked_by: 'stopped-instance',
          lease_until: sql<Date>`now() - interval '1 minute'`,
          started_at: new Date(),
        })
        .where(sql<boolean>`payload->>'taskId' = ${id}`)
        .execute();
      await trx.updateTable('import_tasks').set({ started_at: new Date() }).where('id', '=', id).execute();
    });
    // The live instance takes the job back and imports the file again, from the start.
    expect(await waitForTask(ctx, owner, id)).toMatchObject({ status: 'success', created: 2 });
    // The job is marked done once its import has committed: a moment after the task shows success.
    const jobOfTask = async () =>
      (
        await db
          .selectFrom('jobs')
          .select(['status', 'attempts', 'payload'])
          .where('key', '=', importJobKey(owner.companyId))
          .execute()
      ).filter((job) => (job.payload as { taskId?: string }).taskId === id);
    await expect
      .poll(jobOfTask, { timeout: 10_000 })
      .toEqual([{ status: 'done', attempts: 2, payload: { taskId: id } }]);
  });

  it('a second instance on the same database shares the queue (PostgreSQL)', async (test) => {
    // The embedded database is one process only: its files wait in that process's folder.
    if (ctx.database.kind !== 'postgres') test.skip('several instances need PostgreSQL');
    const second = await anotherInstance(ctx, { mail: MAIL_NEVER_SENT });
    try {
      const ids = [];
      for (let i = 0; i < 3; i++)
        ids.push(await upload([`shared.${i}`], owner, i % 2 ? { tessera: second } : ctx));
      for (const id of ids) expect(await waitForTask(ctx, owner, id)).toMatchObject({ status: 'success' });
      const runs = await ctx.database.db
        .selectFrom('import_tasks')
        .select(['started_at', 'finished_at'])
        .where('id', 'in', ids)
        .orderBy('started_at')
        .execute();
      // One company: each import started after the one before had ended.
      for (let i = 1; i < runs.length; i++)
        expect(runs[i]?.started_at?.getTime()).toBeGreaterThanOrEqual(
          runs[i - 1]?.finished_at?.getTime() ?? 0,
        );
    } finally {
      await second.close();
    }
  });
});
