import { availableParallelism } from 'node:os';
import {
  company as companyCalls,
  type ErrorReason,
  isErrorReason,
  type Language,
  type MemberRole,
  type PasswordClass,
  type ServerPhrases,
  type UserStatus,
  user as userCalls,
  userLimits,
} from '@tessera/contract';
import { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError, translateValidation } from '../../lib/i18n.ts';
import { newId } from '../../lib/ids.ts';
import { hashPassword } from '../account/password.ts';
import { checkPassword, describeClasses, passwordPolicyFor } from '../account/password-policy.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertDepartmentsInCompany, subtreeIds } from '../department/department.repo.ts';
import type { QuotaService } from '../license/quota.service.ts';
import { findDepartmentRefs, findUsers } from '../user/user.repo.ts';
import type { StoredRowError } from './import.repo.ts';
import * as repo from './import.repo.ts';
import {
  assertXlsxFile,
  buildTemplate,
  columnLabel,
  type ExportColumn,
  type ImportColumn,
  importColumns,
  readImportSheet,
  writeExport,
} from './xlsx.ts';

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
/** How long a shutdown waits for running imports before marking them interrupted. */
const SHUTDOWN_WAIT_MS = 10_000;
/** Rows the export reads per query: few pages, since each one counts and skips what came before. */
const EXPORT_PAGE = 20_000;

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((value) => (value === '' ? null : value));

/** One row, checked with the same rules as user/create. */
const rowSchema = z.object({
  username: companyCalls.username,
  name: optionalText(userLimits.nameMax),
  nickname: optionalText(userLimits.nicknameMax),
  email: userCalls.email,
  phone: userCalls.phone,
});

type ValidationKey = keyof ServerPhrases['validation'];

function issueToError(row: number, issue: z.core.$ZodIssue): StoredRowError {
  const column = String(issue.path[0] ?? '') || null;
  if (isErrorReason(issue.message)) return { row, column, reason: issue.message };
  const validation = (key: ValidationKey, params?: Record<string, string>): StoredRowError => ({
    row,
    column,
    reason: key,
    validation: true,
    ...(params ? { params } : {}),
  });
  switch (issue.code) {
    case 'too_big':
      return validation('too_long', { max: String(issue.maximum) });
    case 'too_small':
      return validation('required');
    case 'invalid_type':
      return validation('required');
    default:
      return validation('invalid');
  }
}

/** The path of every department from the top ("Sales/East"), by id, and the ids by lower-case path. */
function departmentIndex(rows: { id: string; parent_id: string | null; name: string }[]) {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const paths = new Map<string, string>();
  const pathOf = (id: string, seen = new Set<string>()): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const row = byId.get(id);
    if (!row || row.parent_id === null || seen.has(id)) return '';
    seen.add(id);
    const parent = pathOf(row.parent_id, seen);
    const path = parent ? `${parent}/${row.name}` : row.name;
    paths.set(id, path);
    return path;
  };
  const byPath = new Map<string, string>();
  const root = rows.find((row) => row.parent_id === null);
  for (const row of rows) {
    const path = row.parent_id === null ? row.name : pathOf(row.id);
    byPath.set(path.toLowerCase(), row.id);
    // The root's name may lead the path too ("Acme/Sales").
    if (root && row.parent_id !== null) byPath.set(`${root.name}/${path}`.toLowerCase(), row.id);
  }
  return {
    byId,
    byPath,
    pathOf: (id: string) => (byId.get(id)?.parent_id === null ? byId.get(id)?.name : pathOf(id)),
  };
}

const splitDepartments = (text: string) =>
  text
    .split(/[;；\n]/)
    .map((part) =>
      part
        .split('/')
        .map((segment) => segment.trim())
        .filter(Boolean)
        .join('/'),
    )
    .filter(Boolean);

/** Runs `work` over items with at most `limit` at once. */
async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

class RowProblems extends Error {
  constructor(readonly errors: StoredRowError[]) {
    super('rows refused');
  }
}

export function createUserImportService(deps: {
  db: Db;
  quotas: Pick<QuotaService, 'takePlaces'>;
  log: Logger;
}) {
  const { db, quotas, log } = deps;
  /** Imports running in this process, by task id. */
  const running = new Map<string, Promise<void>>();
  let closing = false;

  /**
   * Checks the file's shape (an .xlsx workbook with the template's header, not too many rows),
   * records the task and starts the import in the background; answers with the task id at once.
   */
  async function start(
    actor: Actor,
    companyId: string,
    file: { bytes: Buffer; filename: string; declaredType: string },
  ) {
    if (closing) throw new AppError('import.interrupted');
    assertXlsxFile(file);
    const sheet = await readImportSheet(file.bytes);
    const taskId = newId();
    await repo.insertTask(db, companyId, {
      id: taskId,
      createdBy: actor.accountId,
      fileName: file.filename.slice(0, 255),
      total: sheet.rows.length,
    });
    const work = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => runImport(actor, companyId, taskId, file.filename, sheet))
      .catch((error) => log.error({ err: error, taskId }, 'user import failed'))
      .finally(() => running.delete(taskId));
    running.set(taskId, work);
    return { taskId };
  }

  /** Validates every row, then stores all of them in one transaction, or none and the reasons. */
  async function runImport(
    actor: Actor,
    companyId: string,
    taskId: string,
    fileName: string,
    sheet: Awaited<ReturnType<typeof readImportSheet>>,
  ) {
    try {
      const accounts = await prepareRows(companyId, sheet);
      await db.transaction().execute(async (trx) => {
        // Row problems first: they tell the person what to fix in the file.
        await assertIdentifiersFree(trx, accounts);
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
          after: { taskId, fileName, count: accounts.length },
          ip: actor.ip,
        });
        if (!(await repo.finishTask(trx, taskId, { status: 'success', created: accounts.length })))
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
        log.error({ err: error, taskId }, 'user import stopped');
      await repo.finishTask(db, taskId, { status: 'failed', errors: capErrors(errors) });
    }
  }

  const uniqueReason = (error: unknown): ErrorReason => {
    const constraint = (error as { constraint?: string }).constraint ?? '';
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

  /** Every row checked on its own and against the others; throws RowProblems listing them all. */
  async function prepareRows(companyId: string, sheet: Awaited<ReturnType<typeof readImportSheet>>) {
    const errors: StoredRowError[] = [];
    const departments = departmentIndex(await repo.findDepartments(db, companyId));
    const passwordPolicy = await passwordPolicyFor(db, companyId);
    const firstRowOf = {
      username: new Map<string, number>(),
      email: new Map<string, number>(),
      phone: new Map<string, number>(),
    };
    const cellOf = (cells: string[], column: ImportColumn) => {
      const index = sheet.columns[column];
      return index === undefined ? '' : (cells[index] ?? '');
    };
    const accounts: (repo.ImportedAccount & { row: number; password: string })[] = [];
    for (const { row, cells } of sheet.rows) {
      const parsed = rowSchema.safeParse({
        username: cellOf(cells, 'username'),
        name: cellOf(cells, 'name'),
        nickname: cellOf(cells, 'nickname'),
        email: cellOf(cells, 'email'),
        phone: cellOf(cells, 'phone'),
      });
      const before = errors.length;
      if (!parsed.success) {
        const seen = new Set<string>();
        for (const issue of parsed.error.issues) {
          const key = String(issue.path[0]);
          if (seen.has(key)) continue;
          seen.add(key);
          errors.push(issueToError(row, issue));
        }
      }
      const values = parsed.success ? parsed.data : undefined;
      // Duplicates inside the file, each against the first row that has the value.
      const duplicates: [keyof typeof firstRowOf, string | null | undefined][] = [
        ['username', values?.username.toLowerCase()],
        ['email', values?.email?.toLowerCase()],
        ['phone', values?.phone],
      ];
      for (const [column, value] of duplicates) {
        if (!value) continue;
        const first = firstRowOf[column].get(value);
        if (first === undefined) firstRowOf[column].set(value, row);
        else errors.push({ row, column, reason: 'import.duplicate_in_file', params: { row: first } });
      }
      const departmentIds: string[] = [];
      for (const named of splitDepartments(cellOf(cells, 'departments'))) {
        const id = departments.byId.has(named) ? named : departments.byPath.get(named.toLowerCase());
        if (id) {
          if (!departmentIds.includes(id)) departmentIds.push(id);
        } else
          errors.push({
            row,
            column: 'departments',
            reason: 'import.department_not_found',
            params: { department: named },
          });
      }
      const password = cellOf(cells, 'password');
      if (password) {
        const problem = checkPassword(password, { username: values?.username }, passwordPolicy);
        if (problem) {
          const { reason, ...rest } = problem;
          errors.push({
            row,
            column: 'password',
            reason,
            ...('classes' in rest ? { classes: rest.classes } : { params: rest as Record<string, number> }),
          });
        }
      }
      if (values && errors.length === before)
        accounts.push({
          id: newId(),
          row,
          username: values.username,
          name: values.name,
          nickname: values.nickname,
          email: values.email ?? null,
          phone: values.phone ?? null,
          password,
          passwordHash: '!',
          departmentIds,
        });
    }
    if (errors.length) throw new RowProblems(errors);
    // argon2 is slow on purpose (~30 ms of a core each): hash on every core, not more at once.
    const withPassword = accounts.filter((account) => account.password);
    await mapBounded(withPassword, Math.max(1, availableParallelism()), async (account) => {
      account.passwordHash = await hashPassword(account.password);
      account.password = '';
    });
    return accounts;
  }

  /** Identifiers other accounts have already, as row problems (checked under the user-quantity lock). */
  async function assertIdentifiersFree(trx: Db, accounts: (repo.ImportedAccount & { row: number })[]) {
    const taken = await repo.findTakenIdentifiers(trx, {
      usernames: accounts.map((a) => a.username.toLowerCase()),
      emails: accounts.flatMap((a) => (a.email ? [a.email.toLowerCase()] : [])),
      phones: accounts.flatMap((a) => (a.phone ? [a.phone] : [])),
    });
    const errors: StoredRowError[] = [];
    for (const account of accounts) {
      if (taken.usernames.has(account.username.toLowerCase()))
        errors.push({ row: account.row, column: 'username', reason: 'user.username_taken' });
      if (account.email && taken.emails.has(account.email.toLowerCase()))
        errors.push({ row: account.row, column: 'email', reason: 'user.email_taken' });
      if (account.phone && taken.phones.has(account.phone))
        errors.push({ row: account.row, column: 'phone', reason: 'user.phone_taken' });
    }
    if (errors.length) throw new RowProblems(errors);
  }

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
    return {
      taskId: row.id,
      status: row.status,
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

  const statusText: Record<Language, Record<UserStatus, string>> = {
    en: { enabled: 'Enabled', disabled: 'Disabled', locked: 'Locked' },
    zh: { enabled: '启用', disabled: '禁用', locked: '锁定' },
  };
  const roleText: Record<Language, Record<MemberRole, string>> = {
    en: {
      owner: 'Owner',
      admin: 'Administrator',
      external_admin: 'External administrator',
      delegated_admin: 'Administrator with a console role',
      member: 'Member',
    },
    zh: {
      owner: '所有者',
      admin: '管理员',
      external_admin: '外部管理员',
      delegated_admin: '控制台角色管理员',
      member: '成员',
    },
  };
  const yesNo: Record<Language, [string, string]> = { en: ['Yes', 'No'], zh: ['是', '否'] };

  /**
   * The company's users that match the user list's filter, as .xlsx, newest first. Read in pages
   * inside one repeatable-read transaction, so a user created meanwhile cannot shift a page.
   */
  async function exportUsers(
    companyId: string,
    filter: { keyword?: string; status?: UserStatus; departmentId?: string; includeSubDepartments: boolean },
    lang: Language,
  ) {
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        let departmentIds: string[] | undefined;
        if (filter.departmentId) {
          if (filter.includeSubDepartments)
            departmentIds = await subtreeIds(trx, companyId, filter.departmentId);
          else {
            await assertDepartmentsInCompany(trx, companyId, [filter.departmentId]);
            departmentIds = [filter.departmentId];
          }
        }
        const departments = departmentIndex(await repo.findDepartments(trx, companyId));
        async function* rows(): AsyncGenerator<Record<ExportColumn, string>> {
          for (let page = 1; ; page++) {
            const { rows: users } = await findUsers(trx, companyId, {
              keyword: filter.keyword,
              status: filter.status,
              departmentIds,
              sortBy: 'createdAt',
              sortOrder: 'desc',
              page,
              pageSize: EXPORT_PAGE,
            });
            const refs = await findDepartmentRefs(
              trx,
              companyId,
              users.map((u) => u.id),
            );
            for (const u of users)
              yield {
                username: u.username,
                name: u.display_name ?? '',
                nickname: u.nickname ?? '',
                email: u.email ?? '',
                phone: u.phone ?? '',
                departments: (refs.get(u.id) ?? [])
                  .map((d) => departments.pathOf(d.departmentId) ?? d.name)
                  .sort()
                  .join('; '),
                status: statusText[lang][u.status],
                role: roleText[lang][u.role] ?? u.role,
                managed: yesNo[lang][u.home_company_id === companyId ? 0 : 1],
                loginCount: String(u.login_count),
                lastLoginAt: u.last_login_at?.toISOString() ?? '',
                createdAt: u.created_at.toISOString(),
              };
            if (users.length < EXPORT_PAGE) return;
          }
        }
        const bytes = await writeExport(lang, lang === 'zh' ? '用户' : 'Users', rows());
        const date = new Date().toISOString().slice(0, 10);
        return {
          filename: lang === 'zh' ? `用户-${date}.xlsx` : `users-${date}.xlsx`,
          contentType: userCalls.exportUsers.download?.contentType as string,
          bytes,
        };
      });
  }

  const interrupted: StoredRowError[] = [{ row: 0, column: null, reason: 'import.interrupted' }];

  /** Start-up: tasks left importing by a stopped process will never finish. */
  async function failInterruptedTasks() {
    return repo.failImportingTasks(db, interrupted);
  }

  /** Shutdown: waits a while for running imports, then marks the rest interrupted (their transaction then rolls back). */
  async function close() {
    closing = true;
    if (!running.size) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(running.values()),
      new Promise((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (running.size) {
      const ids = [...running.keys()];
      log.warn({ taskIds: ids }, 'stopping with imports under way: marked interrupted');
      await repo.failImportingTasks(db, interrupted, ids).catch(() => undefined);
    }
  }

  return { start, task, template, exportUsers, failInterruptedTasks, close };
}

export type UserImportService = ReturnType<typeof createUserImportService>;
