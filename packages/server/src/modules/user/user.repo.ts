import type { MemberRole, UserSortField, UserStatus } from '@tessera/contract';
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import { fullyManagedColumn } from './user-authority.ts';

/**
 * Users of a company: an account (the person) joined with its user record in the company
 * (`company_members`). Every function takes the handle to run on (inside a transaction: the
 * `trx`) and the company first; a record of another company is never found.
 */

/** What the keyword search reads: a stored column with a trigram index (migration 6). */
export const searchText = sql<string>`a.search_text`;

/** The status the console shows: the record's, or `locked` while an automatic lock-out lasts. */
export const effectiveStatus = sql<UserStatus>`case when m.status <> 'enabled' then m.status when a.locked_until > now() then 'locked' else 'enabled' end`;

const userColumns = [
  'a.id',
  'a.username',
  'a.display_name',
  'a.nickname',
  'a.email',
  'a.phone',
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

const usersOf = (db: Db, companyId: string) =>
  db
    .selectFrom('company_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .where('m.company_id', '=', companyId);

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface UserQuery {
  keyword?: string;
  status?: UserStatus;
  /** Departments whose people are listed (a department and its sub departments, resolved by the caller). */
  departmentIds?: readonly string[];
  sortBy: UserSortField;
  sortOrder: 'asc' | 'desc';
  page: number;
  pageSize: number;
}

/**
 * The sort columns. Those that can be empty put the empty ones last either way; the others keep
 * the plain order, so that the indexes company_members_company_created (created_at desc,
 * account_id) and accounts_username_key (lower(username)) serve the first page directly.
 */
const sortColumns: Record<UserSortField, { column: Expression<unknown>; nullable: boolean }> = {
  createdAt: { column: sql`m.created_at`, nullable: false },
  username: { column: sql`lower(a.username)`, nullable: false },
  name: { column: sql`lower(a.display_name)`, nullable: true },
  lastLoginAt: { column: sql`a.last_login_at`, nullable: true },
  loginCount: { column: sql`a.login_count`, nullable: false },
};

/**
 * One page of the company's users and how many match. Two indexed queries: the count reads only
 * what the filters need (no join at all without keyword and status), the page is a top-N sort.
 */
export async function findUsers(db: Db, companyId: string, query: UserQuery) {
  const keyword = query.keyword?.trim().toLowerCase();
  const filters = () => {
    const conditions: Expression<SqlBool>[] = [];
    if (keyword) {
      const patterns = [`%${escapeLike(keyword)}%`];
      // Phones are stored without spaces and hyphens: "138-0013 8000" finds "13800138000".
      const asPhone = keyword.replace(/[\s-]/g, '');
      if (/^\+?[0-9]+$/.test(asPhone) && asPhone !== keyword) patterns.push(`%${escapeLike(asPhone)}%`);
      conditions.push(
        sql<SqlBool>`(${sql.join(
          patterns.map((p) => sql`${searchText} like ${p}`),
          sql` or `,
        )})`,
      );
    }
    if (query.status === 'enabled')
      conditions.push(
        sql<SqlBool>`m.status = 'enabled' and (a.locked_until is null or a.locked_until <= now())`,
      );
    else if (query.status === 'disabled') conditions.push(sql<SqlBool>`m.status = 'disabled'`);
    else if (query.status === 'locked')
      conditions.push(
        sql<SqlBool>`(m.status = 'locked' or (m.status = 'enabled' and a.locked_until > now()))`,
      );
    if (query.departmentIds) {
      const ids = query.departmentIds.length ? [...query.departmentIds] : [''];
      conditions.push(
        sql<SqlBool>`m.account_id in (select dm.account_id from department_members dm where dm.company_id = ${companyId} and dm.department_id in (${sql.join(ids)}))`,
      );
    }
    return conditions;
  };

  const conditions = filters();
  // Without keyword and status the count reads company_members alone (an index-only scan).
  const joinAccounts = Boolean(keyword || query.status);
  const where = conditions.length ? sql<SqlBool>`and ${sql.join(conditions, sql` and `)}` : sql``;
  const countRow = await sql<{ n: number }>`
    select count(*)::int as n from company_members m
    ${joinAccounts ? sql`join accounts a on a.id = m.account_id` : sql``}
    where m.company_id = ${companyId} ${where}`.execute(db);
  const total = Number(countRow.rows[0]?.n ?? 0);
  if (total === 0 || (query.page - 1) * query.pageSize >= total) return { rows: [] as UserRow[], total };

  const sort = sortColumns[query.sortBy];
  const direction = query.sortOrder === 'asc' ? sql`asc` : sql`desc`;
  const order = sort.nullable ? sql`${direction} nulls last` : direction;
  // The tie-break runs against the sort, as in company_members_company_created.
  const tie = query.sortOrder === 'asc' ? sql`desc` : sql`asc`;
  const rows = await usersOf(db, companyId)
    .select([...userColumns, effectiveStatus.as('status'), fullyManagedColumn.as('fully_managed')])
    .$if(conditions.length > 0, (qb) => qb.where(sql<SqlBool>`${sql.join(conditions, sql` and `)}`))
    .orderBy(sql`${sort.column} ${order}`)
    .orderBy(sql`m.account_id ${tie}`)
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)
    .execute();
  return { rows: rows as UserRow[], total };
}

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

/**
 * Which of username, email and phone another account already has (username and email
 * case-insensitively), and whether any of those accounts is outside `companyId` (then the
 * answer tells the company something about another company's people: identifier-checks.ts).
 */
export async function findTakenIdentifiers(
  db: Db,
  values: { username?: string; email?: string | null; phone?: string | null },
  options: { exceptAccountId?: string; companyId?: string | null } = {},
) {
  const checks: Expression<SqlBool>[] = [];
  if (values.username) checks.push(sql<SqlBool>`lower(username) = ${values.username.toLowerCase()}`);
  if (values.email) checks.push(sql<SqlBool>`lower(email) = ${values.email.toLowerCase()}`);
  if (values.phone) checks.push(sql<SqlBool>`phone = ${values.phone}`);
  if (!checks.length) return { username: false, email: false, phone: false, elsewhere: false };
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
  const rows = await query.limit(3).execute();
  return {
    username: Boolean(
      values.username && rows.some((r) => r.username.toLowerCase() === values.username?.toLowerCase()),
    ),
    email: Boolean(values.email && rows.some((r) => r.email?.toLowerCase() === values.email?.toLowerCase())),
    phone: Boolean(values.phone && rows.some((r) => r.phone === values.phone)),
    elsewhere: rows.some((r) => r.elsewhere),
  };
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

export async function countOtherMemberships(trx: Db, companyId: string, accountId: string): Promise<number> {
  const row = await trx
    .selectFrom('company_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('company_id', '<>', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
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
    .selectFrom('login_events')
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('company_id', '=', companyId), eb('company_id', 'is', null)]));
  const [rows, count] = await Promise.all([
    base
      .select(['created_at', 'result', 'failure_cause', 'client_id', 'ip', 'user_agent'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
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
