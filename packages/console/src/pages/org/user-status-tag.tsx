import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDate } from '../../lib/format/date.ts';
import type { OrgUser } from './org-types.ts';
import { lockedOut, userStatusView } from './user-status.ts';

/** The status of a user; an automatic lock-out shows as locked, with its end. */
export function UserStatusTag({ user }: { user: Pick<OrgUser, 'status' | 'lockedUntil'> }) {
  const { t } = useTranslation();
  if (user.status === 'enabled' && lockedOut(user)) {
    return (
      <Tooltip title={t('org.status.lockedOut', { time: formatDate(user.lockedUntil) })}>
        <Tag color={userStatusView.locked.color} bordered={false} tabIndex={0}>
          {t(userStatusView.locked.label)}
        </Tag>
      </Tooltip>
    );
  }
  const view = userStatusView[user.status];
  return (
    <Tag color={view.color} bordered={false}>
      {t(view.label)}
    </Tag>
  );
}
