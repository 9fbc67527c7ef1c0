import type { MemberRole } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';

/**
 * Who may change whom in a company (spec §6, issue 12):
 * - nobody acts on a person whose role is above their own (owner > administrator > external
 *   administrator > member), nor gives anyone a role above their own;
 * - an external administrator does not manage other external administrators;
 * - administrators manage each other (and members, and external administrators).
 * Every call that changes a person goes through `assertMayActOn` (or `assertMayGrant` for the
 * role a new person gets).
 *
 * And what a company may change of an account: everything (profile, password, photo, sign-in
 * links, second factors, status, the account itself) only while it fully manages the account,
 * that is, it created it and the account has no place in any other company. Otherwise it
 * manages only its own record of the person (departments, its record's status, removal).
 */
const rank: Record<MemberRole, number> = { member: 0, external_admin: 1, admin: 2, owner: 3 };

export function assertMayActOn(actor: MemberRole, target: MemberRole): void {
  if (actor === 'external_admin' && target === 'external_admin')
    throw new AppError('member.external_admin_forbidden');
  if (rank[target] > rank[actor]) throw new AppError('user.role_above_own');
}

/** The role a person is given must not be above the giver's, and the spec's external-administrator rule holds. */
export const assertMayGrant = assertMayActOn;

/**
 * Whether the company fully manages the account of the user record `m` joined with account `a`
 * (for selects over company_members m join accounts a).
 */
export const fullyManagedColumn = sql<boolean>`(a.home_company_id is not null and a.home_company_id = m.company_id and not exists (
  select 1 from company_members o where o.account_id = a.id and o.company_id <> m.company_id))`;

/** Whether the company fully manages the account (see above). */
export async function isFullyManaged(db: Db, companyId: string, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('company_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(fullyManagedColumn.as('fully_managed'))
    .where('m.company_id', '=', companyId)
    .where('m.account_id', '=', accountId)
    .executeTakeFirst();
  return row?.fully_managed === true;
}

export async function assertFullyManaged(db: Db, companyId: string, accountId: string): Promise<void> {
  if (!(await isFullyManaged(db, companyId, accountId))) throw new AppError('user.not_managed');
}

/** The role of the company's user record of the account, or undefined when it has none. */
export async function roleIn(db: Db, companyId: string, accountId: string): Promise<MemberRole | undefined> {
  const row = await db
    .selectFrom('company_members')
    .select('role')
    .where('company_id', '=', companyId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.role;
}
