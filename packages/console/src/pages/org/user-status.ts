import type { UserStatus } from '@tessera/contract/constants';
import type { ParseKeys } from 'i18next';
import type { OrgUser } from './org-types.ts';

/** Phrase and tag colour of each status. */
export const userStatusView: Record<UserStatus, { label: ParseKeys; color: string }> = {
  enabled: { label: 'org.status.enabled', color: 'green' },
  disabled: { label: 'org.status.disabled', color: 'default' },
  locked: { label: 'org.status.locked', color: 'red' },
};

/** The status changes an administrator can make, each with the status it sets. */
export type StatusAction = 'enable' | 'disable' | 'lock' | 'unlock';
export const statusOfAction: Record<StatusAction, UserStatus> = {
  enable: 'enabled',
  disable: 'disabled',
  lock: 'locked',
  unlock: 'enabled',
};

/**
 * What can be done to a user's status. The owner and the administrator themselves are protected
 * (the server refuses with `user.owner_protected` / `user.self_change`), so they get nothing.
 * `unlock` also lifts an automatic lock-out.
 */
export function statusActions(
  user: Pick<OrgUser, 'status' | 'isOwner' | 'lockedUntil'>,
  isSelf: boolean,
  now = Date.now(),
): StatusAction[] {
  if (user.isOwner || isSelf) return [];
  switch (effectiveStatus(user, now)) {
    case 'enabled':
      return ['disable', 'lock'];
    case 'disabled':
      return ['enable'];
    case 'locked':
      return ['unlock', 'disable'];
  }
}

/** The status to show: an automatic lock-out of an enabled user shows as locked (the brief's user model). */
export const effectiveStatus = (
  user: Pick<OrgUser, 'status' | 'lockedUntil'>,
  now = Date.now(),
): UserStatus => (user.status === 'enabled' && lockedOut(user, now) ? 'locked' : user.status);

/** Whether an automatic lock-out (too many failed sign-ins) is in force now. */
export const lockedOut = (user: Pick<OrgUser, 'lockedUntil'>, now = Date.now()) =>
  user.lockedUntil !== null && new Date(user.lockedUntil).getTime() > now;

/** The name to show for a user: the name, else the nickname, else the username. */
export const displayName = (user: Pick<OrgUser, 'name' | 'nickname' | 'username'>) =>
  user.name || user.nickname || user.username;
