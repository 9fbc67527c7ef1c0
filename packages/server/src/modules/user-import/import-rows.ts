import { availableParallelism } from 'node:os';
import {
  company as companyCalls,
  isErrorReason,
  type ServerPhrases,
  user as userCalls,
  userLimits,
} from '@tessera/contract';
import { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import { hashPassword } from '../account/password.ts';
import { checkPassword, passwordPolicyFor } from '../account/password-policy.ts';
import { spendIdentifierChecks } from '../user/identifier-checks.ts';
import { type ImportColumn, importColumns } from './columns.ts';
import type { StoredRowError } from './import.repo.ts';
import * as repo from './import.repo.ts';
import type { ImportSheet } from './sheet-reader.ts';

/**
 * The rows of an import, checked as user/create checks one person, against each other and
 * against the accounts of the platform; the departments of the company by path.
 */

/** Rows checked between two turns of the event loop. */
const YIELD_EVERY_ROWS = 1_000;

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

export type ValidationKey = keyof ServerPhrases['validation'];

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
export function departmentIndex(rows: { id: string; parent_id: string | null; name: string }[]) {
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

export class RowProblems extends Error {
  constructor(readonly errors: StoredRowError[]) {
    super('rows refused');
  }
}

/** The identifiers a row names that are well formed, looked up even when the row has other errors. */
export interface RowIdentifiers {
  row: number;
  username?: string;
  email?: string;
  phone?: string;
}

const wellFormed = <T>(schema: z.ZodType<T>, value: string): T | undefined => {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};

/**
 * Every row checked on its own and against the others: the accounts of the rows without
 * problems, every problem of every row, and the well-formed identifiers of all rows (to be looked
 * up against existing accounts, so that a taken username is told beside the row's other errors).
 * Without mail, a row without a password is refused: nobody could send that person a link.
 */
export async function checkRows(
  db: Db,
  companyId: string,
  sheet: ImportSheet,
  options: { mailEnabled: boolean },
) {
  const errors: StoredRowError[] = [];
  const identifiers: RowIdentifiers[] = [];
  const departments = departmentIndex(await repo.findDepartments(db, companyId));
  const passwordPolicy = await passwordPolicyFor(db, companyId);
  // A username and an email are both names people sign in with: the same in two rows is a
  // duplicate whichever column holds it (a row's own username may be its email).
  const signInNames = new Map<string, number>();
  const firstRowOf = { username: signInNames, email: signInNames, phone: new Map<string, number>() };
  const cellOf = (cells: string[], column: ImportColumn) => cells[importColumns.indexOf(column)] ?? '';
  const accounts: PreparedAccount[] = [];
  let withoutPassword = 0;
  for (const [index, { row, cells }] of sheet.rows.entries()) {
    // Tens of thousands of rows: let other requests in now and then.
    if (index % YIELD_EVERY_ROWS === YIELD_EVERY_ROWS - 1)
      await new Promise((resolve) => setImmediate(resolve));
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
    const named: RowIdentifiers = {
      row,
      username: wellFormed(companyCalls.username, cellOf(cells, 'username'))?.toLowerCase(),
      email: wellFormed(userCalls.email, cellOf(cells, 'email'))?.toLowerCase(),
      phone: wellFormed(userCalls.phone, cellOf(cells, 'phone')) ?? undefined,
    };
    identifiers.push(named);
    // Duplicates inside the file, each against the first row that has the value.
    for (const column of ['username', 'email', 'phone'] as const) {
      const value = named[column];
      if (!value) continue;
      const first = firstRowOf[column].get(value);
      if (first === undefined) firstRowOf[column].set(value, row);
      else if (first !== row)
        errors.push({ row, column, reason: 'import.duplicate_in_file', params: { row: first } });
    }
    const departmentIds: string[] = [];
    for (const name of splitDepartments(cellOf(cells, 'departments'))) {
      const id = departments.byId.has(name) ? name : departments.byPath.get(name.toLowerCase());
      if (id) {
        if (!departmentIds.includes(id)) departmentIds.push(id);
      } else
        errors.push({
          row,
          column: 'departments',
          reason: 'import.department_not_found',
          params: { department: name },
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
    } else if (!options.mailEnabled) {
      withoutPassword++;
      errors.push({ row, column: 'password', reason: 'import.password_without_mail' });
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
  if (withoutPassword)
    errors.unshift({
      row: 0,
      column: null,
      reason: 'import.passwords_or_mail',
      params: { count: withoutPassword },
    });
  return { accounts, errors, identifiers };
}

export type PreparedAccount = repo.ImportedAccount & { row: number; password: string };

/** Hashes the passwords of the accounts that have one (argon2 is slow on purpose: ~30 ms of a core each). */
export async function hashPasswords(accounts: PreparedAccount[]) {
  const withPassword = accounts.filter((account) => account.password);
  await mapBounded(withPassword, Math.max(1, availableParallelism()), async (account) => {
    account.passwordHash = await hashPassword(account.password);
    account.password = '';
  });
}

/** The problems of both checks in the order of the rows (file-wide ones first), each row's by column. */
export function byRow(errors: StoredRowError[]) {
  const columnOrder = (error: StoredRowError) => importColumns.indexOf(error.column as ImportColumn) + 1;
  return errors
    .map((error, index) => ({ error, index }))
    .sort(
      (a, b) => a.error.row - b.error.row || columnOrder(a.error) - columnOrder(b.error) || a.index - b.index,
    )
    .map(({ error }) => error);
}

/**
 * The problems of identifiers other accounts have already. Those of the company's own people are
 * listed by row (the company sees them anyway); those of accounts outside the company are told
 * only as a count, never which rows, and that answer spends as many of the company's identifier
 * checks (audited; refused once they are spent: identifier-checks.ts).
 */
export async function takenIdentifierProblems(
  db: Db,
  companyId: string,
  actor: { accountId: string | null; ip: string | null },
  task: { id: string; fileName: string | null },
  rows: RowIdentifiers[],
): Promise<StoredRowError[]> {
  const taken = await repo.findTakenIdentifiers(db, companyId, {
    usernames: rows.flatMap((r) => (r.username ? [r.username] : [])),
    emails: rows.flatMap((r) => (r.email ? [r.email] : [])),
    phones: rows.flatMap((r) => (r.phone ? [r.phone] : [])),
  });
  if (!taken.length) return [];
  const own = new Map(taken.filter((t) => !t.elsewhere).map((t) => [`${t.column}:${t.value}`, t.crossed]));
  const elsewhere = new Set(taken.filter((t) => t.elsewhere).map((t) => `${t.column}:${t.value}`));
  const errors: StoredRowError[] = [];
  for (const named of rows) {
    const values = [
      ['username', named.username, 'user.username_taken'],
      ['email', named.email, 'user.email_taken'],
      ['phone', named.phone, 'user.phone_taken'],
    ] as const;
    for (const [column, value, reason] of values) {
      const crossed = value ? own.get(`${column}:${value}`) : undefined;
      if (crossed === undefined) continue;
      const crossedReason = column === 'username' ? 'user.username_is_email' : 'user.email_is_username';
      errors.push({ row: named.row, column, reason: crossed ? crossedReason : reason });
    }
  }
  if (elsewhere.size) {
    await spendIdentifierChecks(
      db,
      companyId,
      actor,
      { taskId: task.id, fileName: task.fileName, count: elsewhere.size },
      elsewhere.size,
    );
    errors.unshift({
      row: 0,
      column: null,
      reason: 'import.taken_elsewhere',
      params: { count: elsewhere.size },
    });
  }
  return errors;
}
