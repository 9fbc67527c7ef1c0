import type { UserStatus } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';

/**
 * Writes to accounts and their user records in a company. None of them checks anything: the
 * callers validate the input and, for an existing user, hold its lock (`lockUser` of user.repo.ts).
 */

/** Makes the user's departments exactly these (ids already checked to be the company's). */
export async function replaceDepartments(
  trx: Db,
  companyId: string,
  accountId: string,
  departmentIds: readonly string[],
) {
  const wanted = [...new Set(departmentIds)];
  let remove = trx
    .deleteFrom('department_members')
    .where('company_id', '=', companyId)
    .where('account_id', '=', accountId);
  if (wanted.length) remove = remove.where('department_id', 'not in', wanted);
  await remove.execute();
  if (wanted.length)
    await trx
      .insertInto('department_members')
      .values(wanted.map((id) => ({ department_id: id, company_id: companyId, account_id: accountId })))
      .onConflict((oc) => oc.columns(['department_id', 'account_id']).doNothing())
      .execute();
}

export interface NewManagedAccount {
  username: string;
  name?: string | null;
  nickname?: string | null;
  email?: string | null;
  phone?: string | null;
  /** An argon2 hash, or '!' for an account without a password yet (it gets in through a sign-in link). */
  passwordHash: string;
  mustChangePassword: boolean;
}

/**
 * Creates an enabled account, managed by `homeCompanyId` (null: a developer account of no
 * company), and answers its id. No checks, as for `insertManagedAccount`.
 */
export async function insertAccount(trx: Db, account: NewManagedAccount, homeCompanyId: string | null) {
  const id = newId();
  await trx
    .insertInto('accounts')
    .values({
      id,
      username: account.username,
      display_name: account.name ?? null,
      nickname: account.nickname ?? null,
      email: account.email ?? null,
      phone: account.phone ?? null,
      password_hash: account.passwordHash,
      status: 'enabled',
      must_change_password: account.mustChangePassword,
      home_company_id: homeCompanyId,
    })
    .execute();
  return id;
}

/**
 * Creates an account the company manages and its user record (role member, enabled). No checks:
 * the caller validates, checks uniqueness (the unique indexes are the last word) and has taken
 * the places (`quotas.takePlaces`). The import helper inserts its rows through this too.
 */
export async function insertManagedAccount(trx: Db, companyId: string, account: NewManagedAccount) {
  const id = await insertAccount(trx, account, companyId);
  await trx
    .insertInto('company_members')
    .values({ company_id: companyId, account_id: id, role: 'member' })
    .execute();
  return id;
}

export async function updateAccountProfile(
  trx: Db,
  accountId: string,
  set: {
    display_name?: string | null;
    nickname?: string | null;
    email?: string | null;
    phone?: string | null;
    must_change_password?: boolean;
    photo_file_id?: string | null;
  },
) {
  if (!Object.keys(set).length) return;
  await trx.updateTable('accounts').set(set).where('id', '=', accountId).execute();
}

/** A new password; raising the credential version ends every session of the account. */
export async function setPassword(
  trx: Db,
  accountId: string,
  passwordHash: string,
  mustChangePassword: boolean,
) {
  await trx
    .updateTable('accounts')
    .set((eb) => ({
      password_hash: passwordHash,
      must_change_password: mustChangePassword,
      password_changed_at: sql<Date>`now()`,
      credential_version: eb('credential_version', '+', 1),
    }))
    .where('id', '=', accountId)
    .execute();
}

export async function setRecordStatus(trx: Db, companyId: string, accountId: string, status: UserStatus) {
  await trx
    .updateTable('company_members')
    .set({ status, updated_at: sql<Date>`now()` })
    .where('company_id', '=', companyId)
    .where('account_id', '=', accountId)
    .execute();
}

/**
 * The account's own status, which a company that fully manages it sets with its record's: a
 * disabled (or administrator-locked) person can then do nothing anywhere, not even with a
 * console token outside the company.
 */
export async function setAccountStatus(trx: Db, accountId: string, status: 'enabled' | 'disabled') {
  await trx.updateTable('accounts').set({ status }).where('id', '=', accountId).execute();
}

export async function touchRecord(trx: Db, companyId: string, accountId: string) {
  await trx
    .updateTable('company_members')
    .set({ updated_at: sql<Date>`now()` })
    .where('company_id', '=', companyId)
    .where('account_id', '=', accountId)
    .execute();
}

/** Lifts an automatic lock-out of the account (failed sign-ins). */
export async function clearLockout(trx: Db, accountId: string) {
  await trx
    .updateTable('accounts')
    .set({ failed_count: 0, locked_until: null })
    .where('id', '=', accountId)
    .execute();
}

/**
 * Removes the person's record; they stop managing the company's departments too, and lose their
 * assignments to the company's applications and their stored form-fill credentials for them
 * (joining again starts afresh).
 */
export async function deleteRecord(trx: Db, companyId: string, accountId: string) {
  const companyApps = trx.selectFrom('apps').select('id').where('company_id', '=', companyId);
  for (const table of ['app_assignments', 'app_form_credentials'] as const) {
    await trx
      .deleteFrom(table)
      .where('account_id', '=', accountId)
      .where('app_id', 'in', companyApps)
      .execute();
  }
  await trx
    .updateTable('departments')
    .set({ manager_account_id: null })
    .where('company_id', '=', companyId)
    .where('manager_account_id', '=', accountId)
    .execute();
  await trx
    .deleteFrom('company_members')
    .where('company_id', '=', companyId)
    .where('account_id', '=', accountId)
    .execute();
}

/** Deletes the account; its records, sessions and sign-in links go with it (on delete cascade). */
export async function deleteAccount(trx: Db, accountId: string) {
  const account = await trx
    .deleteFrom('accounts')
    .where('id', '=', accountId)
    .returning('photo_file_id')
    .executeTakeFirst();
  if (account?.photo_file_id) await trx.deleteFrom('files').where('id', '=', account.photo_file_id).execute();
}

export async function clearHomeCompany(trx: Db, accountId: string) {
  await trx.updateTable('accounts').set({ home_company_id: null }).where('id', '=', accountId).execute();
}
