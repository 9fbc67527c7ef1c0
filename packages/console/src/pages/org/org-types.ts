import type { ApiResponse } from '../../api/http-client.ts';

/** A user of the current company as the user calls return it. */
export type OrgUser = ApiResponse<'/api/v1/manage/user/detail'>;
/** One node of the department tree, with its sub departments. */
export type Department = ApiResponse<'/api/v1/manage/department/tree'>['tree'];
/** An import task as `batch-task` reports it. */
export type ImportTask = ApiResponse<'/api/v1/manage/user/batch-task'>;
/** One sign-in of a user (`log`). */
export type LoginRecord = ApiResponse<'/api/v1/manage/user/log'>['list'][number];

/** Where a user's detail screen is (spec §2: /org/user-detail, hidden, the user in the query). */
export const userDetailPath = (userId: string) => `/org/user-detail?id=${encodeURIComponent(userId)}`;

/** Router state of a link from the list to a detail: the list's query, to come back to it. */
export const fromList = (params: URLSearchParams) => ({ listSearch: params.toString() });
