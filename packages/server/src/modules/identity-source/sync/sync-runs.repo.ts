import type { SyncRowKind, SyncRunMode } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { SyncRunsTable } from '../../../db/schema.ts';
import { newId } from '../../../lib/ids.ts';
import type { DirectorySnapshot } from './snapshot.ts';
import type { StoredError } from './sync-apply.ts';
import type { SyncPlan, SyncRowData } from './sync-plan.ts';

/** Sync runs of a source and their rows (migration 13). Every read takes the company first. */

export interface RunRow {
  id: string;
  source_id: string;
  company_id: string;
  mode: SyncRunsTable['mode'];
  trigger: SyncRunsTable['trigger'];
  status: SyncRunsTable['status'];
  requested_by: string | null;
  requested_by_username: string | null;
  preview_run_id: string | null;
  applied_by_run_id: string | null;
  counts: SyncPlan['counts'] | null;
  errors: StoredError[];
  plan_hash: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const runs = (db: Db) =>
  db
    .selectFrom('sync_runs as r')
    .leftJoin('accounts as a', 'a.id', 'r.requested_by')
    .select([
      'r.id',
      'r.source_id',
      'r.company_id',
      'r.mode',
      'r.trigger',
      'r.status',
      'r.requested_by',
      'a.username as requested_by_username',
      'r.preview_run_id',
      sql<string | null>`(select x.id from sync_runs x where x.preview_run_id = r.id)`.as(
        'applied_by_run_id',
      ),
      'r.counts',
      'r.errors',
      'r.plan_hash',
      'r.created_at',
      'r.started_at',
      'r.finished_at',
    ]);

export async function insertRun(
  db: Db,
  run: {
    companyId: string;
    sourceId: string;
    mode: SyncRunMode;
    trigger: 'manual' | 'schedule';
    requestedBy: string | null;
    previewRunId?: string;
  },
): Promise<string> {
  const id = newId();
  await db
    .insertInto('sync_runs')
    .values({
      id,
      source_id: run.sourceId,
      company_id: run.companyId,
      mode: run.mode,
      trigger: run.trigger,
      status: 'queued',
      requested_by: run.requestedBy,
      preview_run_id: run.previewRunId ?? null,
    })
    .execute();
  return id;
}

export async function findRun(
  db: Db,
  companyId: string,
  sourceId: string,
  runId: string,
): Promise<RunRow | undefined> {
  const row = await runs(db)
    .where('r.company_id', '=', companyId)
    .where('r.source_id', '=', sourceId)
    .where('r.id', '=', runId)
    .executeTakeFirst();
  return row as RunRow | undefined;
}

export async function findRunById(db: Db, runId: string): Promise<RunRow | undefined> {
  return (await runs(db).where('r.id', '=', runId).executeTakeFirst()) as RunRow | undefined;
}

export async function findRuns(db: Db, companyId: string, sourceId: string, page: number, pageSize: number) {
  const [rows, total] = await Promise.all([
    runs(db)
      .where('r.company_id', '=', companyId)
      .where('r.source_id', '=', sourceId)
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('sync_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .where('source_id', '=', sourceId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as RunRow[], total: Number(total.n) };
}

/** The newest run of each source of the company. */
export async function findLastRuns(db: Db, companyId: string): Promise<Map<string, RunRow>> {
  const rows = (await runs(db)
    .where('r.company_id', '=', companyId)
    .where(
      'r.id',
      'in',
      db
        .selectFrom('sync_runs as l')
        .select(sql<string>`(array_agg(l.id order by l.created_at desc, l.id desc))[1]`.as('id'))
        .where('l.company_id', '=', companyId)
        .groupBy('l.source_id'),
    )
    .execute()) as RunRow[];
  return new Map(rows.map((row) => [row.source_id, row]));
}

/** Marks a queued run running; false when it is not queued (already taken, or gone). */
export async function startRun(db: Db, runId: string): Promise<boolean> {
  const row = await db
    .updateTable('sync_runs')
    .set({ status: 'running', started_at: sql<Date>`now()` })
    .where('id', '=', runId)
    .where('status', '=', 'queued')
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}

export async function finishRun(
  db: Db,
  runId: string,
  outcome: {
    status: 'succeeded' | 'failed';
    counts?: SyncPlan['counts'] | null;
    errors: StoredError[];
    planHash?: string | null;
    snapshot?: DirectorySnapshot | null;
  },
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({
      status: outcome.status,
      finished_at: sql<Date>`now()`,
      errors: JSON.stringify(outcome.errors),
      ...(outcome.counts !== undefined
        ? { counts: outcome.counts ? JSON.stringify(outcome.counts) : null }
        : {}),
      ...(outcome.planHash !== undefined ? { plan_hash: outcome.planHash } : {}),
      ...(outcome.snapshot !== undefined
        ? { snapshot: outcome.snapshot ? JSON.stringify(outcome.snapshot) : null }
        : {}),
    })
    .where('id', '=', runId)
    .execute();
}

/** A preview's directory as it read it. */
export async function findSnapshot(db: Db, runId: string): Promise<DirectorySnapshot | undefined> {
  const row = await db.selectFrom('sync_runs').select('snapshot').where('id', '=', runId).executeTakeFirst();
  return (row?.snapshot ?? undefined) as DirectorySnapshot | undefined;
}

export async function insertRows(
  db: Db,
  runId: string,
  rows: Record<SyncRowKind, SyncRowData[]>,
): Promise<void> {
  const all = Object.entries(rows).flatMap(([kind, list]) =>
    list.map((row, seq) => ({ run_id: runId, kind, seq, row: JSON.stringify(row) })),
  );
  for (let i = 0; i < all.length; i += 1000)
    await db
      .insertInto('sync_run_rows')
      .values(all.slice(i, i + 1000))
      .execute();
}

export async function findRows(db: Db, runId: string, kind: SyncRowKind, page: number, pageSize: number) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('sync_run_rows')
      .select('row')
      .where('run_id', '=', runId)
      .where('kind', '=', kind)
      .orderBy('seq')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('sync_run_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('run_id', '=', runId)
      .where('kind', '=', kind)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map((r) => r.row as SyncRowData), total: Number(total.n) };
}

/** Keeps the newest `keep` runs of a source (and the snapshots of unapplied previews among them). */
export async function pruneRuns(db: Db, sourceId: string, keep = 30): Promise<void> {
  await db
    .deleteFrom('sync_runs')
    .where('source_id', '=', sourceId)
    .where('status', 'in', ['succeeded', 'failed'])
    .where(
      'id',
      'not in',
      db
        .selectFrom('sync_runs')
        .select('id')
        .where('source_id', '=', sourceId)
        .orderBy('created_at', 'desc')
        .limit(keep),
    )
    .execute();
}

/** Whether the source has a queued or running run (a schedule does not queue another). */
export async function hasPendingRun(db: Db, sourceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('sync_runs')
    .select('id')
    .where('source_id', '=', sourceId)
    .where('status', 'in', ['queued', 'running'])
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/** Drops a preview's copy of the directory once it was applied. */
export async function finishRunSnapshot(db: Db, runId: string): Promise<void> {
  await db.updateTable('sync_runs').set({ snapshot: null }).where('id', '=', runId).execute();
}
