import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { hashPassword } from './password.ts';

export interface OwnPasswordChange {
  /** The person changing their own password (also the actor of the audit event). */
  account: Pick<Account, 'id' | 'home_company_id' | 'password_hash'>;
  /** The new password, already checked against the rules; it is hashed here. */
  newPassword: string;
  /** Only over the password that was checked: a change meanwhile (an administrator's reset) wins. */
  onlyIfUnchanged?: boolean;
  /** The `before` and `after` of the `user.password_change` audit event. */
  audit: { before: Record<string, unknown>; after: Record<string, unknown>; ip: string | null };
  /** Runs in the same transaction after the update, with the account's new credential version. */
  alsoInTransaction?: (trx: Db, credentialVersion: number) => Promise<void>;
}

/**
 * Sets a password the person chose for themselves, in one transaction: the new hash, the change
 * time (restarting the company's change cycle), no more forced change, a raised credential
 * version (which ends the account's other sessions) and the `user.password_change` audit event.
 * Returns false, changing nothing, when `onlyIfUnchanged` is set and the stored hash is no longer
 * the one that was checked.
 */
export async function changeOwnPassword(db: Db, change: OwnPasswordChange): Promise<boolean> {
  const { account } = change;
  const passwordHash = await hashPassword(change.newPassword);
  return db.transaction().execute(async (trx) => {
    let update = trx
      .updateTable('accounts')
      .set((eb) => ({
        password_hash: passwordHash,
        password_changed_at: sql<Date>`now()`,
        must_change_password: false,
        credential_version: eb('credential_version', '+', 1),
      }))
      .where('id', '=', account.id);
    if (change.onlyIfUnchanged) update = update.where('password_hash', '=', account.password_hash);
    const updated = await update.returning('credential_version').executeTakeFirst();
    if (!updated) return false;
    await change.alsoInTransaction?.(trx, updated.credential_version);
    await insertAuditEvent(trx, {
      companyId: account.home_company_id,
      actorAccountId: account.id,
      action: 'user.password_change',
      targetType: 'user',
      targetId: account.id,
      before: change.audit.before,
      after: change.audit.after,
      ip: change.audit.ip,
    });
    return true;
  });
}
