import type { ApiResponse } from '../../api/http-client.ts';

/** A resource of one of the company's applications. */
export type Resource = ApiResponse<'/api/v1/manage/permission/resource/list'>['list'][number];
/** A role of the company. */
export type Role = ApiResponse<'/api/v1/manage/permission/role/detail'>;
/** One person of a role. */
export type RoleMember = ApiResponse<'/api/v1/manage/permission/role/member/list'>['list'][number];
/** An authorization as the list answers it. */
export type Authorization = ApiResponse<'/api/v1/manage/permission/authorization/list'>['list'][number];
/** Who would gain and who would lose which access. */
export type AccessImpact = ApiResponse<'/api/v1/manage/permission/authorization/preview'>;
/** Why a person may or may not take an action. */
export type AccessCheck = ApiResponse<'/api/v1/manage/permission/check'>;
/** One application of the company, for the pickers. */
export type AppOption = { value: string; label: string };

/** Where a role's detail screen is (spec §2: /permission/role-detail, hidden, the role in the query). */
export const roleDetailPath = (roleId: string) => `/permission/role-detail?id=${encodeURIComponent(roleId)}`;
