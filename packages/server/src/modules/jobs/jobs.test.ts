import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/database.ts';
import { openTestDatabase } from '../../test/harness.ts';
import { insertJob } from './jobs.repo.ts';
import { createJobRunner, type JobRunner } from './jobs.runner.ts';

/**
 * The jobs table as two instances see it (two runners on one database): every job runs once,
 * jobs of one key never run at the same time, and a job whose instance stopped (its lease ran
 * out) is failed and its handler told.
 */

let database: DatabaseHandle;
const quiet = { error: () => {}, warn: () => {} };
const runners: JobRunner[] = [];

function runner() {
  const created = createJobRunner({
    db: database.db,
    log: quiet,
    listen: database.listen,
    notify: database.notify,
    concurrency: 3,
    pollMs: 60_000,
  });
  runners.push(created);
  return created;
}

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  for (const r of runners) await r.close();
  await database.close();
});

describe('jobs', () => {
  it('runs every job once, one at a time per key, on whichever instance claims it', async () => {
    const running = new Map<string, number>();
    const most = new Map<string, number>();
    const ranBy = new Map<string, string>();
    const handler = (name: string) => ({
      async run(job: { id: string; key: string }) {
        running.set(job.key, (running.get(job.key) ?? 0) + 1);
        most.set(job.key, Math.max(most.get(job.key) ?? 0, running.get(job.key) ?? 0));
        await new Promise((resolve) => setTimeout(resolve, 30));
        if (ranBy.has(job.id)) throw new Error(`ran twice: ${job.id}`);
        ranBy.set(job.id, name);
        running.set(job.key, (running.get(job.key) ?? 1) - 1);
      },
    });
    const [a, b] = [runner(), runner()];
    a.register('test-work', handler('a'));
    b.register('test-work', handler('b'));
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await insertJob(database.db, { kind: 'test-work', key: `source-${i % 3}` }));
    await Promise.all([a.start(), b.start()]);
    await Promise.all([a.drain(), b.drain()]);
    expect([...ranBy.keys()].sort()).toEqual([...ids].sort());
    expect([...most.values()]).toEqual([1, 1, 1]);
    const statuses = await database.db.selectFrom('jobs').select('status').where('kind', '=', 'test-work').execute();
    expect(new Set(statuses.map((s) => s.status))).toEqual(new Set(['done']));
  });

  it('fails a job whose instance stopped and tells its handler', async () => {
    const told: string[] = [];
    const r = runner();
    r.register('test-lost', { run: async () => {}, interrupted: async (job) => void told.push(job.id) });
    const id = await insertJob(database.db, { kind: 'test-lost', key: 'lost' });
    await database.db
      .updateTable('jobs')
      .set({ status: 'running', locked_by: 'gone-instance', lease_until: sql<Date>`now() - interval '1 minute'` })
      .where('id', '=', id)
      .execute();
    await r.start();
    await r.drain();
    expect(told).toEqual([id]);
    const row = await database.db.selectFrom('jobs').select(['status', 'last_error']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'failed', last_error: 'interrupted: the lease ran out' });
  });
});
