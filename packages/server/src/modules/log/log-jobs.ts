import { failureSpikeThresholds, logLimits } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import type { JobContext } from '../jobs/jobs.ts';

const PURGE_BATCH = 5_000;

/** Deletes rows of one company (or of none) older than its cutoff, in batches, keeping the lease. */
async function purgeTable(
  db: Db,
  table: 'login_events' | 'audit_events' | 'log_alerts' | 'syslog_outbox',
  companyId: string | null,
  cutoff: Date,
  context: JobContext,
): Promise<number> {
  const key = table === 'syslog_outbox' ? sql.ref('seq') : sql.ref('id');
  const company = companyId === null ? sql`company_id is null` : sql`company_id = ${companyId}`;
  let purged = 0;
  for (;;) {
    const result = await sql`delete from ${sql.table(table)} where ${key} in (
      select ${key} from ${sql.table(table)} where ${company} and created_at < ${cutoff} limit ${PURGE_BATCH})`.execute(
      db,
    );
    const count = Number(result.numAffectedRows ?? 0);
    purged += count;
    if (count < PURGE_BATCH) return purged;
    await context.heartbeat();
  }
}

/**
 * Deletes a company's sign-in counts (migration 21) whose events are gone: quarters that ended by
 * the cutoff, and people whose latest successful sign-in is older than it. A quarter the cutoff
 * falls in stays until the next run.
 */
async function purgeCounts(db: Db, companyId: string, cutoff: Date, context: JobContext): Promise<number> {
  const quarterEnded = sql`bucket <= ${cutoff}::timestamptz - interval '15 minutes'`;
  const batches = [
    { table: 'sign_in_counts', expired: quarterEnded },
    { table: 'sign_in_place_counts', expired: quarterEnded },
    { table: 'sign_in_people', expired: sql`last_success_at < ${cutoff}` },
  ];
  let purged = 0;
  for (const { table, expired } of batches) {
    for (;;) {
      const result = await sql`delete from ${sql.table(table)} where ctid = any(array(
        select ctid from ${sql.table(table)} where company_id = ${companyId} and ${expired} limit ${PURGE_BATCH}))`.execute(
        db,
      );
      const count = Number(result.numAffectedRows ?? 0);
      purged += count;
      if (count < PURGE_BATCH) break;
      await context.heartbeat();
    }
  }
  return purged;
}

/**
 * Retention (job `log.purge`, hourly): each company's sign-in and administration events, alerts,
 * undelivered syslog events and sign-in counts older than its retention (default
 * logLimits.retentionDays) are deleted; events of no company (the platform's) keep the default.
 */
export async function purgeExpiredLogs(db: Db, context: JobContext, now = new Date()): Promise<number> {
  const companies = await db
    .selectFrom('companies as c')
    .leftJoin('company_log_settings as s', 's.company_id', 'c.id')
    .select(['c.id', 's.retention_days'])
    .execute();
  const cutoffOf = (days: number | null) =>
    new Date(now.getTime() - (days ?? logLimits.retentionDays.default) * 86_400_000);
  let purged = 0;
  for (const company of [...companies, { id: null, retention_days: null }]) {
    const cutoff = cutoffOf(company.retention_days);
    for (const table of ['login_events', 'audit_events', 'log_alerts', 'syslog_outbox'] as const) {
      if (company.id === null && (table === 'log_alerts' || table === 'syslog_outbox')) continue;
      purged += await purgeTable(db, table, company.id, cutoff, context);
    }
    if (company.id !== null) purged += await purgeCounts(db, company.id, cutoff, context);
  }
  return purged;
}

/**
 * Failure spikes (job `log.alerts`, every minute): failures of one cause within the window that
 * reach the threshold for one account (50) or for a whole company (500) raise an alert, once per
 * window. The alert is on the dashboard and, through the outbox trigger, sent to syslog.
 */
export async function raiseFailureAlerts(db: Db): Promise<number> {
  const { account, company, windowMinutes } = failureSpikeThresholds;
  const since = sql<Date>`now() - ${`${windowMinutes} minutes`}::interval`;
  const spikes = await sql<{
    company_id: string;
    account_id: string | null;
    identifier: string | null;
    cause: string;
    count: string;
    threshold: number;
  }>`
    select company_id, account_id, max(identifier) as identifier, failure_cause as cause, count(*) as count,
           ${account}::int as threshold
      from login_events
     where result = 'failure' and created_at >= ${since} and company_id is not null
       and account_id is not null and failure_cause is not null
     group by company_id, account_id, failure_cause having count(*) >= ${account}
    union all
    select company_id, null, null, failure_cause, count(*), ${company}::int
      from login_events
     where result = 'failure' and created_at >= ${since} and company_id is not null and failure_cause is not null
     group by company_id, failure_cause having count(*) >= ${company}`.execute(db);
  let raised = 0;
  for (const spike of spikes.rows) {
    const recent = await db
      .selectFrom('log_alerts')
      .select('id')
      .where('company_id', '=', spike.company_id)
      .where('cause', '=', spike.cause)
      .where((eb) =>
        spike.account_id === null ? eb('account_id', 'is', null) : eb('account_id', '=', spike.account_id),
      )
      .where('created_at', '>=', since)
      .executeTakeFirst();
    if (recent) continue;
    await db
      .insertInto('log_alerts')
      .values({
        id: newId(),
        company_id: spike.company_id,
        cause: spike.cause,
        account_id: spike.account_id,
        identifier: spike.identifier,
        count: Number(spike.count),
        threshold: spike.threshold,
        window_minutes: windowMinutes,
      })
      .execute();
    raised++;
  }
  return raised;
}
