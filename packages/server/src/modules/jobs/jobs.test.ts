import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/database.ts';
import { openTestDatabase } from '../../test/harness.ts';
import { backoffDelay, createJobs } from './jobs.ts';

/** Issue 16: the jobs table (enqueue, claim under a lease, retry with back-off, periodic). */
let database: DatabaseHandle;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

const jobRow = (key: string) =>
  database.db.selectFrom('jobs').selectAll().where('key', '=', key).executeTakeFirst();

describe('jobs', () => {
  it('runs a job once even with two workers, and a key keeps one pending job', async () => {
    const runs: string[] = [];
    const workers = [0, 1].map((n) => {
      const jobs = createJobs({ db: database.db });
      jobs.handle('test.once', async (job) => {
        runs.push(`${n}:${(job.payload as { value: string }).value}`);
      });
      return jobs;
    });
    await workers[0]?.enqueue({ kind: 'test.once', key: 'once', payload: { value: 'a' } });
    await workers[1]?.enqueue({ kind: 'test.once', key: 'once', payload: { value: 'b' } });
    await Promise.all(workers.map((jobs) => jobs.runDue()));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^[01]:a$/);
    expect(await jobRow('once')).toBeUndefined();
  });

  it('retries a failing job with back-off and leaves it failed after its last try', async () => {
    const jobs = createJobs({ db: database.db, backoff: { baseMs: 1_000, maxMs: 4_000 } });
    let tries = 0;
    jobs.handle('test.fail', async () => {
      tries++;
      throw new Error(`try ${tries} failed`);
    });
    await jobs.enqueue({ kind: 'test.fail', key: 'fail', maxAttempts: 2 });
    await jobs.runDue();
    const first = await jobRow('fail');
    expect(first).toMatchObject({
      attempts: 1,
      last_error: 'try 1 failed',
      failed_at: null,
      locked_by: null,
    });
    expect(first?.run_at.getTime()).toBeGreaterThan(Date.now() + 500);
    await jobs.runDue();
    expect(tries).toBe(1);
    await database.db
      .updateTable('jobs')
      .set({ run_at: new Date(0) })
      .where('key', '=', 'fail')
      .execute();
    await jobs.runDue();
    const last = await jobRow('fail');
    expect(last).toMatchObject({ attempts: 2, last_error: 'try 2 failed' });
    expect(last?.failed_at).not.toBeNull();
    await database.db
      .updateTable('jobs')
      .set({ run_at: new Date(0) })
      .where('key', '=', 'fail')
      .execute();
    await jobs.runDue();
    expect(tries).toBe(2);
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, { baseMs: 1_000, maxMs: 4_000 }))).toEqual([
      1_000, 2_000, 4_000, 4_000,
    ]);
  });

  it('takes a job back from a worker whose lease ran out, and the old worker cannot finish it', async () => {
    const stuck = createJobs({ db: database.db, leaseMs: 1 });
    const rescuer = createJobs({ db: database.db });
    let release: () => void = () => {};
    const ran: string[] = [];
    stuck.handle('test.lease', async (_job, context) => {
      ran.push('stuck');
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      ran.push(`heartbeat ${await context.heartbeat()}`);
    });
    rescuer.handle('test.lease', async () => {
      ran.push('rescuer');
    });
    await stuck.enqueue({ kind: 'test.lease', key: 'lease' });
    const stuckRun = stuck.runDue();
    while (!ran.includes('stuck')) await new Promise((resolve) => setImmediate(resolve));
    await database.db
      .updateTable('jobs')
      .set({ locked_until: new Date(0) })
      .where('key', '=', 'lease')
      .execute();
    await rescuer.runDue();
    release();
    await stuckRun;
    expect(ran).toEqual(['stuck', 'rescuer', 'heartbeat false']);
    expect(await jobRow('lease')).toBeUndefined();
  });

  it('runs a periodic job again after its period', async () => {
    const jobs = createJobs({ db: database.db });
    let runs = 0;
    jobs.handle('test.periodic', async () => {
      runs++;
    });
    await jobs.every('test.periodic', 600);
    await jobs.runDue();
    await jobs.runDue();
    expect(runs).toBe(1);
    const row = await jobRow('every:test.periodic');
    expect(row?.run_at.getTime()).toBeGreaterThan(Date.now() + 590_000);
    await jobs.runSoon('test.periodic');
    await jobs.runDue();
    expect(runs).toBe(2);
  });
});
