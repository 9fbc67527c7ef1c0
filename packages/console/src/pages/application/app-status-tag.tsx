import type { AppStatus } from '@tessera/contract/constants';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { camel, statusColor } from './app-view.ts';

export function AppStatusTag({ status }: { status: AppStatus }) {
  const { t } = useTranslation();
  return (
    <Tag color={statusColor[status]} bordered={false} style={{ marginInlineEnd: 0 }} data-status={status}>
      {t(`apps.status.${camel(status)}`)}
    </Tag>
  );
}
