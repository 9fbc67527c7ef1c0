import type { UserSortField, UserStatus } from '@tessera/contract';
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { effectiveStatus, searchText, type UserRow, userColumns, usersOf } from './user.repo.ts';
import { fullyManagedColumn } from './user-authority.ts';

/** The company's list of users: the keyword search, the filters, the sort and the page. */

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
