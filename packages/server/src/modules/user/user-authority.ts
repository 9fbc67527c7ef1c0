import type { ErrorReason, MemberRole } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';

/**
 * Who may change whom in a company (spec §6, issue 12, issue 15):
 * - nobody acts on a person whose role is above their own (owner > administrator > external
 *   administrator > delegated administrator > member), nor gives anyone a role above their own;
 * - below administrator, nobody manages a peer: an external administrator does not manage other
 *   external administrators (spec §6), a delegated administrator (a member given a custom console
 *   role) does not manage other delegated administrators;
 * - administrators manage each other (and everyone below).
 * A delegated administrator thus acts like an external administrator within their console
 * role's permission groups (which bind() enforces), and only on members. Every call that changes
 * a person, gives a role or changes what a console role allows goes through `assertMayActOn`
 * (or `assertMayGrant`).
 *
 * And what a company may change of an account: everything (profile, password, photo, sign-in
 * links, second factors, status, the account itself) only while it fully manages the account,
 * that is, it created it and the account has no place in any other company. Otherwise it
 * manages only its own record of the person (departments, its record's status, removal).
 */
const rank: Record<MemberRole, number> = {
  member: 0,
  delegated_admin: 1,
  external_admin: 2,
  admin: 3,
  owner: 4,
};
/** Roles below administrator do not manage their peers. */
const peerRefusal: Partial<Record<MemberRole, ErrorReason>> = {
  external_admin: 'member.external_admin_forbidden',
  delegated_admin: 'member.delegated_admin_forbidden',
};

export function assertMayActOn(actor: MemberRole, target: MemberRole): void {
  const refusal = actor === target ? peerRefusal[actor] : undefined;
  if (refusal) throw new AppError(refusal);
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
