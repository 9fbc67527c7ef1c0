import { hostname } from 'node:os';
import { serverPhrases } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import type { JobContext, Jobs } from '../jobs/jobs.ts';
import { signInColumns } from '../log/log.repo.ts';
import { facilities, formatRfc5424, severities } from './rfc5424.ts';
import { targetAddress } from './syslog-target.ts';
import { sendSyslog } from './syslog-transport.ts';

/**
 * Delivery of the syslog outbox. The job `syslog.dispatch` (every few seconds) starts one job
 * `syslog.deliver` per company with events waiting; its key (`syslog:<company>`) keeps it the only
 * one, so a company's events go out in order. It sends batches oldest first and deletes each
 * batch from the outbox only once the receiver has taken it (see syslog-transport.ts): at least
 * once. A failure is recorded on the company's settings (the status shows it) and the job is
 * retried with back-off; the events wait in the outbox meanwhile.
 */
const BATCH = 200;
/** Batches one run sends before giving other jobs their turn (the dispatcher starts it again). */
const BATCHES_PER_RUN = 25;

export const DELIVER_JOB = 'syslog.deliver';
export const DISPATCH_JOB = 'syslog.dispatch';

type OutboxRow = { seq: string; kind: 'signin' | 'audit' | 'alert'; event_id: string; created_at: Date };

const en = serverPhrases.en;

/** The RFC 5424 messages of a batch, in outbox order (events purged meanwhile are skipped). */
async function messagesOf(db: Db, companyId: string, tag: string, host: string, rows: OutboxRow[]) {
  const ids = (kind: OutboxRow['kind']) => rows.filter((row) => row.kind === kind).map((row) => row.event_id);
  const [signIns, audits, alerts] = await Promise.all([
    ids('signin').length
      ? db
          .selectFrom('login_events as e')
          .leftJoin('accounts as a', 'a.id', 'e.account_id')
          .leftJoin('apps as p', (join) =>
            join.onRef('p.client_id', '=', 'e.client_id').on('p.company_id', '=', companyId),
          )
          .select(signInColumns)
          .where('e.id', 'in', ids('signin'))
          .execute()
      : [],
    ids('audit').length
      ? db
          .selectFrom('audit_events as e')
          .leftJoin('accounts as a', 'a.id', 'e.actor_account_id')
          .select([
            'e.id',
            'e.created_at',
            'e.actor_account_id',
            'a.username',
            'e.action',
            'e.target_type',
            'e.target_id',
            'e.ip',
          ])
          .where('e.id', 'in', ids('audit'))
          .execute()
      : [],
    ids('alert').length
      ? db
          .selectFrom('log_alerts as e')
          .leftJoin('accounts as a', 'a.id', 'e.account_id')
          .select([
            'e.id',
            'e.created_at',
            'e.cause',
            'e.account_id',
            'a.username',
            'e.identifier',
            'e.count',
            'e.threshold',
            'e.window_minutes',
          ])
          .where('e.id', 'in', ids('alert'))
          .execute()
      : [],
  ]);
  const byId = new Map<string, string>();
  const base = { hostname: host, appName: tag };
  for (const e of signIns) {
    const who = e.username ?? e.identifier;
    const app = e.app_name ?? e.client_id ?? 'Tessera';
    const cause = e.failure_cause
      ? ((en.loginCauses as Record<string, string>)[e.failure_cause] ?? e.failure_cause)
      : null;
    byId.set(
      `signin:${e.id}`,
      formatRfc5424({
        ...base,
        facility: facilities.authpriv,
        severity: e.result === 'success' ? severities.info : severities.notice,
        time: e.created_at,
        msgId: 'signin',
        params: {
          company: companyId,
          event: e.id,
          result: e.result,
          cause: e.failure_cause,
          user: e.account_id,
          username: e.username,
          identifier: e.identifier,
          app: e.app_name,
          client: e.client_id,
          ip: e.ip,
          country: e.country,
          region: e.region,
          city: e.city,
          browser: e.browser,
          os: e.os,
          marks: e.marks?.join(','),
          nas_ip: e.nas_ip,
          calling_station: e.calling_station_id,
        },
        text: `sign-in ${e.result} for ${who} to ${app}${cause ? `: ${cause}` : ''}${e.ip ? ` from ${e.ip}` : ''}`,
      }),
    );
  }
  for (const e of audits) {
    const who = e.username ?? e.actor_account_id ?? 'system';
    byId.set(
      `audit:${e.id}`,
      formatRfc5424({
        ...base,
        facility: facilities.logAudit,
        severity: severities.info,
        time: e.created_at,
        msgId: 'audit',
        params: {
          company: companyId,
          event: e.id,
          actor: e.actor_account_id,
          actorName: e.username,
          action: e.action,
          targetType: e.target_type,
          target: e.target_id,
          ip: e.ip,
        },
        text: `${who} did ${e.action} on ${e.target_type}${e.target_id ? ` ${e.target_id}` : ''}`,
      }),
    );
  }
  for (const e of alerts) {
    const cause = (en.loginCauses as Record<string, string>)[e.cause] ?? e.cause;
    const scope = e.account_id ? `account ${e.username ?? e.identifier ?? e.account_id}` : 'the company';
    byId.set(
      `alert:${e.id}`,
      formatRfc5424({
        ...base,
        facility: facilities.authpriv,
        severity: severities.warning,
        time: e.created_at,
        msgId: 'alert',
        params: {
          company: companyId,
          event: e.id,
          cause: e.cause,
          user: e.account_id,
          username: e.username,
          count: e.count,
          threshold: e.threshold,
          windowMinutes: e.window_minutes,
        },
        text: `failure spike: ${e.count} sign-in failures (${cause}) for ${scope} in ${e.window_minutes} minutes`,
      }),
    );
  }
  return rows.flatMap((row) => {
    const message = byId.get(`${row.kind}:${row.event_id}`);
    return message ? [message] : [];
  });
}

export function createSyslogDelivery(deps: {
  db: Db;
  jobs: Jobs;
  publicUrl: string;
  /** Where syslog may go (syslog-target.ts). */
  addresses: OutboundPolicy;
}) {
  const { db, jobs } = deps;
  const host = (() => {
    try {
      return new URL(deps.publicUrl).hostname || hostname();
    } catch {
      return hostname();
    }
  })();

  async function recordError(companyId: string, error: unknown) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    await db
      .updateTable('company_syslog')
      .set({ last_error: message, last_error_at: sql<Date>`now()` })
      .where('company_id', '=', companyId)
      .execute();
  }

  /** Sends a company's waiting events, batch after batch, in order. */
  async function deliver(companyId: string, context: JobContext): Promise<void> {
    for (let round = 0; round < BATCHES_PER_RUN; round++) {
      const settings = await db
        .selectFrom('company_syslog')
        .selectAll()
        .where('company_id', '=', companyId)
        .executeTakeFirst();
      if (!settings?.enabled) return;
      const rows = (await db
        .selectFrom('syslog_outbox')
        .select(['seq', 'kind', 'event_id', 'created_at'])
        .where('company_id', '=', companyId)
        .orderBy('seq')
        .limit(BATCH)
        .execute()) as OutboxRow[];
      if (!rows.length) return;
      try {
        const address = await targetAddress(deps.addresses, settings.host);
        const messages = await messagesOf(db, companyId, settings.tag, host, rows);
        await sendSyslog(
          {
            protocol: settings.protocol,
            host: settings.host,
            address,
            port: settings.port,
            caPem: settings.ca_pem,
          },
          messages,
        );
      } catch (error) {
        await recordError(companyId, error);
        throw error;
      }
      const newest = rows.reduce(
        (max, row) => (row.created_at > max ? row.created_at : max),
        rows[0]?.created_at as Date,
      );
      await db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('syslog_outbox')
          .where('company_id', '=', companyId)
          .where(
            'seq',
            'in',
            rows.map((row) => row.seq),
          )
          .execute();
        await trx
          .updateTable('company_syslog')
          .set({
            delivered_at: sql<Date>`now()`,
            delivered_event_at: sql<Date>`greatest(delivered_event_at, ${newest})`,
            delivered_count: sql<string>`delivered_count + ${rows.length}`,
          })
          .where('company_id', '=', companyId)
          .execute();
      });
      await context.heartbeat();
    }
  }

  /** Starts a delivery job for each company whose forwarding is on and has events waiting. */
  async function dispatch(): Promise<void> {
    const waiting = await db
      .selectFrom('company_syslog as s')
      .select('s.company_id')
      .where('s.enabled', '=', true)
      .where((eb) =>
        eb.exists(
          eb.selectFrom('syslog_outbox as o').select('o.seq').whereRef('o.company_id', '=', 's.company_id'),
        ),
      )
      .execute();
    for (const { company_id } of waiting)
      await jobs.enqueue({
        kind: DELIVER_JOB,
        key: `syslog:${company_id}`,
        payload: { companyId: company_id },
        unlessQueued: true,
        maxAttempts: null,
      });
  }

  return { deliver, dispatch };
}
