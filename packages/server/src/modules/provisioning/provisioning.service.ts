import type { appProvisioning as contract, Language } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { ProvisioningStoredError } from '../../db/schema-provisioning.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import type { Job, JobContext, Jobs } from '../jobs/jobs.ts';
import * as repo from './provisioning.repo.ts';
import { planProvisioning } from './provisioning-plan.ts';
import { carryOutPlan, emptyCounts, type RunCounts } from './provisioning-run.ts';
import {
  type ProvisioningActor,
  type ProvisioningTargets,
  targetError,
  viewOfTarget,
} from './provisioning-target.service.ts';

/**
 * Provisioning runs as jobs: each run of an application is a job keyed by the application, so
 * one runs at a time per application on any number of instances (modules/jobs); a target that
 * fails (no answer, 5xx) makes the job retry with back-off, each try sending only what is still
 * missing. Runs are recorded with counts and errors; a periodic job queues a run of every enabled
 * target hourly, another within a minute of a change that may matter (an assignment, a person's
 * status or details, departments, roles: marked by the triggers of migration 33) or of an
 * assignment's expiry (nothing marks that: the same job looks for expiries since the last run), and the
 * console's "Run now" queues one at once.
 */

export const PROVISIONING_JOB = 'app-provisioning';
export const PROVISIONING_SCHEDULE_JOB = 'app-provisioning.schedule';
export const PROVISIONING_CHANGES_JOB = 'app-provisioning.changes';
/** Tries of a run before it is left failed. */
export const PROVISIONING_ATTEMPTS = 4;
/** Errors kept per run (the counts say how many people failed in all). */
const ERRORS_KEPT = 100;
/** People listed by a preview. */
const PREVIEW_LISTED = 500;

const jobKey = (appId: string) => `${PROVISIONING_JOB}:${appId}`;

type RunView = z.output<typeof contract.provisioningRun>;

export function createProvisioningService(deps: {
  db: Db;
  targets: ProvisioningTargets;
  jobs: Pick<Jobs, 'register' | 'enqueue' | 'every'>;
  /** How often every enabled target is run (seconds). */
  scheduleSeconds?: number;
}) {
  const { db, jobs, targets } = deps;

  const view = (lang: Language, run: repo.RunView): RunView => ({
    runId: run.id,
    trigger: run.trigger,
    status: run.status,
    requestedBy: run.requested_by_username,
    createdAt: run.created_at.toISOString(),
    startedAt: run.started_at?.toISOString() ?? null,
    finishedAt: run.finished_at?.toISOString() ?? null,
    attempts: run.attempts,
    counts: { ...emptyCounts(), ...(run.counts ?? {}) },
    errors: run.errors.map((error) => ({
      reason: error.reason,
      message: translateError(lang, error.reason as never, error.params),
      username: error.username,
    })),
  });

  async function runView(companyId: string, lang: Language, runId: string) {
    const run = await repo.findRun(db, companyId, runId);
    if (!run) throw new AppError('provisioning.not_found');
    return view(lang, run);
  }

  async function detail(companyId: string, lang: Language, appId: string) {
    await targets.appOf(db, companyId, appId);
    const target = await repo.findTarget(db, companyId, appId);
    const last = await repo.findRuns(db, companyId, appId, 1, 1);
    const lastRun = last.rows[0];
    return { target: target ? viewOfTarget(target) : null, lastRun: lastRun ? view(lang, lastRun) : null };
  }

  async function preview(companyId: string, appId: string) {
    const app = await targets.appOf(db, companyId, appId);
    const target = await targets.targetOf(companyId, appId);
    const plan = await planProvisioning(db, app, target);
    const counts = { create: 0, update: 0, deactivate: 0, delete: 0, unchanged: plan.unchanged };
    for (const entry of plan.entries) counts[entry.action]++;
    const list = [...plan.entries]
      .sort((a, b) => a.username.localeCompare(b.username))
      .slice(0, PREVIEW_LISTED)
      .map((entry) => ({
        userId: entry.accountId,
        username: entry.username,
        name: entry.name,
        action: entry.action,
      }));
    return { counts, list };
  }

  /** Queues a run of the application (or answers the one already waiting). */
  async function queue(
    app: { appId: string; companyId: string },
    trigger: 'manual' | 'schedule' | 'change',
    requestedBy: string | null,
  ) {
    const waiting = await repo.findWaitingRun(db, app.appId, trigger === 'schedule');
    if (waiting) return waiting.id;
    return db.transaction().execute(async (trx) => {
      const runId = await repo.insertRun(trx, { ...app, trigger, requestedBy });
      await jobs.enqueue(
        {
          kind: PROVISIONING_JOB,
          key: jobKey(app.appId),
          payload: { runId },
          maxAttempts: PROVISIONING_ATTEMPTS,
        },
        trx,
      );
      return runId;
    });
  }

  async function runNow(actor: ProvisioningActor, companyId: string, lang: Language, appId: string) {
    const target = await targets.targetOf(companyId, appId);
    if (!target.enabled) throw new AppError('provisioning.target_disabled');
    const runId = await queue({ appId, companyId }, 'manual', actor.accountId);
    await insertAuditEvent(db, {
      companyId,
      actorAccountId: actor.accountId,
      action: 'app.provisioning.run',
      targetType: 'app',
      targetId: appId,
      after: { runId },
      ip: actor.ip,
    });
    return runView(companyId, lang, runId);
  }

  async function list(
    companyId: string,
    lang: Language,
    query: { appId: string; page: number; pageSize: number },
  ) {
    await targets.appOf(db, companyId, query.appId);
    const { rows, total } = await repo.findRuns(db, companyId, query.appId, query.page, query.pageSize);
    return { list: rows.map((run) => view(lang, run)), total };
  }

  /** One try of a run: plan from the access rule, then carry it out against the target. */
  async function runJob(job: Job, context: JobContext) {
    const run = await repo.findRunById(db, String(job.payload.runId ?? ''));
    if (!run || !(await repo.startRun(db, run.id))) return;
    const counts: RunCounts = { ...emptyCounts(), ...(run.counts ?? {}) };
    const errors: ProvisioningStoredError[] = [...run.errors];
    const record = (status: 'retrying' | 'succeeded' | 'failed') =>
      repo.recordRun(db, run.id, { status, counts, errors: errors.slice(-ERRORS_KEPT) });
    try {
      const target = await repo.findTarget(db, run.company_id, run.app_id);
      if (!target) throw new AppError('provisioning.not_found');
      if (!target.enabled) throw new AppError('provisioning.target_disabled');
      const app = await targets.appOf(db, run.company_id, run.app_id);
      const client = targets.clientOf(target);
      const capabilities = await client.capabilities();
      const plan = await planProvisioning(db, app, target);
      counts.unchanged = plan.unchanged;
      for (const person of plan.unnamed) {
        counts.failed++;
        errors.push({ reason: 'provisioning.user_name_missing', params: {}, username: person.username });
      }
      await carryOutPlan({
        db,
        client,
        capabilities,
        target,
        plan,
        counts,
        errors,
        heartbeat: context.heartbeat,
        signal: context.signal,
      });
      await record('succeeded');
    } catch (error) {
      errors.push(targetError(error));
      const retry = (error as { kind?: string }).kind === 'transient' && job.attempts < PROVISIONING_ATTEMPTS;
      await record(retry ? 'retrying' : 'failed');
      // The job's back-off brings the next try.
      if (retry) throw new Error(`provisioning run ${run.id} will be retried`);
    } finally {
      await repo.pruneRuns(db, run.app_id);
    }
  }

  async function interrupted(job: Job) {
    const run = await repo.findRunById(db, String(job.payload.runId ?? ''));
    if (!run || run.status === 'succeeded' || run.status === 'failed') return;
    await repo.recordRun(db, run.id, {
      status: 'failed',
      counts: { ...emptyCounts(), ...(run.counts ?? {}) },
      errors: [...run.errors, { reason: 'provisioning.interrupted', params: {}, username: null }],
    });
  }

  /** Queues a run of every enabled target (one instance runs this; a waiting run is not doubled). */
  async function scheduleAll() {
    for (const target of await repo.findEnabledTargets(db))
      await queue({ appId: target.app_id, companyId: target.company_id }, 'schedule', null);
  }

  /**
   * Queues a run of each target whose company changed something that may matter (see migration
   * 33), and of each whose application had an assignment expire since its last run: so a person
   * whose access merely lapsed is deactivated within about a minute, not at the hourly run.
   */
  async function queueChanged() {
    const changed = await repo.takeChangedTargets(db);
    const lapsed = await repo.findTargetsWithLapsedAssignments(db);
    const due = new Map([...changed, ...lapsed].map((target) => [target.app_id, target.company_id]));
    for (const [appId, companyId] of due) await queue({ appId, companyId }, 'change', null);
  }

  jobs.register(PROVISIONING_JOB, { run: runJob, interrupted });
  jobs.every(PROVISIONING_SCHEDULE_JOB, deps.scheduleSeconds ?? 3600, scheduleAll);
  jobs.every(PROVISIONING_CHANGES_JOB, 60, queueChanged);

  return { detail, preview, runNow, list, runView, queue, scheduleAll, queueChanged };
}

export type ProvisioningService = ReturnType<typeof createProvisioningService>;
