import { Card, Descriptions, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDate } from '../../lib/format/date.ts';
import { memberRoleView } from '../settings/member-roles.ts';
import type { OrgUser } from './org-types.ts';

/** The account's facts: id, role, sign-in statistics (spec §3 User). */
export function UserAccountCard({ user }: { user: OrgUser }) {
  const { t } = useTranslation();
  const time = (value: string | null, empty: string) => (value ? formatDate(value) : empty);
  return (
    <Card title={t('org.detail.account')} size="small">
      <Descriptions
        column={1}
        size="small"
        styles={{ label: { width: '45%' } }}
        items={[
          {
            key: 'userId',
            label: t('org.detail.userId'),
            children: (
              <Typography.Text copyable code style={{ wordBreak: 'break-all' }}>
                {user.userId}
              </Typography.Text>
            ),
          },
          {
            key: 'role',
            label: t('org.detail.role'),
            children: (
              <Tag color={memberRoleView[user.role].color} bordered={false}>
                {t(memberRoleView[user.role].label)}
              </Tag>
            ),
          },
          { key: 'createdAt', label: t('org.detail.createdAt'), children: formatDate(user.createdAt) },
          { key: 'loginCount', label: t('org.detail.loginCount'), children: user.loginCount },
          {
            key: 'lastLoginAt',
            label: t('org.detail.lastLoginAt'),
            children: time(user.lastLoginAt, t('org.users.never')),
          },
          { key: 'failedCount', label: t('org.detail.failedCount'), children: user.failedCount },
          {
            key: 'lastFailedAt',
            label: t('org.detail.lastFailedAt'),
            children: time(user.lastFailedAt, '—'),
          },
          {
            key: 'mustChange',
            label: t('org.detail.mustChange'),
            children: user.mustChangePassword ? t('org.detail.yes') : t('org.detail.no'),
          },
        ]}
      />
    </Card>
  );
}
