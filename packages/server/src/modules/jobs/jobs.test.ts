import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/database.ts';
import { openTestDatabase } from '../../test/harness.ts';
import { backoffDelay, createJobs, type Jobs } from './jobs.ts';

/**
 * The jobs table as two instances see it (two runners on one database): every job runs once,
 * jobs of one key never run at the same time, failures are retried with back-off while tries are
 * left, a job whose instance stopped is taken back, and a periodic job keeps one schedule.
 */

let database: DatabaseHandle;
const quiet = { error: () => {}, warn: () => {} };
const runners: Jobs[] = [];

function runner(
  options: { leaseSeconds?: number; backoff?: { baseMs: number; maxMs: number }; concurrency?: number } = {},
) {
  const created = createJobs({
    db: database.db,
    log: quiet,
    listen: database.listen,
    pollMs: 60_000,
    concurrency: 3,
    ...options,
  });
  runners.push(created);
  return created;
}

const jobRow = (id: string) =>
  database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const makeDue = (id: string) =>
  database.db
    .updateTable('jobs')
    .set({ run_after: new Date(0) })
    .where('id', '=', id)
    .execute();

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
      async run(job: { id: string; key: string | null }) {
        const key = job.key ?? '';
        running.set(key, (running.get(key) ?? 0) + 1);
        most.set(key, Math.max(most.get(key) ?? 0, running.get(key) ?? 0));
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (ranBy.has(job.id)) throw new Error(`ran twice: ${job.id}`);
        ranBy.set(job.id, name);
        running.set(key, (running.get(key) ?? 1) - 1);
      },
    });
    const [a, b] = [runner(), runner()];
    a.register('test.work', handler('a'));
    b.register('test.work', handler('b'));
    const ids: string[] = [];
    for (let i = 0; i < 12; i++)
      ids.push((await a.enqueue({ kind: 'test.work', key: `source-${i % 3}` })) ?? '');
    await Promise.all([a.drain(), b.drain()]);
    expect([...ranBy.keys()].sort()).toEqual([...ids].sort());
    expect([...most.values()]).toEqual([1, 1, 1]);
    const rows = await database.db
      .selectFrom('jobs')
      .select('status')
      .where('kind', '=', 'test.work')
      .execute();
    expect(new Set(rows.map((row) => row.status))).toEqual(new Set(['done']));
  });

  it('runs at most the limit of a kind at once on all instances together, other kinds meanwhile', async () => {
    let now = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const slow = {
      async run() {
        now++;
        most = Math.max(most, now);
        await new Promise<void>((resolve) => gates.push(resolve));
        now--;
      },
    };
    // One place each: the limited kind is bounded by its limit, and takes no instance's place.
    const [a, b] = [runner({ concurrency: 1 }), runner({ concurrency: 1 })];
    const otherRan: string[] = [];
    for (const jobs of [a, b]) {
      jobs.register('test.limited', slow, { concurrency: 2 });
      jobs.register('test.other', { run: async (job) => void otherRan.push(job.id) });
    }
    for (let i = 0; i < 5; i++) await a.enqueue({ kind: 'test.limited', key: `company-${i}` });
    const other = (await a.enqueue({ kind: 'test.other' })) ?? '';
    const drained = Promise.all([a.drain(), b.drain()]);
    // The kind's limit lets two run, and the other kind passes them meanwhile.
    while (gates.length < 2 || otherRan.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(otherRan).toEqual([other]);
    for (let i = 0; i < 5; i++) {
      while (gates.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const running = await database.db
        .selectFrom('jobs')
        .select('slot')
        .where('kind', '=', 'test.limited')
        .where('status', '=', 'running')
        .execute();
      expect(running.length).toBeLessThanOrEqual(2);
      expect(new Set(running.map((row) => row.slot)).size).toBe(running.length);
      gates.shift()?.();
    }
    await drained;
    expect(most).toBe(2);
    expect(otherRan).toEqual([other]);
    const done = await database.db
      .selectFrom('jobs')
      .select(['status', 'slot'])
      .where('kind', '=', 'test.limited')
      .execute();
    expect(done).toEqual(Array.from({ length: 5 }, () => ({ status: 'done', slot: null })));
  });

  it('asks the jobs still running at shutdown to stop, and records how they ended', async () => {
    const jobs = runner();
    jobs.register('test.long', {
      run: (_job, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(new Error('stopped by the shutdown')));
        }),
    });
    const id = (await jobs.enqueue({ kind: 'test.long' })) ?? '';
    await jobs.start();
    while ((await jobRow(id)).status !== 'running') await new Promise((resolve) => setTimeout(resolve, 10));
    await jobs.close(50);
    expect(await jobRow(id)).toMatchObject({ status: 'failed', last_error: 'stopped by the shutdown' });
  });

  it('queues nothing when asked to and a job of the key is already waiting', async () => {
    const jobs = runner();
    const first = await jobs.enqueue({ kind: 'test.unless', key: 'company-1', unlessQueued: true });
    const second = await jobs.enqueue({ kind: 'test.unless', key: 'company-1', unlessQueued: true });
    expect(first).toBeDefined();
    expect(second).toBeUndefined();
  });

  it('queues nothing when the transaction that queued it rolls back', async () => {
    const jobs = runner();
    await database.db
      .transaction()
      .execute(async (trx) => {
        await jobs.enqueue({ kind: 'test.rollback', key: 'rolled-back' }, trx);
        throw new Error('the change failed');
      })
      .catch(() => {});
    const rows = await database.db.selectFrom('jobs').select('id').where('key', '=', 'rolled-back').execute();
    expect(rows).toEqual([]);
  });

  it('retries a failing job with back-off and leaves it failed after its last try', async () => {
    const jobs = runner({ backoff: { baseMs: 1_000, maxMs: 4_000 } });
    let tries = 0;
    jobs.register('test.fail', {
      async run() {
        tries++;
        throw new Error(`try ${tries} failed`);
      },
    });
    const id = (await jobs.enqueue({ kind: 'test.fail', maxAttempts: 2 })) ?? '';
    await jobs.drain();
    const first = await jobRow(id);
    expect(first).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: 'try 1 failed',
      locked_by: null,
    });
    expect(first.run_after.getTime()).toBeGreaterThan(Date.now() + 500);
    await jobs.drain();
    expect(tries).toBe(1);
    await makeDue(id);
    await jobs.drain();
    expect(await jobRow(id)).toMatchObject({ status: 'failed', attempts: 2, last_error: 'try 2 failed' });
    await makeDue(id);
    await jobs.drain();
    expect(tries).toBe(2);
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, { baseMs: 1_000, maxMs: 4_000 }))).toEqual([
      1_000, 2_000, 4_000, 4_000,
    ]);
  });

  it('takes a job back from an instance that stopped: run again while tries are left, else failed and told', async () => {
    const told: string[] = [];
    const ran: string[] = [];
    const jobs = runner();
    jobs.register('test.lost', {
      run: async (job) => void ran.push(job.id),
      interrupted: async (job) => void told.push(job.id),
    });
    const once = (await jobs.enqueue({ kind: 'test.lost', key: 'lost-once' })) ?? '';
    const twice = (await jobs.enqueue({ kind: 'test.lost', key: 'lost-twice', maxAttempts: 2 })) ?? '';
    await database.db
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: 1,
        locked_by: 'gone-instance',
        lease_until: sql<Date>`now() - interval '1 minute'`,
      })
      .where('id', 'in', [once, twice])
      .execute();
    await jobs.drain();
    expect(told).toEqual([once]);
    expect(ran).toEqual([twice]);
    expect(await jobRow(once)).toMatchObject({
      status: 'failed',
      last_error: 'interrupted: the lease ran out',
    });
    expect(await jobRow(twice)).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('does not let an instance that lost its lease record the outcome', async () => {
    const stuck = runner({ leaseSeconds: 3600 });
    let release: () => void = () => {};
    const beats: boolean[] = [];
    stuck.register('test.lease', {
      async run(_job, context) {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        beats.push(await context.heartbeat());
      },
    });
    const id = (await stuck.enqueue({ kind: 'test.lease', maxAttempts: 2 })) ?? '';
    const stuckRun = stuck.drain();
    while ((await jobRow(id)).status !== 'running') await new Promise((resolve) => setTimeout(resolve, 10));
    await database.db
      .updateTable('jobs')
      .set({ lease_until: new Date(0) })
      .where('id', '=', id)
      .execute();
    const rescuer = runner();
    rescuer.register('test.lease', { run: async () => {} });
    await rescuer.drain();
    release();
    await stuckRun;
    expect(beats).toEqual([false]);
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2, locked_by: null });
  });

  it('leaves no row behind a job of a kind dropped when done, and keeps its failures', async () => {
    const jobs = runner();
    const ran: string[] = [];
    jobs.register(
      'test.transient',
      {
        async run(job) {
          ran.push(job.id);
          if (job.payload.fail) throw new Error('the receiver is down');
        },
      },
      { dropWhenDone: true },
    );
    const done = (await jobs.enqueue({ kind: 'test.transient', key: 'syslog:a' })) ?? '';
    const failed =
      (await jobs.enqueue({ kind: 'test.transient', key: 'syslog:b', payload: { fail: true } })) ?? '';
    await jobs.drain();
    expect(ran.sort()).toEqual([done, failed].sort());
    const rows = await database.db
      .selectFrom('jobs')
      .select(['id', 'status', 'last_error'])
      .where('kind', '=', 'test.transient')
      .execute();
    expect(rows).toEqual([{ id: failed, status: 'failed', last_error: 'the receiver is down' }]);
  });

  it('runs a periodic job on one instance of two, again after its period or when asked', async () => {
    let runs = 0;
    const [a, b] = [runner(), runner()];
    for (const jobs of [a, b]) {
      jobs.every('test.periodic', 600, async () => {
        runs++;
      });
    }
    await Promise.all([a.drain(), b.drain()]);
    await a.drain();
    expect(runs).toBe(1);
    const row = await jobRow('every:test.periodic');
    expect(row.status).toBe('queued');
    expect(row.run_after.getTime()).toBeGreaterThan(Date.now() + 590_000);
    await b.runSoon('test.periodic');
    await b.drain();
    expect(runs).toBe(2);
  });
});
