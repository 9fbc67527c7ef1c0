import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Input, Popconfirm, Typography } from 'antd';
import { Suspense, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { AddMembersModal } from './lazy-parts.ts';
import { type Department, type OrgUser, userDetailPath } from './org-types.ts';
import { displayName } from './user-status.ts';
import { UserStatusTag } from './user-status-tag.tsx';

const PAGE_SIZE = 10;

/** The people directly in a department, with add and remove. */
export function DepartmentMembersCard({
  department,
  onChange,
}: {
  department: Department;
  onChange(): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [query, setQuery] = useState({ page: 1, pageSize: PAGE_SIZE, keyword: '' });
  const [adding, setAdding] = useState(false);
  const load = useCallback(
    () =>
      callApi('/api/v1/manage/user/list', {
        departmentId: department.departmentId,
        includeSubDepartments: false,
        keyword: query.keyword || undefined,
        page: query.page,
        pageSize: query.pageSize,
        sortBy: 'username',
        sortOrder: 'asc',
      }),
    [callApi, department.departmentId, query],
  );
  const { data, loading, reload } = useLoad(load);

  const remove = async (user: OrgUser) => {
    try {
      await callApi('/api/v1/manage/department/member/remove', {
        departmentId: department.departmentId,
        userIds: [user.userId],
      });
      void message.success(t('org.department.removed', { name: displayName(user) }));
      if (data?.list.length === 1 && query.page > 1) setQuery({ ...query, page: query.page - 1 });
      else reload();
      onChange();
    } catch {
      // Shown by the HTTP client.
    }
  };

  const columns: DataColumn<OrgUser>[] = [
    {
      key: 'username',
      title: t('org.users.column.username'),
      render: (user) => <Link to={userDetailPath(user.userId)}>{user.username}</Link>,
    },
    {
      key: 'name',
      title: t('org.users.column.name'),
      render: (user) => <span style={{ wordBreak: 'keep-all' }}>{user.name ?? user.nickname ?? '—'}</span>,
    },
    {
      key: 'email',
      title: t('org.users.column.email'),
      minScreen: 'lg',
      render: (user) =>
        user.email ? (
          <Typography.Text ellipsis={{ tooltip: user.email }} style={{ display: 'block', maxWidth: 200 }}>
            {user.email}
          </Typography.Text>
        ) : (
          '—'
        ),
    },
    { key: 'status', title: t('org.users.column.status'), render: (user) => <UserStatusTag user={user} /> },
    {
      key: 'actions',
      title: t('org.users.column.actions'),
      width: 90,
      render: (user) => (
        <Popconfirm
          title={t('org.department.removeTitle', { name: displayName(user) })}
          okText={t('org.department.remove')}
          okButtonProps={{ danger: true }}
          cancelText={t('common.cancel')}
          onConfirm={() => remove(user)}
        >
          <Button type="link" danger size="small" style={{ paddingInline: 0 }}>
            {t('org.department.remove')}
          </Button>
        </Popconfirm>
      ),
    },
  ];

  return (
    <Card
      title={t('org.department.members', { name: department.name })}
      extra={
        <Button size="small" type="primary" icon={<PlusOutlined />} onClick={() => setAdding(true)}>
          {t('org.department.addMembers')}
        </Button>
      }
      styles={{ header: { flexWrap: 'wrap', rowGap: 8, paddingBlock: 8 } }}
    >
      <Input.Search
        allowClear
        placeholder={t('org.users.searchPlaceholder')}
        aria-label={t('org.users.searchPlaceholder')}
        style={{ maxWidth: 320, marginBottom: 12 }}
        onSearch={(keyword) => setQuery({ ...query, page: 1, keyword: keyword.trim() })}
      />
      <Typography.Paragraph type="secondary" style={{ marginBottom: 12 }}>
        {t('org.department.directOnly')}
      </Typography.Paragraph>
      <DataTable<OrgUser>
        label={t('org.department.members', { name: department.name })}
        testId="department-members"
        rowKey={(user) => user.userId}
        loading={loading}
        columns={columns}
        {...pagedList(data, query, {
          showTotal: (total) => t('org.users.total', { total }),
          onChange: (page, pageSize) => setQuery({ ...query, page, pageSize }),
        })}
      />
      {adding ? (
        <Suspense fallback={null}>
          <AddMembersModal
            department={department}
            onClose={() => setAdding(false)}
            onAdded={() => {
              setAdding(false);
              reload();
              onChange();
            }}
          />
        </Suspense>
      ) : null}
    </Card>
  );
}
