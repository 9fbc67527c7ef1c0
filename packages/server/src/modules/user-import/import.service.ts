import {
  type ErrorReason,
  isErrorReason,
  type Language,
  type PasswordClass,
  user as userCalls,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError, translateValidation } from '../../lib/i18n.ts';
import { newId } from '../../lib/ids.ts';
import { describeClasses } from '../account/password-policy.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertDepartmentsInCompany } from '../department/department.repo.ts';
import type { Job, JobContext, Jobs } from '../jobs/jobs.ts';
import type { QuotaService } from '../license/quota.service.ts';
import { assertIdentifierChecksLeft } from '../user/identifier-checks.ts';
import { columnLabel, type ImportColumn, importColumns } from './columns.ts';
import type { StoredRowError } from './import.repo.ts';
import * as repo from './import.repo.ts';
import type { ImportFileStore } from './import-files.ts';
import {
  byRow,
  checkRows,
  hashPasswords,
  RowProblems,
  takenIdentifierProblems,
  type ValidationKey,
} from './import-rows.ts';
import { SheetProblem } from './sheet-problem.ts';
import type { ImportSheet } from './sheet-reader.ts';
import { readSheetInWorker, sheetWorkerLimits } from './sheet-worker.ts';
import { exportUsers } from './user-export.ts';
import { buildTemplate } from './xlsx.ts';
import { assertXlsxFile } from './xlsx-upload.ts';

export interface Actor {
  accountId: string;
  ip: string;
}

interface Logger {
  error(object: unknown, message: string): void;
  warn(object: unknown, message: string): void;
}

/** A task that failed lists at most this many problems (and how many more there were). */
const MAX_LISTED_ERRORS = 1_000;
/** Imports a company may have waiting or running, and a person may have started. */
const MAX_OPEN_IMPORTS = 3;
/** The jobs (modules/jobs) that run imports: one per company at a time (the key), a few on the platform. */
export const IMPORT_JOB = 'user-import';
export const importJobKey = (companyId: string) => `user-import:${companyId}`;
/** Imports running at once on the platform unless TESSERA_IMPORT_CONCURRENCY says otherwise. */
const DEFAULT_CONCURRENCY = 2;
/**
 * Runs of one import: an instance that stops while it runs one (its lease runs out, or it shuts
 * down before the import ends) leaves it to another instance, which imports the file again from
 * the start (nothing was stored: the import is one transaction).
 */
const IMPORT_TRIES = 3;

type WithoutDb<T> = T extends [Db, ...infer Rest] ? Rest : never;

const interrupted: StoredRowError[] = [{ row: 0, column: null, reason: 'import.interrupted' }];
const taskIdOf = (job: Job) => String(job.payload.taskId ?? '');

export function createUserImportService(deps: {
  db: Db;
  quotas: Pick<QuotaService, 'takePlaces'>;
  jobs: Pick<Jobs, 'register' | 'enqueue'>;
  log: Logger;
  /** Where uploaded files wait for their turn. */
  files: ImportFileStore;
  /** Imports running at once on the platform (all instances together). */
  concurrency?: number;
  /** Whether people imported without a password can be sent a sign-in link (TESSERA_SMTP_URL). */
  mailEnabled: boolean;
}) {
  const { db, quotas, jobs, log, files } = deps;
  let closing = false;

  jobs.register(
    IMPORT_JOB,
    {
      run: (job, context) => runTask(taskIdOf(job), job.attempts, context),
      // Its last try's instance stopped too: nothing was stored (the import is one transaction).
      interrupted: async (job) => {
        await repo.finishTask(db, taskIdOf(job), { status: 'failed', errors: interrupted });
        await files.drop(taskIdOf(job));
      },
    },
    { concurrency: deps.concurrency ?? DEFAULT_CONCURRENCY },
  );

  /**
   * Checks that the upload is an .xlsx workbook (by name, type, size and its zip directory:
   * nothing is inflated here), keeps it with a new task and its job in the queue, and answers
   * with the task id at once. The workbook is read when the task's turn comes.
   */
  async function start(
    actor: Actor,
    companyId: string,
    file: { bytes: Buffer; filename: string; declaredType: string },
  ) {
    if (closing) throw new AppError('import.interrupted');
    assertXlsxFile(file);
    if ((await repo.countOpenTasks(db, companyId, actor.accountId)) >= MAX_OPEN_IMPORTS)
      throw new AppError('import.queue_full', { max: MAX_OPEN_IMPORTS });
    const taskId = newId();
    await files.save(taskId, file.bytes, async (trx) => {
      await repo.insertTask(trx, companyId, {
        id: taskId,
        createdBy: actor.accountId,
        createdIp: actor.ip,
        fileName: file.filename.slice(0, 255),
      });
      await jobs.enqueue(
        { kind: IMPORT_JOB, key: importJobKey(companyId), payload: { taskId }, maxAttempts: IMPORT_TRIES },
        trx,
      );
    });
    return { taskId };
  }

  /**
   * A task's turn: its workbook read in a worker, then its rows checked and stored; then its file
   * goes. Every outcome is recorded on the task (the job itself ends done), except a shutdown
   * under way: the job then goes back to the queue with its file, for another instance (or this
   * one's next start) while it has tries left.
   */
  async function runTask(taskId: string, attempts: number, context: JobContext) {
    let handedBack = false;
    try {
      const task = await repo.startTask(db, taskId);
      if (task) await readAndImport(task, context.signal);
    } catch (error) {
      const stopped = context.signal.aborted;
      if (stopped && attempts < IMPORT_TRIES) {
        handedBack = true;
        throw error;
      }
      if (!stopped) log.error({ err: error, taskId }, 'user import stopped');
      await repo.finishTask(db, taskId, {
        status: 'failed',
        errors: stopped ? interrupted : [{ row: 0, column: null, reason: 'internal.error' }],
      });
    } finally {
      if (!handedBack) await files.drop(taskId).catch(() => undefined);
    }
  }

  async function readAndImport(task: repo.StartedTask, signal: AbortSignal) {
    const content = await files.read(task.id);
    if (!content) {
      // Kept by a process that stopped (the embedded database's folder).
      await repo.finishTask(db, task.id, { status: 'failed', errors: interrupted });
      return;
    }
    let sheet: ImportSheet;
    try {
      sheet = await readSheetInWorker(content, sheetWorkerLimits, signal);
    } catch (error) {
      if (!(error instanceof SheetProblem)) throw error;
      const { at, reason, params } = error;
      await repo.finishTask(db, task.id, {
        status: 'failed',
        errors: [{ row: at.row, column: at.column, reason, params }],
      });
      return;
    }
    await repo.setTaskTotal(db, task.id, sheet.rows.length);
    await runImport(task, sheet);
  }

  /**
   * Validates every row and its identifiers, then stores all of them in one transaction (taking
   * the company's places), or none and the reasons.
   */
  async function runImport(task: repo.StartedTask, sheet: ImportSheet) {
    const { companyId } = task;
    const actor = { accountId: task.createdBy, ip: task.createdIp };
    try {
      const { accounts, errors, identifiers } = await checkRows(db, companyId, sheet, {
        mailEnabled: deps.mailEnabled,
      });
      // While the company's identifier checks are spent, nothing is looked up (identifier-checks.ts):
      // the rows' own problems are told, or else that the checks are spent.
      const checksLeft = await assertIdentifierChecksLeft(db, companyId).then(
        () => true,
        (error: unknown) => {
          if (errors.length) return false;
          throw error;
        },
      );
      if (checksLeft)
        errors.push(...(await takenIdentifierProblems(db, companyId, actor, task, identifiers)));
      if (errors.length) throw new RowProblems(byRow(errors));
      await hashPasswords(accounts);
      await db.transaction().execute(async (trx) => {
        await quotas.takePlaces(trx, companyId, 'user', accounts.length);
        // A department deleted since the rows were checked.
        await assertDepartmentsInCompany(
          trx,
          companyId,
          accounts.flatMap((account) => account.departmentIds),
        );
        await repo.insertImportedAccounts(trx, companyId, accounts);
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'user.import',
          targetType: 'user',
          targetId: null,
          after: { taskId: task.id, fileName: task.fileName, count: accounts.length },
          ip: actor.ip ?? undefined,
        });
        if (!(await repo.finishTask(trx, task.id, { status: 'success', created: accounts.length })))
          throw new AppError('import.interrupted');
      });
    } catch (error) {
      const errors =
        error instanceof RowProblems
          ? error.errors
          : error instanceof AppError
            ? [{ row: 0, column: null, reason: error.reason, params: error.params }]
            : (error as { code?: string }).code === '23505'
              ? // A parallel creation won a username/email/phone between the check and the insert.
                [{ row: 0, column: null, reason: uniqueReason(error) }]
              : [{ row: 0, column: null, reason: 'internal.error' }];
      if (!(error instanceof RowProblems || error instanceof AppError))
        log.error({ err: error, taskId: task.id }, 'user import stopped');
      await repo.finishTask(db, task.id, { status: 'failed', errors: capErrors(errors) });
    }
  }

  const uniqueReason = (error: unknown): ErrorReason => {
    const constraint = (error as { constraint?: string }).constraint ?? '';
    if (constraint === 'accounts_username_is_email') return 'user.username_is_email';
    if (constraint === 'accounts_email_is_username') return 'user.email_is_username';
    if (constraint.includes('email')) return 'user.email_taken';
    if (constraint.includes('phone')) return 'user.phone_taken';
    return 'user.username_taken';
  };

  const capErrors = (errors: StoredRowError[]): StoredRowError[] =>
    errors.length <= MAX_LISTED_ERRORS
      ? errors
      : [
          ...errors.slice(0, MAX_LISTED_ERRORS),
          {
            row: 0,
            column: null,
            reason: 'import.more_errors',
            params: { count: errors.length - MAX_LISTED_ERRORS },
          },
        ];

  function phrase(lang: Language, error: StoredRowError) {
    const field =
      error.column && (importColumns as readonly string[]).includes(error.column)
        ? columnLabel(lang, error.column as ImportColumn)
        : null;
    const params: Record<string, string | number> = { ...error.params };
    if (error.classes) params.classes = describeClasses(error.classes as PasswordClass[], lang);
    let message: string;
    if (error.validation)
      message = translateValidation(lang, error.reason as ValidationKey, { ...params, field: field ?? '' });
    else if (isErrorReason(error.reason)) message = translateError(lang, error.reason, params);
    else message = translateError(lang, 'internal.error');
    return { row: error.row, field, message };
  }

  /** A task of the company, with its problems phrased in the reader's language. */
  async function task(companyId: string, taskId: string, lang: Language) {
    const row = await repo.findTask(db, companyId, taskId);
    if (!row) throw new AppError('import.task_not_found');
    const stored = (typeof row.errors === 'string' ? JSON.parse(row.errors) : row.errors) as
      | StoredRowError[]
      | null;
    const waiting = row.status === 'importing' && row.started_at === null;
    return {
      taskId: row.id,
      status: row.status,
      queuePosition: waiting ? await repo.queuePosition(db, companyId, row) : null,
      fileName: row.file_name,
      total: row.total,
      created: row.created,
      errors: (stored ?? []).map((error) => phrase(lang, error)),
      createdAt: row.created_at.toISOString(),
      finishedAt: row.finished_at?.toISOString() ?? null,
    };
  }

  async function template(lang: Language) {
    return {
      filename: lang === 'zh' ? '用户导入模板.xlsx' : 'user-import-template.xlsx',
      contentType: userCalls.importTemplate.download?.contentType as string,
      bytes: await buildTemplate(lang),
    };
  }

  /** Start-up: tasks still importing without a job to run them (their process stopped) failed as interrupted. */
  async function failInterruptedTasks() {
    await repo.failTasksWithoutJob(db, interrupted, IMPORT_JOB);
  }

  /**
   * Shutdown, after the jobs module has stopped (it waits for running imports, then aborts their
   * workers: they record "interrupted"): takes no more uploads and removes the embedded
   * database's folder of waiting files.
   */
  async function close() {
    closing = true;
    await files.close();
  }

  return {
    start,
    task,
    template,
    exportUsers: (...args: WithoutDb<Parameters<typeof exportUsers>>) => exportUsers(db, ...args),
    failInterruptedTasks,
    close,
  };
}

export type UserImportService = ReturnType<typeof createUserImportService>;
