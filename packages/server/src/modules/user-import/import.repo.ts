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

/** Records a task waiting in the queue (its file is kept by the import file store). */
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

/** Arbitrary constant that names the import queue among advisory locks. */
const QUEUE_LOCK = 7_316_420_962;

export interface ClaimedTask {
  id: string;
  companyId: string;
  createdBy: string | null;
  createdIp: string | null;
  fileName: string | null;
}

const interruptedErrors = JSON.stringify([{ row: 0, column: null, reason: 'import.interrupted' }]);

/**
 * Takes the oldest waiting task that may start: fewer than `concurrency` imports are running on
 * the platform and none of its company. Claims are made one at a time (an advisory lock held to
 * the end of the transaction), so two instances cannot both start an import of one company or
 * pass the limit together; rows locked by a finishing import are skipped. Running tasks whose
 * instance stopped sending heartbeats are failed first (their process is gone).
 */
export async function claimNextTask(
  db: Db,
  claim: { instanceId: string; concurrency: number; leaseSeconds: number },
): Promise<ClaimedTask | undefined> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${QUEUE_LOCK})`.execute(trx);
    await failAbandonedTasks(trx, claim.leaseSeconds);
    const picked = await sql<{ id: string }>`
      select t.id from import_tasks t
      where t.status = 'importing' and t.started_at is null
        and (select count(*) from import_tasks r where r.status = 'importing' and r.started_at is not null)
          < ${claim.concurrency}
        and not exists (
          select 1 from import_tasks r
          where r.company_id = t.company_id and r.status = 'importing' and r.started_at is not null)
      order by t.created_at, t.id
      limit 1
      for update skip locked`.execute(trx);
    const id = picked.rows[0]?.id;
    if (id === undefined) return undefined;
    const task = await trx
      .updateTable('import_tasks')
      .set({ started_at: sql`now()`, heartbeat_at: sql`now()`, claimed_by: claim.instanceId })
      .where('id', '=', id)
      .returning(['id', 'company_id', 'created_by', 'created_ip', 'file_name'])
      .executeTakeFirstOrThrow();
    return {
      id: task.id,
      companyId: task.company_id,
      createdBy: task.created_by,
      createdIp: task.created_ip,
      fileName: task.file_name,
    };
  });
}

/**
 * Running tasks without a heartbeat for `leaseSeconds`: their instance stopped; nothing of theirs
 * was stored. Also lets go of files kept in the database for tasks that have ended.
 */
export async function failAbandonedTasks(db: Db, leaseSeconds: number) {
  const result = await sql`
    update import_tasks set status = 'failed', errors = ${interruptedErrors}::jsonb, finished_at = now()
    where id in (
      select id from import_tasks
      where status = 'importing' and started_at is not null
        and heartbeat_at < now() - make_interval(secs => ${leaseSeconds})
      for update skip locked
    )`.execute(db);
  await sql`delete from import_task_files f using import_tasks t
    where f.task_id = t.id and t.status <> 'importing'`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** The running tasks of an instance are still under way. */
export async function renewClaims(db: Db, instanceId: string, taskIds: readonly string[]) {
  if (!taskIds.length) return;
  await db
    .updateTable('import_tasks')
    .set({ heartbeat_at: sql`now()` })
    .where('claimed_by', '=', instanceId)
    .where('status', '=', 'importing')
    .where('id', 'in', [...taskIds])
    .execute();
}

/** Whether any task waits or runs (the queue's cheap first look). */
export const anyOpenTask = async (db: Db) =>
  (await db
    .selectFrom('import_tasks')
    .select('id')
    .where('status', '=', 'importing')
    .limit(1)
    .executeTakeFirst()) !== undefined;

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

/** Marks the given importing tasks as failed (interrupted by a shutdown). */
export async function failImportingTasks(db: Db, errors: StoredRowError[], taskIds: readonly string[]) {
  if (taskIds.length === 0) return 0;
  const result = await sql`
    update import_tasks set status = 'failed', errors = ${JSON.stringify(errors)}::jsonb, finished_at = now()
    where id in (
      select id from import_tasks where status = 'importing' and id in (${sql.join([...taskIds])})
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
