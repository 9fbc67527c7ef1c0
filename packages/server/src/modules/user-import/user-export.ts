import { type Language, type UserStatus, user as userCalls } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { assertDepartmentsInCompany, subtreeIds } from '../department/department.repo.ts';
import { findDepartmentRefs } from '../user/user.repo.ts';
import { findUsers } from '../user/user-list.repo.ts';
import type { ExportColumn } from './columns.ts';
import * as repo from './import.repo.ts';
import { departmentIndex } from './import-rows.ts';
import { writeExport } from './xlsx.ts';

/** Rows the export reads per query: few pages, since each one counts and skips what came before. */
const EXPORT_PAGE = 20_000;

const statusText: Record<Language, Record<UserStatus, string>> = {
  en: { enabled: 'Enabled', disabled: 'Disabled', locked: 'Locked' },
  zh: { enabled: '启用', disabled: '禁用', locked: '锁定' },
};
const roleText: Record<Language, Record<string, string>> = {
  en: {
    owner: 'Owner',
    admin: 'Administrator',
    external_admin: 'External administrator',
    delegated_admin: 'Administrator with a console role',
    member: 'Member',
  },
  zh: {
    owner: '所有者',
    admin: '管理员',
    external_admin: '外部管理员',
    delegated_admin: '控制台角色管理员',
    member: '成员',
  },
};
const yesNo: Record<Language, [string, string]> = { en: ['Yes', 'No'], zh: ['是', '否'] };

/**
 * The company's users that match the user list's filter, as .xlsx, newest first. Read in pages
 * inside one repeatable-read transaction, so a user created meanwhile cannot shift a page.
 */
export async function exportUsers(
  db: Db,
  companyId: string,
  filter: { keyword?: string; status?: UserStatus; departmentId?: string; includeSubDepartments: boolean },
  lang: Language,
) {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      let departmentIds: string[] | undefined;
      if (filter.departmentId) {
        if (filter.includeSubDepartments)
          departmentIds = await subtreeIds(trx, companyId, filter.departmentId);
        else {
          await assertDepartmentsInCompany(trx, companyId, [filter.departmentId]);
          departmentIds = [filter.departmentId];
        }
      }
      const departments = departmentIndex(await repo.findDepartments(trx, companyId));
      async function* rows(): AsyncGenerator<Record<ExportColumn, string>> {
        for (let page = 1; ; page++) {
          const { rows: users } = await findUsers(trx, companyId, {
            keyword: filter.keyword,
            status: filter.status,
            departmentIds,
            sortBy: 'createdAt',
            sortOrder: 'desc',
            page,
            pageSize: EXPORT_PAGE,
          });
          const refs = await findDepartmentRefs(
            trx,
            companyId,
            users.map((u) => u.id),
          );
          for (const u of users)
            yield {
              username: u.username,
              name: u.display_name ?? '',
              nickname: u.nickname ?? '',
              email: u.email ?? '',
              phone: u.phone ?? '',
              departments: (refs.get(u.id) ?? [])
                .map((d) => departments.pathOf(d.departmentId) ?? d.name)
                .sort()
                .join('; '),
              status: statusText[lang][u.status],
              role: roleText[lang][u.role] ?? u.role,
              managed: yesNo[lang][u.home_company_id === companyId ? 0 : 1],
              loginCount: String(u.login_count),
              lastLoginAt: u.last_login_at?.toISOString() ?? '',
              createdAt: u.created_at.toISOString(),
            };
          if (users.length < EXPORT_PAGE) return;
        }
      }
      const bytes = await writeExport(lang, lang === 'zh' ? '用户' : 'Users', rows());
      const date = new Date().toISOString().slice(0, 10);
      return {
        filename: lang === 'zh' ? `用户-${date}.xlsx` : `users-${date}.xlsx`,
        contentType: userCalls.exportUsers.download?.contentType as string,
        bytes,
      };
    });
}
