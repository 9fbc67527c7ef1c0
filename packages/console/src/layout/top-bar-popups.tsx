import { Descriptions, Dropdown, Popover, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../api/http-client.ts';
import type { SystemInfo } from '../app/console-context.ts';
import { formatDate } from '../lib/format/date.ts';

/**
 * The top bar's popups (menus and the version details): a chunk of their own, loaded when a
 * top-bar button is first pointed at, focused or clicked, so the first screen shows the bar
 * without antd's Dropdown and Popover.
 */
export { Dropdown, Popover };

export type LicenceSummary = ApiResponse<'/api/v1/manage/license/info'>['Info'][number];

/** Spec §2: the version and either 'Not Active' or the licence's expiration time. */
export function VersionDetails({
  system,
  licence,
}: {
  system: SystemInfo | null;
  licence: LicenceSummary | null;
}) {
  const { t } = useTranslation();
  const licenceText = !licence
    ? t('layout.unknown')
    : licence.status === 'not_active' || !licence.expiresAt
      ? t('layout.notActive')
      : t(licence.status === 'expired' ? 'layout.expiredAt' : 'layout.expiresAt', {
          date: formatDate(licence.expiresAt),
        });
  return (
    <Descriptions
      size="small"
      column={1}
      style={{ minWidth: 240 }}
      items={[
        { key: 'version', label: t('layout.version'), children: system?.version ?? t('layout.unknown') },
        { key: 'build', label: t('layout.build'), children: system?.build ?? t('layout.unknown') },
        {
          key: 'licence',
          label: t('layout.licence'),
          children: (
            <span data-testid="licence-summary">
              {licence?.status === 'expired' ? <Tag color="error">{licenceText}</Tag> : licenceText}
              {licence?.status === 'normal' && licence.reduceDay !== null ? (
                <div>{t('layout.daysLeft', { count: licence.reduceDay })}</div>
              ) : null}
            </span>
          ),
        },
      ]}
    />
  );
}
