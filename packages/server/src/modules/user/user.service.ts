import { userLimits } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { passwordPolicyFor } from '../account/password-policy.ts';
import type { QuotaService } from '../license/quota.service.ts';
import type { NotifyCredentialChange } from '../mail/credential-notices.ts';
import type { AccountSignOut, SignOutResult } from '../oidc/sign-out.ts';
import { createUserProfileService, type Invitations } from './user-profile.service.ts';
import { createUserQueryService } from './user-query.service.ts';
import { createUserStandingService } from './user-standing.service.ts';

/**
 * The users of a company (the console's users screen, the developer accounts of the admin
 * console, and one's own details), by sub-area: reading them (user-query.service.ts), who they
 * are (user-profile.service.ts) and their standing (user-standing.service.ts).
 */
interface UserServiceDeps {
  db: Db;
  quotas: Pick<QuotaService, 'takePlaces'>;
  /** Tells the person of a credential change an administrator made (mail/credential-notices.ts). */
  notifyCredentialChange?: NotifyCredentialChange;
  /** Tells the person's applications when a disable, lock, reset or removal ends their sessions. */
  signOut: Pick<AccountSignOut, 'prepare'>;
  /** Invitations by email instead of a password (user/create with `invite`). */
  invitations?: Invitations;
  log?: { warn(details: object, message: string): void };
}

const NOTHING_SENT: SignOutResult = { sessions: 0, delivered: 0, failed: 0 };

export function createUserService(deps: UserServiceDeps) {
  const { list, detail, log, selfDetails } = createUserQueryService(deps);
  const { create, createDevUser, update, rename, uploadPhoto, assertIdentifiersUsable } =
    createUserProfileService(deps);
  const { setStatus, resetPassword, remove } = createUserStandingService(deps);

  /**
   * Runs several changes all-or-nothing (a SCIM PUT: rename, profile, status, password): `change`
   * gets the user services bound to one transaction (and that transaction, for its own writes);
   * a refusal anywhere rolls everything back. What must follow the commit (the sign-outs of
   * applications, the credential-change notices) is held back and done once it committed.
   * Invitations are not sent from inside (the bound services have none).
   */
  async function atomically<T>(change: (users: UserService, trx: Db) => Promise<T>): Promise<T> {
    const afterCommit: (() => Promise<unknown>)[] = [];
    const result = await inTransaction(deps.db, (trx) =>
      change(
        createUserService({
          ...deps,
          db: trx,
          invitations: undefined,
          signOut: {
            async prepare(handle, accountId, scope) {
              const pending = await deps.signOut.prepare(handle, accountId, scope);
              return {
                send: async () => {
                  afterCommit.push(() => pending.send());
                  return NOTHING_SENT;
                },
              };
            },
          },
          notifyCredentialChange:
            deps.notifyCredentialChange &&
            (async (...args) => {
              const notify = deps.notifyCredentialChange;
              afterCommit.push(async () => notify?.(...args));
            }),
        }),
        trx,
      ),
    );
    for (const effect of afterCommit) await effect();
    return result;
  }

  return {
    list,
    detail,
    create,
    createDevUser,
    update,
    /** A new username (SCIM only: the console has no rename). */
    rename,
    setStatus,
    resetPassword,
    uploadPhoto,
    remove,
    /** Refuses identifiers another account has, before a transaction (see `atomically`). */
    assertIdentifiersUsable,
    atomically,
    log,
    selfDetails,
    /** The company's password rules, for the forms that set a password. */
    async passwordRules(companyId: string) {
      const { minLength, classes, forbidUsername, forbidCommon } = await passwordPolicyFor(
        deps.db,
        companyId,
      );
      return { minLength, maxLength: userLimits.passwordMax, classes, forbidUsername, forbidCommon };
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
