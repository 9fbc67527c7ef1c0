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

/** Records a task waiting in the queue (its file is kept by the import file store, its job by the jobs module). */
export async function insertTask(
  db: Db,
  companyId: string,
  task: { id: string; createdBy: string; createdIp: string; fileName: string | null },
) {
  await db
    .insertInto('import_tasks')
    .values({
      id: task.id,
      company_id: companyId,
      created_by: task.createdBy,
      created_ip: task.createdIp,
      status: 'importing',
      file_name: task.fileName,
    })
    .execute();
}

/** Imports waiting or running for the company, or started by the person (in any company). */
export async function countOpenTasks(db: Db, companyId: string, accountId: string) {
  const row = await db
    .selectFrom('import_tasks')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('status', '=', 'importing')
    .where((eb) => eb.or([eb('company_id', '=', companyId), eb('created_by', '=', accountId)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const findTask = (db: Db, companyId: string, taskId: string) =>
  db
    .selectFrom('import_tasks')
    .select([
      'id',
      'status',
      'file_name',
      'total',
      'created',
      'errors',
      'created_at',
      'started_at',
      'finished_at',
    ])
    .where('company_id', '=', companyId)
    .where('id', '=', taskId)
    .executeTakeFirst();

/** Where a waiting task stands among its company's unfinished imports (1: next). */
export async function queuePosition(db: Db, companyId: string, task: { id: string; created_at: Date }) {
  const row = await db
    .selectFrom('import_tasks')
    .select((eb) => eb.fn.countAll().as('ahead'))
    .where('company_id', '=', companyId)
    .where('status', '=', 'importing')
    .where((eb) =>
      eb.or([
        eb('created_at', '<', task.created_at),
        eb.and([eb('created_at', '=', task.created_at), eb('id', '<', task.id)]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.ahead) + 1;
}

export interface StartedTask {
  id: string;
  companyId: string;
  createdBy: string | null;
  createdIp: string | null;
  fileName: string | null;
}

/** The task's turn has come (its job runs): answers it, or undefined when it has ended meanwhile. */
export async function startTask(db: Db, taskId: string): Promise<StartedTask | undefined> {
  const task = await db
    .updateTable('import_tasks')
    .set({ started_at: sql`now()` })
    .where('id', '=', taskId)
    .where('status', '=', 'importing')
    .returning(['id', 'company_id', 'created_by', 'created_ip', 'file_name'])
    .executeTakeFirst();
  return (
    task && {
      id: task.id,
      companyId: task.company_id,
      createdBy: task.created_by,
      createdIp: task.created_ip,
      fileName: task.file_name,
    }
  );
}

/**
 * Fails the tasks still importing that no queued or running job of `kind` will run (their
 * process stopped before jobs ran imports, or the job was removed), and lets go of files kept in
 * the database for tasks that have ended.
 */
export async function failTasksWithoutJob(db: Db, errors: StoredRowError[], kind: string) {
  await sql`
    update import_tasks t set status = 'failed', errors = ${JSON.stringify(errors)}::jsonb, finished_at = now()
    where t.status = 'importing' and not exists (
      select 1 from jobs j
      where j.kind = ${kind} and j.status in ('queued', 'running') and j.payload ->> 'taskId' = t.id)`.execute(
    db,
  );
  await sql`delete from import_task_files f using import_tasks t
    where f.task_id = t.id and t.status <> 'importing'`.execute(db);
}

export async function setTaskTotal(db: Db, taskId: string, total: number) {
  await db.updateTable('import_tasks').set({ total }).where('id', '=', taskId).execute();
}

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

export const findDepartments = (db: Db, companyId: string) =>
  db
    .selectFrom('departments')
    .select(['id', 'parent_id', 'name'])
    .where('company_id', '=', companyId)
    .execute();

/** An identifier some account has already, and whether that account is outside the company. */
export interface TakenIdentifier {
  column: 'username' | 'email' | 'phone';
  /** Usernames and emails in lower case, as the unique indexes compare them. */
  value: string;
  elsewhere: boolean;
  /** The username is an account's email, or the email an account's username (people sign in with either). */
  crossed: boolean;
}

/**
 * Which of the given usernames, emails and phones accounts already have, and whether each such
 * account is outside the company (not one of its people). Answered from the unique indexes.
 */
export async function findTakenIdentifiers(
  db: Db,
  companyId: string,
  values: { usernames: string[]; emails: string[]; phones: string[] },
): Promise<TakenIdentifier[]> {
  const elsewhere = sql<boolean>`not exists (select 1 from company_members m
    where m.account_id = a.id and m.company_id = ${companyId})`;
  const { rows } = await sql<TakenIdentifier>`
    select 'username' as "column", lower(a.username) as value, ${elsewhere} as elsewhere, false as crossed
      from accounts a where lower(a.username) = any(${values.usernames}::text[])
    union all
    select 'email', lower(a.email), ${elsewhere}, false
      from accounts a where lower(a.email) = any(${values.emails}::text[])
    union all
    select 'phone', a.phone, ${elsewhere}, false
      from accounts a where a.phone = any(${values.phones}::text[])
    union all
    select 'username', lower(a.email), ${elsewhere}, true
      from accounts a where lower(a.email) = any(${values.usernames.filter((u) => u.includes('@'))}::text[])
    union all
    select 'email', lower(a.username), ${elsewhere}, true
      from accounts a where lower(a.username) = any(${values.emails}::text[])`.execute(db);
  return rows;
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
