import type { Db } from '../../db/database.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import type { UserRow } from './user.repo.ts';
import { clearHomeCompany, deleteAccount, deleteRecord } from './user-write.repo.ts';

/**
 * Takes a person out of a company, for both calls that do it (`user/del` on the users screen and
 * `company/user/del` on the administrators card). An account the company fully manages (it
 * created it and it belongs nowhere else) ends with its record: deleted, with every session,
 * grant and token (the database's revocation triggers and cascades). Otherwise only the record
 * goes, with the person's grants and tokens at the company's applications, and an account the
 * company created no longer belongs to it to manage.
 */
export async function removePerson(
  trx: Db,
  actor: { accountId: string; ip: string },
  companyId: string,
  row: UserRow,
  audit: { action: string; before: Record<string, unknown> },
) {
  const accountDeleted = row.fully_managed;
  if (accountDeleted) {
    await deleteAccount(trx, row.id);
  } else {
    await deleteRecord(trx, companyId, row.id);
    if (row.home_company_id === companyId) await clearHomeCompany(trx, row.id);
  }
  await insertAuditEvent(trx, {
    companyId,
    actorAccountId: actor.accountId,
    action: audit.action,
    targetType: 'user',
    targetId: row.id,
    before: { ...audit.before, managed: row.fully_managed },
    after: { accountDeleted },
    ip: actor.ip,
  });
  return { accountDeleted };
}
