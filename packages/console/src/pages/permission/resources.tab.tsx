import { PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Select, Space, Tag } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { KeywordSearch } from '../../components/keyword-search.tsx';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { AppOption, Resource } from './permission-types.ts';
import { ResourceFormModal } from './resource-form.modal.tsx';

/** The Resources tab: the resources of the company's applications, by application and keyword. */
export function ResourcesTab({ apps }: { apps: AppOption[] }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const [query, setQuery] = useState({
    page: 1,
    pageSize: 20,
    keyword: '',
    appId: undefined as string | undefined,
  });
  const [editing, setEditing] = useState<Resource | null>();

  const load = useCallback(
    () =>
      callApi('/api/v1/manage/permission/resource/list', {
        page: query.page,
        pageSize: query.pageSize,
        appId: query.appId,
        keyword: query.keyword || undefined,
      }),
    [callApi, query],
  );
  const { data, loading, reload } = useLoad(load);

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
    {
      key: 'actions',
      title: t('permission.common.actions'),
      width: 140,
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => setEditing(row)}>
            {t('permission.common.edit')}
          </Button>
          <Button type="link" size="small" danger onClick={() => void remove(row)}>
            {t('permission.common.delete')}
          </Button>
        </Space>
      ),
    },
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
            onChange={(appId?: string) => setQuery({ ...query, page: 1, appId })}
            style={{ width: 200 }}
          />
          <KeywordSearch
            keyword={query.keyword}
            placeholder={t('permission.resource.searchPlaceholder')}
            onSearch={(keyword) => setQuery({ ...query, page: 1, keyword })}
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
        rows={data?.list ?? []}
        rowKey={(row) => row.resourceId}
        loading={loading}
        paging={{
          page: query.page,
          pageSize: query.pageSize,
          total: data?.total ?? 0,
          showTotal: (count) => t('permission.common.total', { count }),
          onChange: (page, pageSize) => setQuery({ ...query, page, pageSize }),
        }}
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
