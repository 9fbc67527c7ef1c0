import type { Language, UserStatus } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { hashPassword } from '../account/password.ts';
import { assertPasswordAllowed, passwordPolicyFor } from '../account/password-policy.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { isDirectoryAccount } from '../identity-source/identity-source.repo.ts';
import type { NotifyCredentialChange } from '../mail/credential-notices.ts';
import { type AccountSignOut, signOutScopeOf, withSignOut } from '../oidc/sign-out.ts';
import type { UserRow } from './user.repo.ts';
import { assertMayActOn } from './user-authority.ts';
import { removePerson } from './user-removal.ts';
import { changeUserStatus } from './user-status.ts';
import { assertManaged, auditView, findExisting, lockExisting, toUser, type UserActor } from './user-view.ts';
import { setPassword } from './user-write.repo.ts';

/**
 * A user's standing in the company: their status, their password (an administrator's reset) and
 * their removal. A disable, lock, reset or removal ends the person's sessions, and their
 * applications are told.
 */
export function createUserStandingService(deps: {
  db: Db;
  /** Tells the person of a credential change an administrator made (mail/credential-notices.ts). */
  notifyCredentialChange?: NotifyCredentialChange;
  /** Tells the person's applications when a disable, lock, reset or removal ends their sessions. */
  signOut: Pick<AccountSignOut, 'prepare'>;
}) {
  const { db } = deps;

  /** The owner and the caller keep their standing: they cannot be disabled, locked or removed. */
  const assertChangeable = (actor: UserActor, row: UserRow) => {
    if (row.role === 'owner') throw new AppError('user.owner_protected');
    if (row.id === actor.accountId) throw new AppError('user.self_change');
  };

  async function setStatus(actor: UserActor, companyId: string, userId: string, status: UserStatus) {
    return withSignOut(db, deps.signOut, async (trx, signOutBefore) => {
      const { row, departments } = await lockExisting(trx, companyId, userId);
      // Disabling or locking an enabled record ends the person's sessions (at the company's apps,
      // or everywhere for an account the company fully manages): their apps are told.
      if (status !== 'enabled' && row.record_status === 'enabled')
        await signOutBefore(row.id, signOutScopeOf(row, companyId));
      const after = await changeUserStatus(trx, actor, companyId, row, status);
      return toUser(after, departments);
    });
  }

  async function resetPassword(
    actor: UserActor,
    companyId: string,
    lang: Language,
    input: { userId: string; password: string; mustChangePassword: boolean },
  ) {
    // Checked before the (slow) hash, and again under the lock below.
    const existing = await findExisting(db, companyId, input.userId);
    assertMayActOn(actor.role, existing.role);
    assertManaged(existing);
    // A directory person's password is the directory's: a local one would be a stale way in.
    if (await isDirectoryAccount(db, existing.id)) throw new AppError('user.directory_managed');
    assertPasswordAllowed(
      input.password,
      { username: existing.username, lang, field: 'password' },
      await passwordPolicyFor(db, companyId),
    );
    const passwordHash = await hashPassword(input.password);
    const user = await withSignOut(db, deps.signOut, async (trx, signOutBefore) => {
      const { row, departments } = await lockExisting(trx, companyId, input.userId);
      assertMayActOn(actor.role, row.role);
      assertManaged(row);
      // Raises the credential version: every session, grant and token of the account ends.
      await signOutBefore(row.id);
      await setPassword(trx, row.id, passwordHash, input.mustChangePassword);
      const after = await findExisting(trx, companyId, row.id);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'user.password_reset',
        targetType: 'user',
        targetId: row.id,
        before: { username: row.username, mustChangePassword: row.must_change_password },
        after: { username: row.username, mustChangePassword: input.mustChangePassword, sessionsEnded: true },
        ip: actor.ip,
      });
      return toUser(after, departments);
    });
    await deps.notifyCredentialChange?.(user.userId, companyId, 'password_reset');
    return user;
  }
  /** Removes the user from the company (see removePerson: a fully managed account ends with it). */
  async function remove(actor: UserActor, companyId: string, userId: string) {
    return withSignOut(db, deps.signOut, async (trx, signOutBefore) => {
      const { row, departments } = await lockExisting(trx, companyId, userId);
      assertChangeable(actor, row);
      assertMayActOn(actor.role, row.role);
      await signOutBefore(row.id, signOutScopeOf(row, companyId));
      await removePerson(trx, actor, companyId, row, {
        action: 'user.delete',
        before: { ...auditView(row, departments), role: row.role },
      });
      return { userId: row.id };
    });
  }

  return { setStatus, resetPassword, remove };
}
