import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type {
  ProvisionedPerson,
  ProvisioningRunRow,
  ProvisioningStoredError,
  ProvisioningTarget,
} from '../../db/schema-provisioning.ts';
import { newId } from '../../lib/ids.ts';
import type { ProvisionedPersonData } from './scim-user.ts';

/** SQL of outbound provisioning (migration 33): targets, who was sent where, runs. */

export type RunView = ProvisioningRunRow & { requested_by_username: string | null };

/** Runs kept per application (older ones are pruned after each run). */
const RUNS_KEPT = 50;

export const findTarget = (
  db: Db,
  companyId: string,
  appId: string,
): Promise<ProvisioningTarget | undefined> =>
  db
    .selectFrom('app_provisioning_targets')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('app_id', '=', appId)
    .executeTakeFirst();

export async function saveTarget(
  db: Db,
  target: Omit<ProvisioningTarget, 'updated_at' | 'attributes' | 'changed_at'> & { attributes: string[] },
) {
  const values = { ...target, attributes: JSON.stringify(target.attributes), updated_at: sql<Date>`now()` };
  const { app_id: _a, company_id: _c, ...changes } = values;
  return db
    .insertInto('app_provisioning_targets')
    .values(values)
    .onConflict((oc) => oc.column('app_id').doUpdateSet(changes))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteTarget(db: Db, companyId: string, appId: string) {
  await db
    .deleteFrom('app_provisioning_targets')
    .where('company_id', '=', companyId)
    .where('app_id', '=', appId)
    .execute();
  await forgetPeople(db, appId);
}

/** Forgets who was sent (another service now: its remote ids mean nothing). */
export const forgetPeople = (db: Db, appId: string) =>
  db.deleteFrom('app_provisioned_people').where('app_id', '=', appId).execute();

/** The targets marked changed (by the migration's triggers), unmarked at once: each gets one run. */
export const takeChangedTargets = (db: Db) =>
  db
    .updateTable('app_provisioning_targets')
    .set({ changed_at: null })
    .where('changed_at', 'is not', null)
    .where('enabled', '=', true)
    .returning(['app_id', 'company_id'])
    .execute();

/**
 * The enabled targets of applications where an assignment (of a person, a department or a
 * role) expired since the application's last run began (or was queued): nothing is written when
 * an assignment merely expires, so the changes job asks this every minute, and the next run
 * deactivates the people who lost access. A run queued or started after the expiry has seen it.
 */
export async function findTargetsWithLapsedAssignments(db: Db) {
  const lapsed = (table: string) => sql`exists (select 1 from ${sql.table(table)} x
    where x.app_id = t.app_id and x.expires_at <= now() and x.expires_at > seen.at)`;
  const { rows } = await sql<{ app_id: string; company_id: string }>`
    select t.app_id, t.company_id
    from app_provisioning_targets t
    cross join lateral (select coalesce(max(greatest(r.created_at, r.started_at)), '-infinity'::timestamptz) as at
      from app_provisioning_runs r where r.app_id = t.app_id) seen
    where t.enabled and (${lapsed('app_assignments')} or ${lapsed('app_department_assignments')}
      or ${lapsed('app_role_assignments')})`.execute(db);
  return rows;
}

export const findEnabledTargets = (db: Db) =>
  db
    .selectFrom('app_provisioning_targets')
    .select(['app_id', 'company_id'])
    .where('enabled', '=', true)
    .execute();

/** The company's people, with what a SCIM User is made of and whether their account is enabled. */
export async function findCompanyPeople(
  db: Db,
  companyId: string,
): Promise<(ProvisionedPersonData & { accountEnabled: boolean })[]> {
  const { rows } = await sql<{
    id: string;
    username: string;
    email: string | null;
    phone: string | null;
    name: string | null;
    status: string;
    department: string | null;
    employee_number: string | null;
  }>`
    select a.id, a.username, a.email, a.phone, coalesce(a.display_name, a.nickname) as name, a.status,
      (select d.name from department_members dm join departments d on d.id = dm.department_id
        where dm.account_id = a.id and dm.company_id = m.company_id and d.parent_id is not null
        order by d.name, d.id limit 1) as department,
      s.attributes #>> '{enterprise,employeeNumber}' as employee_number
    from company_members m join accounts a on a.id = m.account_id
      left join scim_users s on s.company_id = m.company_id and s.account_id = m.account_id
    where m.company_id = ${companyId}
    order by a.username, a.id`.execute(db);
  return rows.map((row) => ({
    accountId: row.id,
    username: row.username,
    email: row.email,
    phone: row.phone,
    name: row.name,
    department: row.department,
    employeeNumber: row.employee_number,
    accountEnabled: row.status === 'enabled',
  }));
}

export async function findProvisionedPeople(db: Db, appId: string): Promise<Map<string, ProvisionedPerson>> {
  const rows = await db
    .selectFrom('app_provisioned_people')
    .selectAll()
    .where('app_id', '=', appId)
    .execute();
  return new Map(rows.map((row) => [row.account_id, row]));
}

export async function saveProvisionedPerson(
  db: Db,
  person: Omit<ProvisionedPerson, 'updated_at' | 'sent'> & { sent: Record<string, unknown> },
) {
  const values = { ...person, sent: JSON.stringify(person.sent), updated_at: sql<Date>`now()` };
  const { app_id: _a, account_id: _p, ...changes } = values;
  await db
    .insertInto('app_provisioned_people')
    .values(values)
    .onConflict((oc) => oc.columns(['app_id', 'account_id']).doUpdateSet(changes))
    .execute();
}

export const deleteProvisionedPerson = (db: Db, appId: string, accountId: string) =>
  db
    .deleteFrom('app_provisioned_people')
    .where('app_id', '=', appId)
    .where('account_id', '=', accountId)
    .execute();

// ---- runs

const runs = (db: Db) =>
  db
    .selectFrom('app_provisioning_runs as r')
    .leftJoin('accounts as a', 'a.id', 'r.requested_by')
    .selectAll('r')
    .select('a.username as requested_by_username');

export async function insertRun(
  db: Db,
  run: {
    appId: string;
    companyId: string;
    trigger: ProvisioningRunRow['trigger'];
    requestedBy: string | null;
  },
) {
  const id = newId();
  await db
    .insertInto('app_provisioning_runs')
    .values({
      id,
      app_id: run.appId,
      company_id: run.companyId,
      trigger: run.trigger,
      requested_by: run.requestedBy,
    })
    .execute();
  return id;
}

export const findRun = (db: Db, companyId: string, runId: string) =>
  runs(db).where('r.company_id', '=', companyId).where('r.id', '=', runId).executeTakeFirst() as Promise<
    RunView | undefined
  >;

export const findRunById = (db: Db, runId: string) =>
  db.selectFrom('app_provisioning_runs').selectAll().where('id', '=', runId).executeTakeFirst();

/**
 * A run of the application not yet started (a second request answers it instead of queueing
 * another); with `orRunning`, one under way counts too (the hourly run is then not needed).
 */
export const findWaitingRun = (db: Db, appId: string, orRunning = false) =>
  db
    .selectFrom('app_provisioning_runs')
    .select('id')
    .where('app_id', '=', appId)
    .where('status', 'in', orRunning ? ['queued', 'retrying', 'running'] : ['queued', 'retrying'])
    .orderBy('created_at', 'desc')
    .executeTakeFirst();

export async function findRuns(db: Db, companyId: string, appId: string, page: number, pageSize: number) {
  const [rows, total] = await Promise.all([
    runs(db)
      .where('r.company_id', '=', companyId)
      .where('r.app_id', '=', appId)
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    db
      .selectFrom('app_provisioning_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .where('app_id', '=', appId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as RunView[], total: Number(total.n) };
}

/** Marks a try of the run begun; false when the run is over (nothing to do). */
export async function startRun(db: Db, runId: string): Promise<boolean> {
  const result = await db
    .updateTable('app_provisioning_runs')
    .set((eb) => ({
      status: 'running',
      attempts: eb('attempts', '+', 1),
      started_at: sql<Date>`coalesce(started_at, now())`,
    }))
    .where('id', '=', runId)
    .where('status', 'in', ['queued', 'retrying', 'running'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function recordRun(
  db: Db,
  runId: string,
  state: {
    status: ProvisioningRunRow['status'];
    counts: Record<string, number>;
    errors: ProvisioningStoredError[];
  },
) {
  const over = state.status === 'succeeded' || state.status === 'failed';
  await db
    .updateTable('app_provisioning_runs')
    .set({
      status: state.status,
      counts: JSON.stringify(state.counts),
      errors: JSON.stringify(state.errors),
      finished_at: over ? sql<Date>`now()` : null,
    })
    .where('id', '=', runId)
    .execute();
}

export async function pruneRuns(db: Db, appId: string) {
  await sql`
    delete from app_provisioning_runs where app_id = ${appId} and id not in (
      select id from app_provisioning_runs where app_id = ${appId} order by created_at desc, id desc limit ${RUNS_KEPT}
    )`.execute(db);
}
