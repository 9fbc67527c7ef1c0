import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';

export interface AuditEvent {
  companyId: string | null;
  actorAccountId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  before?: unknown;
  after?: unknown;
  ip?: string | null;
}

/** Audit events are written inside the caller's transaction, so a change and its record land together. */
export async function insertAuditEvent(db: Db, event: AuditEvent): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      id: newId(),
      company_id: event.companyId,
      actor_account_id: event.actorAccountId,
      action: event.action,
      target_type: event.targetType,
      target_id: event.targetId,
      before: event.before === undefined ? null : JSON.stringify(event.before),
      after: event.after === undefined ? null : JSON.stringify(event.after),
      ip: event.ip ?? null,
    })
    .execute();
}
