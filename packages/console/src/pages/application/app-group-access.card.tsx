import { ApartmentOutlined, PlusOutlined, TeamOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Typography } from 'antd';
import { Suspense, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { AppDetail } from './app-view.ts';
import { expiryColumn } from './expiry-input.tsx';
import { AssignGroupsModal } from './lazy-parts.ts';

type GroupAssignment = ApiResponse<'/api/v1/manage/app/assignment/group/list'>['list'][number];

/**
 * The departments (their sub departments included) and permission roles assigned to an
 * application, each with the people it reaches now and its expiry.
 */
export function AppGroupAccessCard({ app }: { app: AppDetail }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const [assigning, setAssigning] = useState(false);
  const load = useCallback(
    () => callApi('/api/v1/manage/app/assignment/group/list', { appId: app.appId }),
    [callApi, app.appId],
  );
  const { data, loading, reload } = useLoad(load);

  const remove = (row: GroupAssignment) =>
    void confirm({
      title: t('apps.access.groups.removeTitle', { name: row.name }),
      content: t('apps.access.groups.removeContent'),
      okText: t('apps.access.remove'),
      onOk: async () => {
        await callApi('/api/v1/manage/app/assignment/group/del', {
          appId: app.appId,
          departmentIds: row.kind === 'department' ? [row.targetId] : [],
          roleIds: row.kind === 'role' ? [row.targetId] : [],
        });
        void message.success(t('apps.access.groups.removed', { name: row.name }));
        reload();
      },
    });

  const columns: DataColumn<GroupAssignment>[] = [
    {
      key: 'name',
      title: t('apps.access.groups.column.name'),
      render: (row) => (
        <Flex gap={8} align="start">
          <span aria-hidden style={{ paddingTop: 2 }}>
            {row.kind === 'department' ? <ApartmentOutlined /> : <TeamOutlined />}
          </span>
          <Flex vertical>
            <span>{row.name}</span>
            <Typography.Text type="secondary">
              {row.kind === 'department'
                ? (row.path ?? t('apps.access.groups.kindDepartment'))
                : t('apps.access.groups.kindRole')}
            </Typography.Text>
          </Flex>
        </Flex>
      ),
    },
    {
      key: 'people',
      title: t('apps.access.groups.column.people'),
      render: (row) => (
        <span style={{ whiteSpace: 'nowrap' }}>
          {t('apps.access.groups.peopleCount', { count: row.people })}
        </span>
      ),
    },
    expiryColumn(t('apps.access.groups.column.expiresAt')),
    {
      key: 'actions',
      title: t('apps.access.groups.column.actions'),
      render: (row) => (
        <Button type="link" size="small" danger style={{ paddingInline: 0 }} onClick={() => remove(row)}>
          {t('apps.access.remove')}
        </Button>
      ),
    },
  ];

  return (
    <Card
      size="small"
      title={t('apps.access.groups.title')}
      extra={
        <Button type="primary" size="small" icon={<PlusOutlined />} onClick={() => setAssigning(true)}>
          {t('apps.access.groups.assign')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t('apps.access.groups.hint')}</Typography.Paragraph>
      {data && !data.list.length ? (
        <Typography.Text type="secondary">{t('apps.access.groups.empty')}</Typography.Text>
      ) : (
        <DataTable<GroupAssignment>
          label={t('apps.access.groups.title')}
          testId="group-assignments"
          rowKey={(row) => `${row.kind}:${row.targetId}`}
          loading={loading}
          columns={columns}
          rows={data?.list ?? []}
        />
      )}
      {assigning ? (
        <Suspense fallback={null}>
          <AssignGroupsModal
            appId={app.appId}
            onClose={() => setAssigning(false)}
            onDone={() => {
              setAssigning(false);
              reload();
            }}
          />
        </Suspense>
      ) : null}
    </Card>
  );
}
