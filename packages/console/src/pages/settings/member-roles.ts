import type { MemberRole } from '@tessera/contract/constants';
import type { ParseKeys } from 'i18next';

/** Phrase and tag colour of each company role. */
export const memberRoleView: Record<MemberRole, { label: ParseKeys; color: string }> = {
  owner: { label: 'settings.role.owner', color: 'gold' },
  admin: { label: 'settings.role.admin', color: 'blue' },
  external_admin: { label: 'settings.role.externalAdmin', color: 'purple' },
  delegated_admin: { label: 'settings.role.delegatedAdmin', color: 'cyan' },
  member: { label: 'settings.role.member', color: 'default' },
};

/** Roles an administrator can give to someone new (the owner is whoever created the company). */
export const assignableRoles = ['admin', 'external_admin', 'member'] as const satisfies readonly MemberRole[];
export type AssignableRole = (typeof assignableRoles)[number];
