import type { MemberRole, UserStatus } from '@tessera/contract';
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { fullyManagedColumn } from './user-authority.ts';

/**
 * Users of a company: an account (the person) joined with its user record in the company
 * (`company_members`). Every function takes the handle to run on (inside a transaction: the
 * `trx`) and the company first; a record of another company is never found. This file reads
 * one user; the list and its search are in user-list.repo.ts, the writes in user-write.repo.ts.
 */

/** What the keyword search reads: a stored column with a trigram index (migration 6). */
export const searchText = sql<string>`a.search_text`;

/** The status the console shows: the record's, or `locked` while an automatic lock-out lasts. */
export const effectiveStatus = sql<UserStatus>`case when m.status <> 'enabled' then m.status when a.locked_until > now() then 'locked' else 'enabled' end`;

export const userColumns = [
  'a.id',
  'a.username',
  'a.display_name',
  'a.nickname',
  'a.email',
  'a.phone',
  'a.email_verified_at',
  'a.phone_verified_at',
  'a.photo_file_id',
  'a.must_change_password',
  'a.home_company_id',
  'a.login_count',
  'a.last_login_at',
  'a.failed_count',
  'a.last_failed_at',
  'a.locked_until',
  'm.role',
  'm.status as record_status',
  'm.created_at',
] as const;

export interface UserRow {
  id: string;
  username: string;
  display_name: string | null;
  nickname: string | null;
  email: string | null;
  phone: string | null;
  email_verified_at: Date | null;
  phone_verified_at: Date | null;
  photo_file_id: string | null;
  must_change_password: boolean;
  home_company_id: string | null;
  login_count: number;
  last_login_at: Date | null;
  failed_count: number;
  last_failed_at: Date | null;
  locked_until: Date | null;
  role: MemberRole;
  record_status: UserStatus;
  status: UserStatus;
  /** Whether the company fully manages the account (user-authority.ts). */
  fully_managed: boolean;
  created_at: Date;
}

/** The company's user records joined with their accounts (the base of every user query). */
export const usersOf = (db: Db, companyId: string) =>
  db
    .selectFrom('company_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .where('m.company_id', '=', companyId);

export async function findUser(db: Db, companyId: string, accountId: string): Promise<UserRow | undefined> {
  const row = await usersOf(db, companyId)
    .select([...userColumns, effectiveStatus.as('status'), fullyManagedColumn.as('fully_managed')])
    .where('m.account_id', '=', accountId)
    .executeTakeFirst();
  return row as UserRow | undefined;
}

/** Like findUser, and locks the account and the record for the rest of the transaction. */
export async function lockUser(trx: Db, companyId: string, accountId: string): Promise<UserRow | undefined> {
  const row = await usersOf(trx, companyId)
    .select([...userColumns, effectiveStatus.as('status'), fullyManagedColumn.as('fully_managed')])
    .where('m.account_id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  return row as UserRow | undefined;
}

/** The departments of each of the given users, by name. */
export async function findDepartmentRefs(db: Db, companyId: string, accountIds: readonly string[]) {
  const byAccount = new Map<string, { departmentId: string; name: string }[]>();
  if (!accountIds.length) return byAccount;
  const rows = await db
    .selectFrom('department_members as dm')
    .innerJoin('departments as d', 'd.id', 'dm.department_id')
    .select(['dm.account_id', 'd.id', 'd.name'])
    .where('dm.company_id', '=', companyId)
    .where('dm.account_id', 'in', [...new Set(accountIds)])
    .orderBy('d.name')
    .orderBy('d.id')
    .execute();
  for (const row of rows) {
    const list = byAccount.get(row.account_id) ?? [];
    list.push({ departmentId: row.id, name: row.name });
    byAccount.set(row.account_id, list);
  }
  return byAccount;
}

/**
 * Which of username, email and phone another account already has (username and email
 * case-insensitively), and whether any of those accounts is outside `companyId` (then the
 * answer tells the company something about another company's people: identifier-checks.ts).
 * A username may hold an `@`, and people sign in with a username or an email alike, so a
 * username is also refused when it is another account's email (`usernameIsEmail`), and an email
 * when it is another account's username (`emailIsUsername`).
 */
export async function findTakenIdentifiers(
  db: Db,
  values: { username?: string; email?: string | null; phone?: string | null },
  options: { exceptAccountId?: string; companyId?: string | null } = {},
) {
  const username = values.username?.toLowerCase();
  const email = values.email?.toLowerCase();
  const checks: Expression<SqlBool>[] = [];
  if (username) checks.push(sql<SqlBool>`lower(username) = ${username}`);
  if (email) checks.push(sql<SqlBool>`lower(email) = ${email}`);
  // Only a username with an @ can be an email (the indexes on lower(username) and lower(email) serve both).
  if (username?.includes('@')) checks.push(sql<SqlBool>`lower(email) = ${username}`);
  if (email) checks.push(sql<SqlBool>`lower(username) = ${email}`);
  if (values.phone) checks.push(sql<SqlBool>`phone = ${values.phone}`);
  const none = {
    username: false,
    email: false,
    phone: false,
    usernameIsEmail: false,
    emailIsUsername: false,
  };
  if (!checks.length) return { ...none, elsewhere: false };
  let query = db
    .selectFrom('accounts')
    .select([
      'username',
      'email',
      'phone',
      sql<boolean>`not exists (select 1 from company_members m where m.account_id = accounts.id
        and m.company_id = ${options.companyId ?? ''})`.as('elsewhere'),
    ])
    .where(sql<SqlBool>`(${sql.join(checks, sql` or `)})`);
  if (options.exceptAccountId) query = query.where('id', '<>', options.exceptAccountId);
  const rows = await query.limit(5).execute();
  return {
    username: Boolean(username && rows.some((r) => r.username.toLowerCase() === username)),
    email: Boolean(email && rows.some((r) => r.email?.toLowerCase() === email)),
    phone: Boolean(values.phone && rows.some((r) => r.phone === values.phone)),
    usernameIsEmail: Boolean(username && rows.some((r) => r.email?.toLowerCase() === username)),
    emailIsUsername: Boolean(email && rows.some((r) => r.username.toLowerCase() === email)),
    elsewhere: rows.some((r) => r.elsewhere),
  };
}

/** The refusal reason for what findTakenIdentifiers found, in the order the forms show them; undefined when all is free. */
export function takenReason(taken: Awaited<ReturnType<typeof findTakenIdentifiers>>) {
  if (taken.username) return ['user.username_taken', 'username'] as const;
  if (taken.usernameIsEmail) return ['user.username_is_email', 'username'] as const;
  if (taken.email) return ['user.email_taken', 'email'] as const;
  if (taken.emailIsUsername) return ['user.email_is_username', 'email'] as const;
  if (taken.phone) return ['user.phone_taken', 'phone'] as const;
  return undefined;
}

/**
 * The account's sign-ins, newest first: those made for this company and those of the shared
 * sign-in page (no company), never those attributed to another company.
 */
export async function findLoginEvents(
  db: Db,
  companyId: string,
  accountId: string,
  page: number,
  pageSize: number,
) {
  const base = db
    .selectFrom('login_events as e')
    .where('e.account_id', '=', accountId)
    .where((eb) => eb.or([eb('e.company_id', '=', companyId), eb('e.company_id', 'is', null)]));
  const [rows, count] = await Promise.all([
    base
      // The application's name, as the log screen shows it: only an application of this company.
      .leftJoin('apps as p', (join) =>
        join.onRef('p.client_id', '=', 'e.client_id').on('p.company_id', '=', companyId),
      )
      .select([
        'e.created_at',
        'e.result',
        'e.failure_cause',
        'e.client_id',
        'p.name as app_name',
        'e.ip',
        'e.user_agent',
      ])
      .orderBy('e.created_at', 'desc')
      .orderBy('e.id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export const findSelf = (db: Db, accountId: string) =>
  db
    .selectFrom('accounts')
    .select(['id', 'username', 'display_name', 'nickname', 'photo_file_id'])
    .where('id', '=', accountId)
    .executeTakeFirst();
