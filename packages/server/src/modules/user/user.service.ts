import { userLimits } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { passwordPolicyFor } from '../account/password-policy.ts';
import type { QuotaService } from '../license/quota.service.ts';
import type { NotifyCredentialChange } from '../mail/credential-notices.ts';
import type { AccountSignOut } from '../oidc/sign-out.ts';
import { createUserProfileService, type Invitations } from './user-profile.service.ts';
import { createUserQueryService } from './user-query.service.ts';
import { createUserStandingService } from './user-standing.service.ts';

/**
 * The users of a company (the console's users screen, the developer accounts of the admin
 * console, and one's own details), by sub-area: reading them (user-query.service.ts), who they
 * are (user-profile.service.ts) and their standing (user-standing.service.ts).
 */
export function createUserService(deps: {
  db: Db;
  quotas: Pick<QuotaService, 'takePlaces'>;
  /** Tells the person of a credential change an administrator made (mail/credential-notices.ts). */
  notifyCredentialChange?: NotifyCredentialChange;
  /** Tells the person's applications when a disable, lock, reset or removal ends their sessions. */
  signOut: Pick<AccountSignOut, 'prepare'>;
  /** Invitations by email instead of a password (user/create with `invite`). */
  invitations?: Invitations;
  log?: { warn(details: object, message: string): void };
}) {
  const { list, detail, log, selfDetails } = createUserQueryService(deps);
  const { create, createDevUser, update, rename, uploadPhoto } = createUserProfileService(deps);
  const { setStatus, resetPassword, remove } = createUserStandingService(deps);
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
