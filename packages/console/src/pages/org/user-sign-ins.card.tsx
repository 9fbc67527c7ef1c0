import { Card, Tag, Tooltip, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { LoginRecord } from './org-types.ts';

const PAGE_SIZE = 10;

/** The user's recent sign-ins, newest first (`log`). */
export function UserSignInsCard({ userId }: { userId: string }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [paging, setPaging] = useState({ page: 1, pageSize: PAGE_SIZE });
  const load = useCallback(
    () => callApi('/api/v1/manage/user/log', { userId, ...paging }),
    [callApi, userId, paging],
  );
  const { data, loading } = useLoad(load);

  const columns: DataColumn<LoginRecord>[] = [
    {
      key: 'time',
      title: t('org.detail.column.time'),
      render: (record) => <span style={{ whiteSpace: 'nowrap' }}>{formatDate(record.time)}</span>,
    },
    {
      key: 'result',
      title: t('org.detail.column.result'),
      render: (record) =>
        record.result === 'success' ? (
          <Tag color="green" bordered={false}>
            {t('org.detail.success')}
          </Tag>
        ) : (
          <Tooltip title={record.causeText ?? undefined}>
            <Tag color="red" bordered={false} tabIndex={record.causeText ? 0 : undefined}>
              {t('org.detail.failure')}
              {record.causeText ? `: ${record.causeText}` : ''}
            </Tag>
          </Tooltip>
        ),
    },
    { key: 'ip', title: t('org.detail.column.ip'), minScreen: 'md', render: (record) => record.ip ?? '—' },
    {
      key: 'client',
      title: t('org.detail.column.client'),
      minScreen: 'lg',
      render: (record) => record.appName ?? record.clientId ?? '—',
    },
    {
      key: 'device',
      title: t('org.detail.column.device'),
      minScreen: 'lg',
      render: (record) =>
        record.userAgent ? (
          <Typography.Text
            type="secondary"
            ellipsis={{ tooltip: record.userAgent }}
            style={{ maxWidth: 320 }}
          >
            {record.userAgent}
          </Typography.Text>
        ) : (
          '—'
        ),
    },
  ];

  return (
    <Card title={t('org.detail.signIns')}>
      <DataTable<LoginRecord>
        label={t('org.detail.signIns')}
        testId="user-sign-ins"
        rowKey={(record) => `${record.time}:${record.result}:${record.ip ?? ''}`}
        loading={loading}
        columns={columns}
        rows={data?.list ?? []}
        paging={{
          page: paging.page,
          pageSize: paging.pageSize,
          total: data?.total ?? 0,
          onChange: (page, pageSize) => setPaging({ page, pageSize }),
        }}
      />
    </Card>
  );
}
