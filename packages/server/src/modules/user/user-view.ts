import type { MemberRole } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { fileUrl } from '../files/files.ts';
import * as users from './user.repo.ts';

/** What the user services share: the caller, the user as answered and audited, the lookups. */

export interface UserActor {
  accountId: string;
  ip: string;
  role: MemberRole;
}

type Departments = Map<string, { departmentId: string; name: string }[]>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The user as the contract describes it (`user` of calls/user.ts). */
export function toUser(row: users.UserRow, departments: Departments) {
  const lockedUntil = row.locked_until && row.locked_until > new Date() ? row.locked_until : null;
  return {
    userId: row.id,
    username: row.username,
    name: row.display_name,
    nickname: row.nickname,
    email: row.email,
    phone: row.phone,
    emailVerifiedAt: iso(row.email_verified_at),
    phoneVerifiedAt: iso(row.phone_verified_at),
    photo: fileUrl(row.photo_file_id),
    status: row.status,
    role: row.role,
    isOwner: row.role === 'owner',
    managed: row.fully_managed,
    mustChangePassword: row.must_change_password,
    loginCount: row.login_count,
    lastLoginAt: iso(row.last_login_at),
    failedCount: row.failed_count,
    lastFailedAt: iso(row.last_failed_at),
    lockedUntil: iso(lockedUntil),
    departments: departments.get(row.id) ?? [],
    createdAt: row.created_at.toISOString(),
  };
}

/** What the audit trail keeps of a user (no password material). */
export const auditView = (row: users.UserRow, departments: Departments) => ({
  username: row.username,
  name: row.display_name,
  nickname: row.nickname,
  email: row.email,
  phone: row.phone,
  status: row.status,
  mustChangePassword: row.must_change_password,
  departments: (departments.get(row.id) ?? []).map((d) => d.departmentId),
});

/** The user record of the company; another company's user is not found. */
export async function findExisting(from: Db, companyId: string, accountId: string) {
  const row = await users.findUser(from, companyId, accountId);
  if (!row) throw new AppError('user.not_found');
  return row;
}

/** The user of the company as the contract describes it; another company's user is not found. */
export async function presentUser(from: Db, companyId: string, accountId: string) {
  const row = await findExisting(from, companyId, accountId);
  return toUser(row, await users.findDepartmentRefs(from, companyId, [row.id]));
}

/** The user record, locked for the transaction; another company's user is not found. */
export async function lockExisting(trx: Db, companyId: string, userId: string) {
  const row = await users.lockUser(trx, companyId, userId);
  if (!row) throw new AppError('user.not_found');
  return { row, departments: await users.findDepartmentRefs(trx, companyId, [row.id]) };
}

/** The company may change the account itself (not only its record): see user-authority.ts. */
export const assertManaged = (row: users.UserRow) => {
  if (!row.fully_managed) throw new AppError('user.not_managed');
};
