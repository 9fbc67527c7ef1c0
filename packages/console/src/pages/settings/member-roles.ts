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

/** The administrator roles the Administrators card gives, besides the company's custom console roles. */
export const adminRoles = ['admin', 'external_admin'] as const satisfies readonly MemberRole[];

/** The role the card's choice stands for: 'admin', 'external_admin' or 'console:<roleId>'. */
export function roleOfChoice(choice: string): {
  role: 'admin' | 'external_admin' | 'delegated_admin';
  consoleRoleId?: string;
} {
  if (choice.startsWith('console:')) return { role: 'delegated_admin', consoleRoleId: choice.slice(8) };
  return { role: choice === 'external_admin' ? 'external_admin' : 'admin' };
}
