import { type AppStatus, type AppTemplate, appTemplates } from '@tessera/contract/constants';
import type { TFunction } from 'i18next';
import type { ApiResponse } from '../../api/http-client.ts';

/** An application as the list answers it. */
export type AppSummary = ApiResponse<'/api/v1/manage/app/list'>['list'][number];
/** An application with its OIDC settings and metadata document. */
export type AppDetail = ApiResponse<'/api/v1/manage/app/detail'>;

export const APP_LIST_PATH = '/application/index';
export const SELECT_APP_PATH = '/application/select-app';
export const appDetailPath = (appId: string) => `/application/detail?appId=${encodeURIComponent(appId)}`;

/** The colour of each status tag (spec §4: to be configured → opened ↔ disabled). */
export const statusColor: Record<AppStatus, string> = {
  to_be_configured: 'gold',
  opened: 'green',
  disabled: 'default',
};

/** What the enable/disable action of an app sets, or undefined when none applies. */
export const toggledStatus = (status: AppStatus): 'opened' | 'disabled' =>
  status === 'opened' ? 'disabled' : 'opened';

export const templateOf = (key: string | null | undefined): AppTemplate | undefined =>
  key ? appTemplates.find((template) => template.key === key) : undefined;

/** What adding an application answers: the app and its client secret, shown once. */
export type CreatedApp = ApiResponse<'/api/v1/manage/app/create'>;

/** Catalogue applications whose name differs by language (飞书, 禅道, 阿里云...). */
const localisedNames = {
  legacy_form: 'legacyForm',
  feishu: 'feishu',
  zentao: 'zentao',
  aliyun_ram: 'aliyunRam',
  tencent_cam: 'tencentCam',
  huawei_iam: 'huaweiIam',
  cas_self_built: 'casSelfBuilt',
} as const;

/** A catalogue application's name in the shown language (other product names stay as they are). */
export const templateName = (t: TFunction, template: AppTemplate): string => {
  const key = localisedNames[template.key as keyof typeof localisedNames];
  return key ? t(`apps.templateName.${key}`) : template.name;
};

export { camel } from '../../lib/camel.ts';
