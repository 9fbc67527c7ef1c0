import {
  type UserSortField,
  type UserStatus,
  userSortFields,
  userStatuses,
} from '@tessera/contract/constants';
import type { ApiRequest } from '../../api/http-client.ts';
import { oneOfParam, pageSizeParam, positiveParam } from '../../lib/list-query.ts';

/** What the user list shows; kept in the address so that going back to the list restores it. */
export interface UsersQuery {
  page: number;
  pageSize: number;
  keyword: string;
  status?: UserStatus;
  departmentId?: string;
  includeSubDepartments: boolean;
  sortBy: UserSortField;
  sortOrder: 'asc' | 'desc';
}

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const defaultUsersQuery: UsersQuery = {
  page: 1,
  pageSize: 20,
  keyword: '',
  includeSubDepartments: true,
  sortBy: 'createdAt',
  sortOrder: 'desc',
};

/** The query of the address (unknown or broken values fall back to the defaults). */
export function parseUsersQuery(params: URLSearchParams): UsersQuery {
  return {
    page: positiveParam(params.get('page'), 1),
    pageSize: pageSizeParam(params.get('pageSize'), PAGE_SIZES, defaultUsersQuery.pageSize),
    keyword: params.get('keyword')?.trim() ?? '',
    status: oneOfParam(userStatuses, params.get('status')),
    departmentId: params.get('department') || undefined,
    includeSubDepartments: params.get('sub') !== '0',
    sortBy: oneOfParam(userSortFields, params.get('sortBy')) ?? defaultUsersQuery.sortBy,
    sortOrder: params.get('sortOrder') === 'asc' ? 'asc' : 'desc',
  };
}

/** The address query of a list query; defaults are left out. */
export function usersQueryParams(query: UsersQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.page !== 1) params.set('page', String(query.page));
  if (query.pageSize !== defaultUsersQuery.pageSize) params.set('pageSize', String(query.pageSize));
  if (query.keyword) params.set('keyword', query.keyword);
  if (query.status) params.set('status', query.status);
  if (query.departmentId) params.set('department', query.departmentId);
  if (!query.includeSubDepartments) params.set('sub', '0');
  if (query.sortBy !== defaultUsersQuery.sortBy) params.set('sortBy', query.sortBy);
  if (query.sortOrder !== defaultUsersQuery.sortOrder) params.set('sortOrder', query.sortOrder);
  return params;
}

/** The filter part of a query, as the list and the export take it. */
export function userFilterOf(query: UsersQuery) {
  return {
    keyword: query.keyword || undefined,
    status: query.status,
    departmentId: query.departmentId,
    includeSubDepartments: query.includeSubDepartments,
  } satisfies ApiRequest<'/api/v1/manage/user/export'>;
}
