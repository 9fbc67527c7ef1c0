import type { AppStatus } from '@tessera/contract/constants';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { camel, statusColor } from './app-view.ts';

/** An app's status; `ready` (known on the detail) says a to-be-configured app has all it needs. */
export function AppStatusTag({ status, ready = false }: { status: AppStatus; ready?: boolean }) {
  const { t } = useTranslation();
  const readyToEnable = ready && status === 'to_be_configured';
  return (
    <Tag
      color={readyToEnable ? 'blue' : statusColor[status]}
      bordered={false}
      style={{ marginInlineEnd: 0 }}
      data-status={status}
    >
      {readyToEnable ? t('apps.status.readyToEnable') : t(`apps.status.${camel(status)}`)}
    </Tag>
  );
}
