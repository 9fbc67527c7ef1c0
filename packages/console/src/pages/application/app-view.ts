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

/** A catalogue application's name in the shown language (product names stay as they are). */
export const templateName = (t: TFunction, template: AppTemplate): string =>
  template.key === 'legacy_form' ? t('apps.templateName.legacyForm') : template.name;

export { camel } from '../../lib/camel.ts';
