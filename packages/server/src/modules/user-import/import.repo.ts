import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/**
 * SQL of user import: the import tasks, the company's departments by path, identifiers already
 * taken on the platform, and the bulk inserts. Every function takes the handle to run on (the
 * `trx` inside a transaction) and, for tenant data, the company first.
 */

/** A problem of one row (row 0: the file as a whole), stored unlocalised and phrased when read. */
export interface StoredRowError {
  row: number;
  /** The import column (see xlsx.ts importColumns), or null. */
  column: string | null;
  /** An error reason (phrase key), or a validation phrase key when `validation` is set. */
  reason: string;
  validation?: boolean;
  params?: Record<string, string | number>;
  /** Missing password character classes, phrased in the reader's language. */
  classes?: string[];
}

export async function insertTask(
  db: Db,
  companyId: string,
  task: { id: string; createdBy: string; fileName: string | null; total: number },
) {
  await db
    .insertInto('import_tasks')
    .values({
      id: task.id,
      company_id: companyId,
      created_by: task.createdBy,
      status: 'importing',
      file_name: task.fileName,
      total: task.total,
    })
    .execute();
}

export const findTask = (db: Db, companyId: string, taskId: string) =>
  db
    .selectFrom('import_tasks')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', taskId)
    .executeTakeFirst();

/**
 * Marks a task that is still importing as done. Returns false when it is no longer importing
 * (marked interrupted meanwhile): inside the import's transaction that means "roll back".
 */
export async function finishTask(
  db: Db,
  taskId: string,
  outcome: { status: 'success'; created: number } | { status: 'failed'; errors: StoredRowError[] },
): Promise<boolean> {
  const result = await db
    .updateTable('import_tasks')
    .set({
      status: outcome.status,
      created: outcome.status === 'success' ? outcome.created : 0,
      errors: outcome.status === 'failed' ? JSON.stringify(outcome.errors) : null,
      finished_at: new Date(),
    })
    .where('id', '=', taskId)
    .where('status', '=', 'importing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Marks importing tasks as failed (interrupted). Without ids: every importing task whose row is
 * not locked by a running import's transaction (start-up of the only instance).
 */
export async function failImportingTasks(db: Db, errors: StoredRowError[], taskIds?: readonly string[]) {
  if (taskIds && taskIds.length === 0) return 0;
  const result = await sql`
    update import_tasks set status = 'failed', errors = ${JSON.stringify(errors)}::jsonb, finished_at = now()
    where id in (
      select id from import_tasks where status = 'importing'
      ${taskIds ? sql`and id in (${sql.join([...taskIds])})` : sql``}
      for update skip locked
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export const findDepartments = (db: Db, companyId: string) =>
  db
    .selectFrom('departments')
    .select(['id', 'parent_id', 'name'])
    .where('company_id', '=', companyId)
    .execute();

/**
 * Which of the given usernames, emails and phones accounts already have (usernames and emails
 * compared in lower case, as the unique indexes do). Answered from those indexes.
 */
export async function findTakenIdentifiers(
  db: Db,
  values: { usernames: string[]; emails: string[]; phones: string[] },
): Promise<{ usernames: Set<string>; emails: Set<string>; phones: Set<string> }> {
  const taken = { usernames: new Set<string>(), emails: new Set<string>(), phones: new Set<string>() };
  if (values.usernames.length) {
    const rows = await sql<{ v: string }>`
      select lower(username) as v from accounts where lower(username) = any(${values.usernames}::text[])`.execute(
      db,
    );
    for (const row of rows.rows) taken.usernames.add(row.v);
  }
  if (values.emails.length) {
    const rows = await sql<{ v: string }>`
      select lower(email) as v from accounts where lower(email) = any(${values.emails}::text[])`.execute(db);
    for (const row of rows.rows) taken.emails.add(row.v);
  }
  if (values.phones.length) {
    const rows = await sql<{ v: string }>`
      select phone as v from accounts where phone = any(${values.phones}::text[])`.execute(db);
    for (const row of rows.rows) taken.phones.add(row.v);
  }
  return taken;
}

export interface ImportedAccount {
  id: string;
  username: string;
  name: string | null;
  nickname: string | null;
  email: string | null;
  phone: string | null;
  passwordHash: string;
  departmentIds: string[];
}

/** Rows per multi-row INSERT: 1 000 accounts are 10 000 parameters, well under PostgreSQL's 65 535. */
const CHUNK = 1_000;

/**
 * Inserts accounts the company manages (must change password), their user records (member,
 * enabled) and department memberships, a chunk of rows per statement. The caller holds the
 * user-quantity lock and has checked everything: the unique indexes are the last word.
 */
export async function insertImportedAccounts(
  trx: Db,
  companyId: string,
  accounts: readonly ImportedAccount[],
) {
  const now = new Date();
  for (let start = 0; start < accounts.length; start += CHUNK) {
    const chunk = accounts.slice(start, start + CHUNK);
    await trx
      .insertInto('accounts')
      .values(
        chunk.map((account) => ({
          id: account.id,
          username: account.username,
          display_name: account.name,
          nickname: account.nickname,
          email: account.email,
          phone: account.phone,
          password_hash: account.passwordHash,
          status: 'enabled' as const,
          must_change_password: true,
          home_company_id: companyId,
          created_at: now,
        })),
      )
      .execute();
    await trx
      .insertInto('company_members')
      .values(
        chunk.map((account) => ({
          company_id: companyId,
          account_id: account.id,
          role: 'member' as const,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    const memberships = chunk.flatMap((account) =>
      account.departmentIds.map((departmentId) => ({
        department_id: departmentId,
        company_id: companyId,
        account_id: account.id,
      })),
    );
    for (let at = 0; at < memberships.length; at += CHUNK * 2)
      await trx
        .insertInto('department_members')
        .values(memberships.slice(at, at + CHUNK * 2))
        .execute();
  }
}
