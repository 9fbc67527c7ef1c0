import { PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { KeywordSearch } from '../../components/keyword-search.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { usePagedList } from './paged-list.tsx';
import { type Role, roleDetailPath } from './permission-types.ts';
import { RoleFormModal } from './role-form.modal.tsx';

/** The Roles tab: the company's roles, searched; a role opens on /permission/role-detail. */
export function RolesTab() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const navigate = useNavigate();
  const [editing, setEditing] = useState<Role | null>();

  const { query, filter, rows, loading, reload, paging } = usePagedList(
    { page: 1, pageSize: 20, keyword: '' },
    (q) => callApi('/api/v1/manage/permission/role/list', { ...q, keyword: q.keyword || undefined }),
  );

  const remove = (role: Role) =>
    confirm({
      title: t('permission.role.deleteTitle', { name: role.name }),
      content: t('permission.role.deleteContent'),
      okText: t('permission.common.delete'),
      onOk: async () => {
        await callApi('/api/v1/manage/permission/role/del', { roleId: role.roleId });
        void message.success(t('permission.role.deleted', { name: role.name }));
        reload();
      },
    });

  const columns: DataColumn<Role>[] = [
    {
      key: 'name',
      title: t('permission.role.name'),
      render: (row) => (
        <Link to={roleDetailPath(row.roleId)}>
          <strong>{row.name}</strong>
        </Link>
      ),
    },
    { key: 'description', title: t('permission.role.description'), render: (row) => row.description },
    { key: 'members', title: t('permission.role.members'), render: (row) => row.memberCount, align: 'right' },
    {
      key: 'authorizations',
      title: t('permission.role.authorizations'),
      render: (row) => row.authorizationCount,
      align: 'right',
      minScreen: 'md',
    },
    {
      key: 'updatedAt',
      title: t('permission.common.updatedAt'),
      render: (row) => formatDate(row.updatedAt, 'YYYY-MM-DD HH:mm'),
      minScreen: 'lg',
    },
    {
      key: 'actions',
      title: t('permission.common.actions'),
      width: 180,
      render: (row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => navigate(roleDetailPath(row.roleId))}>
            {t('permission.role.open')}
          </Button>
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
        <KeywordSearch
          keyword={query.keyword}
          placeholder={t('permission.role.searchPlaceholder')}
          onSearch={(keyword) => filter({ keyword })}
        />
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing(null)}>
          {t('permission.role.create')}
        </Button>
      </Flex>
      <DataTable
        label={t('permission.tabs.roles')}
        testId="roles"
        columns={columns}
        rows={rows}
        rowKey={(row) => row.roleId}
        loading={loading}
        paging={paging}
      />
      <RoleFormModal
        target={editing}
        onClose={() => setEditing(undefined)}
        onSaved={() => {
          setEditing(undefined);
          reload();
        }}
      />
    </>
  );
}
