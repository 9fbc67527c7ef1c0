import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { type Budget, spendBudgets } from '../../lib/rate-windows.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';

/**
 * Usernames, emails and phone numbers are unique on the whole platform (people type them on the
 * one shared sign-in page), so adding or changing a person can answer "taken" because of an
 * account of another company: an answer that tests whether someone exists anywhere. A company
 * gets a small budget of such answers (20 in any hour), each one audited; once it is spent, the
 * company adds and changes no identifiers at all until the window frees up, so that neither a
 * "taken" nor a success answers the question. Collisions with the company's own people are
 * told freely: the company sees them anyway.
 */
const budgetOf = (companyId: string): Budget => ({
  key: `identifier-checks:${companyId}`,
  limit: 20,
  minutes: 60,
});

/** Refuses, before anything is looked up, while the company's budget is spent. */
export async function assertIdentifierChecksLeft(db: Db, companyId: string): Promise<void> {
  if (!(await spendBudgets(db, [budgetOf(companyId)], 'peek')))
    throw new AppError('user.identifier_checks_exhausted');
}

/**
 * Spends one check (or `count`) before telling the company that identifiers are taken by
 * accounts outside it, and audits it; refuses when the budget cannot cover it.
 */
export async function spendIdentifierChecks(
  db: Db,
  companyId: string,
  /** null: the company's directory sync (a scheduled run). */
  actor: { accountId: string | null; ip: string | null },
  tried: Record<string, unknown>,
  count = 1,
): Promise<void> {
  let room = true;
  for (let i = 0; i < count && room; i++) room = await spendBudgets(db, [budgetOf(companyId)], 'reserve');
  await insertAuditEvent(db, {
    companyId,
    actorAccountId: actor.accountId,
    action: 'user.identifier_taken',
    targetType: 'user',
    targetId: null,
    after: { ...tried, told: room },
    ip: actor.ip,
  });
  if (!room) throw new AppError('user.identifier_checks_exhausted');
}
