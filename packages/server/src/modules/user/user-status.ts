import type { MemberRole, UserStatus } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { findUser, type UserRow } from './user.repo.ts';
import { assertMayActOn } from './user-authority.ts';
import { clearLockout, setAccountStatus, setRecordStatus } from './user-write.repo.ts';

/**
 * The one status change of a person in a company, for the console's user/status call and for a
 * directory sync that disables people gone from the directory (or enables them again): the
 * record takes the status; a fully managed account takes it too, so that a disable ends every
 * session, grant and token of the account (the triggers of migration 11), and an enable lifts an
 * automatic lock-out. Audited in the caller's transaction. The row must be locked (`lockUser`).
 */
export async function changeUserStatus(
  trx: Db,
  actor: {
    /** null: the company's directory sync. */
    accountId: string | null;
    ip: string | null;
    role: MemberRole;
  },
  companyId: string,
  row: UserRow,
  status: UserStatus,
  audit: Record<string, unknown> = {},
): Promise<UserRow> {
  if (status !== 'enabled') {
    // The owner and the caller keep their standing: they cannot be disabled, locked or removed.
    if (row.role === 'owner') throw new AppError('user.owner_protected');
    if (row.id === actor.accountId) throw new AppError('user.self_change');
  }
  assertMayActOn(actor.role, row.role);
  await setRecordStatus(trx, companyId, row.id, status);
  if (row.fully_managed) await setAccountStatus(trx, row.id, status === 'enabled' ? 'enabled' : 'disabled');
  const clearsLockout = status === 'enabled' && row.fully_managed;
  if (clearsLockout) await clearLockout(trx, row.id);
  const after = await findUser(trx, companyId, row.id);
  if (!after) throw new AppError('user.not_found');
  await insertAuditEvent(trx, {
    companyId,
    actorAccountId: actor.accountId,
    action: 'user.status',
    targetType: 'user',
    targetId: row.id,
    before: { username: row.username, status: row.status, recordStatus: row.record_status },
    after: {
      username: row.username,
      status: after.status,
      recordStatus: after.record_status,
      clearsLockout,
      ...audit,
    },
    ip: actor.ip,
  });
  return after;
}
