import { X509Certificate } from 'node:crypto';
import { type SyslogProtocol, syslogLimits } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertTargetAllowed } from './syslog-target.ts';

/**
 * Syslog settings of a company (spec §3) and the state of its delivery (spec §4: forwarding is
 * switched on and off by the update call; the status call reads how delivery goes).
 */
export interface Actor {
  accountId: string;
  ip: string;
}

export interface SyslogInput {
  enabled: boolean;
  protocol: SyslogProtocol;
  host: string;
  port: number;
  tag: string;
  caPem?: string | null;
}

const PEM =
  /^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----(\r?\n-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----)*\s*$/;

function assertCaPem(pem: string) {
  if (!PEM.test(pem)) throw new AppError('syslog.ca_invalid');
  try {
    // The first certificate of the bundle must parse (TLS then reads them all).
    new X509Certificate(pem);
  } catch {
    throw new AppError('syslog.ca_invalid');
  }
}

const toSettings = (
  row:
    | {
        enabled: boolean;
        protocol: SyslogProtocol;
        host: string;
        port: number;
        tag: string;
        ca_pem: string | null;
      }
    | undefined,
) => ({
  enabled: row?.enabled ?? false,
  protocol: row?.protocol ?? ('udp' as const),
  host: row?.host ?? '',
  port: row?.port ?? 514,
  tag: row?.tag ?? syslogLimits.defaultTag,
  caPem: row?.ca_pem ?? null,
  configured: Boolean(row),
});

export function createSyslogService(deps: {
  db: Db;
  /** Where syslog may go (syslog-target.ts). */
  addresses: OutboundPolicy;
  /** Asks the delivery job to look at the outbox soon (after forwarding is switched on). */
  deliverSoon(): Promise<void>;
}) {
  const { db } = deps;

  const find = (from: Db, companyId: string) =>
    from.selectFrom('company_syslog').selectAll().where('company_id', '=', companyId).executeTakeFirst();

  async function conf(companyId: string) {
    return toSettings(await find(db, companyId));
  }

  async function update(actor: Actor, companyId: string, input: SyslogInput) {
    await assertTargetAllowed(deps.addresses, input.host);
    const caPem = input.protocol === 'tls' ? (input.caPem ?? null) : null;
    if (caPem) assertCaPem(caPem);
    const saved = await db.transaction().execute(async (trx) => {
      const before = toSettings(await find(trx, companyId));
      const values = {
        enabled: input.enabled,
        protocol: input.protocol,
        host: input.host,
        port: input.port,
        tag: input.tag,
        ca_pem: caPem,
        updated_at: sql<Date>`now()`,
      };
      await trx
        .insertInto('company_syslog')
        .values({ company_id: companyId, ...values })
        .onConflict((oc) => oc.column('company_id').doUpdateSet(values))
        .execute();
      const after = toSettings(await find(trx, companyId));
      const describe = ({ caPem: pem, ...rest }: typeof after) => ({ ...rest, caPem: pem ? 'set' : null });
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'company.syslog.update',
        targetType: 'company',
        targetId: companyId,
        before: describe(before),
        after: describe(after),
        ip: actor.ip,
      });
      return after;
    });
    if (saved.enabled) await deps.deliverSoon();
    return saved;
  }

  async function status(companyId: string) {
    const row = await find(db, companyId);
    const backlog = await db
      .selectFrom('syslog_outbox')
      .select([sql<string>`count(*)`.as('count'), sql<Date | null>`min(created_at)`.as('oldest')])
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow();
    const iso = (value: Date | null | undefined) => (value ? new Date(value).toISOString() : null);
    return {
      enabled: row?.enabled ?? false,
      configured: Boolean(row),
      deliveredAt: iso(row?.delivered_at),
      deliveredUpTo: iso(row?.delivered_event_at),
      deliveredCount: Number(row?.delivered_count ?? 0),
      backlog: Number(backlog.count),
      oldestWaitingAt: iso(backlog.oldest),
      lastError: row?.last_error ?? null,
      lastErrorAt: iso(row?.last_error_at),
    };
  }

  return { conf, update, status };
}

export type SyslogService = ReturnType<typeof createSyslogService>;
