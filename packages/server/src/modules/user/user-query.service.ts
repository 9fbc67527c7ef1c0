import { type Language, serverPhrases, type UserSortField, type UserStatus } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { assertDepartmentsInCompany, subtreeIds } from '../department/department.repo.ts';
import { fileUrl } from '../files/files.ts';
import * as users from './user.repo.ts';
import { findUsers } from './user-list.repo.ts';
import { findExisting, presentUser, toUser } from './user-view.ts';

/** What the console and the portal read of users: the list, one user, their sign-ins, oneself. */
export function createUserQueryService(deps: { db: Db }) {
  const { db } = deps;

  async function list(
    companyId: string,
    query: {
      keyword?: string;
      status?: UserStatus;
      departmentId?: string;
      includeSubDepartments: boolean;
      sortBy: UserSortField;
      sortOrder: 'asc' | 'desc';
      page: number;
      pageSize: number;
    },
  ) {
    let departmentIds: string[] | undefined;
    if (query.departmentId) {
      if (query.includeSubDepartments) departmentIds = await subtreeIds(db, companyId, query.departmentId);
      else {
        await assertDepartmentsInCompany(db, companyId, [query.departmentId]);
        departmentIds = [query.departmentId];
      }
    }
    const { rows, total } = await findUsers(db, companyId, { ...query, departmentIds });
    const departments = await users.findDepartmentRefs(
      db,
      companyId,
      rows.map((r) => r.id),
    );
    return { list: rows.map((row) => toUser(row, departments)), total };
  }

  const detail = (companyId: string, userId: string) => presentUser(db, companyId, userId);

  async function log(
    companyId: string,
    lang: Language,
    query: { userId: string; page: number; pageSize: number },
  ) {
    const row = await findExisting(db, companyId, query.userId);
    const { rows, total } = await users.findLoginEvents(db, companyId, row.id, query.page, query.pageSize);
    const causes = serverPhrases[lang].loginCauses as Record<string, string>;
    return {
      list: rows.map((event) => ({
        time: event.created_at.toISOString(),
        result: event.result,
        cause: event.failure_cause,
        causeText: event.failure_cause ? (causes[event.failure_cause] ?? event.failure_cause) : null,
        clientId: event.client_id,
        appName: event.app_name,
        ip: event.ip,
        userAgent: event.user_agent,
      })),
      total,
    };
  }

  async function selfDetails(accountId: string) {
    const account = await users.findSelf(db, accountId);
    if (!account) throw new AppError('auth.login_required');
    return {
      userId: account.id,
      username: account.username,
      name: account.display_name,
      nickname: account.nickname,
      photo: fileUrl(account.photo_file_id),
    };
  }

  return { list, detail, log, selfDetails };
}
