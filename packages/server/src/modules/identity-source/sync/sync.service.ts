import {
  interpolate,
  type Language,
  type SyncRowKind,
  type SyncRunMode,
  serverPhrases,
  syncableSourceTypes,
} from '@tessera/contract';
import type { Db } from '../../../db/database.ts';
import { AppError } from '../../../lib/errors.ts';
import { translateError } from '../../../lib/i18n.ts';
import { insertAuditEvent } from '../../audit/audit.repo.ts';
import type { Job, Jobs } from '../../jobs/jobs.ts';
import type { QuotaService } from '../../license/quota.service.ts';
import { spendIdentifierChecks } from '../../user/identifier-checks.ts';
import * as sources from '../identity-source.repo.ts';
import type { DirectorySnapshot } from './snapshot.ts';
import { applyPlan, type StoredError, storedError } from './sync-apply.ts';
import { planSync, type SyncNote } from './sync-plan.ts';
import * as runs from './sync-runs.repo.ts';
import {
  findIdentifierOwners,
  findToldConflicts,
  loadSyncState,
  replaceToldConflicts,
} from './sync-state.ts';

/**
 * Directory sync as jobs: a preview, an apply of a preview, or a sync at once, on demand or on
 * the source's schedule. Every run is a job keyed by its source, so one runs at a time per
 * source on any number of instances (modules/jobs); each is recorded (start, end, counts, rows,
 * errors) and shown on the source's page.
 */

export const SYNC_JOB = 'directory-sync';
const jobKey = (sourceId: string) => `${SYNC_JOB}:${sourceId}`;

export interface SyncActor {
  accountId: string | null;
  ip: string | null;
}

export function createSyncService(deps: {
  db: Db;
  quotas: Pick<QuotaService, 'takePlaces'>;
  jobs: Pick<Jobs, 'register' | 'enqueue' | 'every'>;
  /** Reads the directory behind a source (LDAP, DingTalk or WeCom contacts). */
  readDirectory(source: sources.AnySource): Promise<DirectorySnapshot>;
}) {
  const { db, jobs } = deps;

  const view = (lang: Language, run: runs.RunRow) => ({
    runId: run.id,
    mode: run.mode,
    trigger: run.trigger,
    status: run.status,
    requestedBy: run.requested_by_username,
    createdAt: run.created_at.toISOString(),
    startedAt: run.started_at?.toISOString() ?? null,
    finishedAt: run.finished_at?.toISOString() ?? null,
    counts: run.counts,
    errors: (run.errors ?? []).map((error) => ({
      reason: error.reason,
      message: translateError(lang, error.reason, error.params),
    })),
    previewRunId: run.preview_run_id,
    appliedByRunId: run.applied_by_run_id,
  });

  async function syncableSource(companyId: string, sourceId: string) {
    const source = await sources.findSource(db, companyId, sourceId);
    if (!source) throw new AppError('identity_source.not_found');
    if (!syncableSourceTypes.includes(source.type)) throw new AppError('identity_source.not_syncable');
    if (!source.enabled) throw new AppError('identity_source.disabled');
    return source;
  }

  /** Records a run and queues its job in one transaction; the NOTIFY that wakes the runners goes out at commit. */
  async function queue(
    companyId: string,
    sourceId: string,
    run: {
      mode: SyncRunMode;
      trigger: 'manual' | 'schedule';
      requestedBy: string | null;
      previewRunId?: string;
    },
  ) {
    return db.transaction().execute(async (trx) => {
      const runId = await runs.insertRun(trx, { companyId, sourceId, ...run });
      await jobs.enqueue({ kind: SYNC_JOB, key: jobKey(sourceId), payload: { runId } }, trx);
      return runId;
    });
  }

  async function request(
    actor: SyncActor,
    companyId: string,
    lang: Language,
    input: { sourceId: string; mode: SyncRunMode; previewRunId?: string },
  ) {
    await syncableSource(companyId, input.sourceId);
    if (input.mode === 'apply') {
      const preview = await runs.findRun(db, companyId, input.sourceId, input.previewRunId ?? '');
      if (!preview) throw new AppError('sync.run_not_found');
      if (preview.mode !== 'preview') throw new AppError('sync.not_a_preview');
      if (preview.status !== 'succeeded') throw new AppError('sync.preview_not_finished');
      if (preview.applied_by_run_id) throw new AppError('sync.preview_applied');
    }
    let runId: string;
    try {
      runId = await queue(companyId, input.sourceId, {
        mode: input.mode,
        trigger: 'manual',
        requestedBy: actor.accountId,
        previewRunId: input.previewRunId,
      });
    } catch (error) {
      // Two applies of one preview at the same moment: the unique index lets one through.
      if ((error as { code?: string }).code === '23505') throw new AppError('sync.preview_applied');
      throw error;
    }
    await insertAuditEvent(db, {
      companyId,
      actorAccountId: actor.accountId,
      action: `identity_source.sync_${input.mode}`,
      targetType: 'identity_source',
      targetId: input.sourceId,
      after: { runId, previewRunId: input.previewRunId ?? null },
      ip: actor.ip,
    });
    return detail(companyId, lang, input.sourceId, runId);
  }

  async function detail(companyId: string, lang: Language, sourceId: string, runId: string) {
    const run = await runs.findRun(db, companyId, sourceId, runId);
    if (!run) throw new AppError('sync.run_not_found');
    return view(lang, run);
  }

  async function list(
    companyId: string,
    lang: Language,
    query: { sourceId: string; page: number; pageSize: number },
  ) {
    if (!(await sources.findSource(db, companyId, query.sourceId)))
      throw new AppError('identity_source.not_found');
    const { rows, total } = await runs.findRuns(db, companyId, query.sourceId, query.page, query.pageSize);
    return { list: rows.map((run) => view(lang, run)), total };
  }

  async function rows(
    companyId: string,
    lang: Language,
    query: { sourceId: string; runId: string; kind: SyncRowKind; page: number; pageSize: number },
  ) {
    const run = await runs.findRun(db, companyId, query.sourceId, query.runId);
    if (!run) throw new AppError('sync.run_not_found');
    const found = await runs.findRows(db, run.id, query.kind, query.page, query.pageSize);
    const phrases = serverPhrases[lang];
    const fields = phrases.syncFields as Record<string, string>;
    const noteText = (note: SyncNote | null) => {
      if (!note) return null;
      const template = (phrases.syncNotes as Record<string, string>)[note.key] ?? note.key;
      const params = {
        ...note.params,
        ...(note.params?.field ? { field: fields[note.params.field] ?? note.params.field } : {}),
      };
      return interpolate(template, params);
    };
    return {
      list: found.rows.map((row) => ({ kind: query.kind, ...row, note: noteText(row.note) })),
      total: found.total,
    };
  }

  /** Plans against the company as it is now; spends identifier checks for new outside collisions. */
  async function plan(run: runs.RunRow, snapshot: DirectorySnapshot) {
    const state = await loadSyncState(db, run.company_id, run.source_id);
    const values = { usernames: [] as string[], emails: [] as string[], phones: [] as string[] };
    for (const person of snapshot.people) {
      values.usernames.push(person.username);
      if (person.email) values.emails.push(person.email);
      if (person.phone) values.phones.push(person.phone);
    }
    const owners = await findIdentifierOwners(db, run.company_id, values);
    const planned = planSync({ snapshot, state, owners });
    const told = await findToldConflicts(db, run.source_id);
    const news = [...planned.elsewhere].filter(([ext, fingerprint]) => told.get(ext) !== fingerprint).length;
    if (news > 0)
      await spendIdentifierChecks(
        db,
        run.company_id,
        { accountId: run.requested_by, ip: null },
        { sourceId: run.source_id, runId: run.id, collisions: news },
        news,
      );
    await replaceToldConflicts(db, run.source_id, planned.elsewhere);
    return { planned, state };
  }

  async function execute(run: runs.RunRow, source: sources.AnySource) {
    let snapshot: DirectorySnapshot | undefined;
    let previewHash: string | null = null;
    if (run.mode === 'apply') {
      const preview = run.preview_run_id ? await runs.findRunById(db, run.preview_run_id) : undefined;
      snapshot = preview ? await runs.findSnapshot(db, preview.id) : undefined;
      previewHash = preview?.plan_hash ?? null;
      if (!snapshot) throw new AppError('sync.preview_stale');
    } else {
      snapshot = await deps.readDirectory(source);
    }
    const { planned, state } = await plan(run, snapshot);
    if (run.mode === 'apply' && planned.hash !== previewHash) throw new AppError('sync.preview_stale');
    await runs.insertRows(db, run.id, planned.rows);
    if (run.mode === 'preview') {
      await runs.finishRun(db, run.id, {
        status: 'succeeded',
        counts: planned.counts,
        errors: [],
        planHash: planned.hash,
        snapshot,
      });
      return;
    }
    const errors = await applyPlan(
      {
        db,
        quotas: deps.quotas,
        companyId: run.company_id,
        sourceId: run.source_id,
        sourceDepartments: state.sourceDepartments,
      },
      planned,
    );
    await runs.finishRun(db, run.id, {
      status: errors.length ? 'failed' : 'succeeded',
      counts: planned.counts,
      errors,
      planHash: planned.hash,
    });
    // The preview's copy of the directory has served its purpose.
    if (run.preview_run_id) await runs.finishRunSnapshot(db, run.preview_run_id);
    await insertAuditEvent(db, {
      companyId: run.company_id,
      actorAccountId: run.requested_by,
      action: 'identity_source.sync',
      targetType: 'identity_source',
      targetId: run.source_id,
      after: {
        runId: run.id,
        mode: run.mode,
        trigger: run.trigger,
        counts: planned.counts,
        errors: errors.length,
      },
    });
  }

  async function runJob(job: Job) {
    const runId = String(job.payload.runId ?? '');
    const run = await runs.findRunById(db, runId);
    if (!run || !(await runs.startRun(db, run.id))) return;
    const fail = (errors: StoredError[]) => runs.finishRun(db, run.id, { status: 'failed', errors });
    try {
      const source = await sources.findSource(db, run.company_id, run.source_id);
      if (!source) return;
      if (!source.enabled) return await fail([{ reason: 'identity_source.disabled', params: {} }]);
      await execute(run, source);
    } catch (error) {
      await fail([storedError(error)]);
    } finally {
      await runs.pruneRuns(db, run.source_id);
    }
  }

  async function interrupted(job: Job) {
    const runId = String(job.payload.runId ?? '');
    await db
      .updateTable('sync_runs')
      .set({ status: 'failed', errors: JSON.stringify([{ reason: 'sync.interrupted', params: {} }]) })
      .where('id', '=', runId)
      .where('status', 'in', ['queued', 'running'])
      .execute();
  }

  /** Queues the scheduled syncs that are due (each instance runs this; one wins each source). */
  async function scheduleDue() {
    for (const due of await sources.claimDueSyncs(db)) {
      if (await runs.hasPendingRun(db, due.id)) continue;
      await queue(due.company_id, due.id, { mode: 'sync', trigger: 'schedule', requestedBy: null });
    }
  }

  jobs.register(SYNC_JOB, { run: runJob, interrupted });
  jobs.every(`${SYNC_JOB}.schedule`, 60, scheduleDue);

  return { request, detail, list, rows, scheduleDue, runView: view };
}

export type SyncService = ReturnType<typeof createSyncService>;
