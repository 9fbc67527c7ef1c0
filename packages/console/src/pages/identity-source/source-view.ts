import type { IdentitySourceType } from '@tessera/contract/constants';
import type { ApiRequest, ApiResponse } from '../../api/http-client.ts';

/** A source as the list answers it. */
export type SourceSummary = ApiResponse<'/api/v1/manage/identity-source/list'>['list'][number];
/** A source with its settings (never its secret). */
export type SourceDetail = ApiResponse<'/api/v1/manage/identity-source/detail'>;
export type LdapDetail = Extract<SourceDetail, { type: 'ldap' }>;
export type ScanDetail = Exclude<SourceDetail, { type: 'ldap' | 'oidc' | 'saml' }>;
export type OidcDetail = Extract<SourceDetail, { type: 'oidc' }>;
export type SamlDetail = Extract<SourceDetail, { type: 'saml' }>;
export type ScanType = ScanDetail['type'];
/** The settings the create call takes for a type. */
export type SourceInput<T extends IdentitySourceType> = Extract<
  ApiRequest<'/api/v1/manage/identity-source/create'>,
  { type: T }
>;
export type SyncRun = ApiResponse<'/api/v1/manage/identity-source/sync/run'>;

export const SOURCE_LIST_PATH = '/identity-source/index';
export const SELECT_SOURCE_PATH = '/identity-source/select-identity-source';
export const ADD_LDAP_PATH = '/identity-source/add-ldap';

/** The screen of each type (spec §2 names), for a new source or an existing one. */
const screenOf: Record<IdentitySourceType, string> = {
  ldap: '/identity-source/ldap-detail',
  dingtalk: '/identity-source/dingtalk',
  weixin: '/identity-source/weixin',
  work_weixin: '/identity-source/WorkWeixin',
  oidc: '/identity-source/oidc',
  saml: '/identity-source/saml',
};
export const newSourcePath = (type: IdentitySourceType) => (type === 'ldap' ? ADD_LDAP_PATH : screenOf[type]);
export const sourcePath = (type: IdentitySourceType, sourceId: string) =>
  `${screenOf[type]}/${encodeURIComponent(sourceId)}`;
