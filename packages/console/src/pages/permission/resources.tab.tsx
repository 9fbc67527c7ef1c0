import { PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Select, Space, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { KeywordSearch } from '../../components/keyword-search.tsx';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { editDeleteColumn, usePagedList } from './paged-list.tsx';
import type { AppOption, Resource } from './permission-types.ts';
import { ResourceFormModal } from './resource-form.modal.tsx';

/** The Resources tab: the resources of the company's applications, by application and keyword. */
export function ResourcesTab({ apps }: { apps: AppOption[] }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const [editing, setEditing] = useState<Resource | null>();

  const { query, filter, rows, loading, reload, paging } = usePagedList(
    { page: 1, pageSize: 20, keyword: '', appId: undefined as string | undefined },
    (q) => callApi('/api/v1/manage/permission/resource/list', { ...q, keyword: q.keyword || undefined }),
  );

  const remove = (resource: Resource) =>
    confirm({
      title: t('permission.resource.deleteTitle', { name: resource.name }),
      content: t('permission.resource.deleteContent'),
      okText: t('permission.common.delete'),
      onOk: async () => {
        await callApi('/api/v1/manage/permission/resource/del', { resourceId: resource.resourceId });
        void message.success(t('permission.resource.deleted', { name: resource.name }));
        reload();
      },
    });

  const columns: DataColumn<Resource>[] = [
    { key: 'name', title: t('permission.resource.name'), render: (row) => <strong>{row.name}</strong> },
    { key: 'app', title: t('permission.common.app'), render: (row) => row.appName },
    {
      key: 'type',
      title: t('permission.resource.type'),
      render: (row) => t(`permission.resource.types.${row.type}`),
      minScreen: 'md',
    },
    {
      key: 'actionTypes',
      title: t('permission.resource.actions'),
      render: (row) => (
        <Flex wrap gap={4}>
          {row.actions.map((action) => (
            <Tag key={action}>{action}</Tag>
          ))}
        </Flex>
      ),
    },
    {
      key: 'description',
      title: t('permission.resource.description'),
      render: (row) => row.description ?? '',
      minScreen: 'lg',
    },
    editDeleteColumn<Resource>(
      t,
      (row) => setEditing(row),
      (row) => void remove(row),
    ),
  ];

  return (
    <>
      <Flex justify="space-between" gap={8} wrap style={{ marginBottom: 16 }}>
        <Space wrap>
          <Select
            allowClear
            aria-label={t('permission.common.app')}
            placeholder={t('permission.common.allApps')}
            options={apps}
            value={query.appId}
            onChange={(appId?: string) => filter({ appId })}
            style={{ width: 200 }}
          />
          <KeywordSearch
            keyword={query.keyword}
            placeholder={t('permission.resource.searchPlaceholder')}
            onSearch={(keyword) => filter({ keyword })}
          />
        </Space>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing(null)}>
          {t('permission.resource.create')}
        </Button>
      </Flex>
      <DataTable
        label={t('permission.tabs.resources')}
        testId="resources"
        columns={columns}
        rows={rows}
        rowKey={(row) => row.resourceId}
        loading={loading}
        paging={paging}
      />
      <ResourceFormModal
        target={editing}
        apps={apps}
        defaultAppId={query.appId ?? apps[0]?.value}
        onClose={() => setEditing(undefined)}
        onSaved={() => {
          setEditing(undefined);
          reload();
        }}
      />
    </>
  );
}
