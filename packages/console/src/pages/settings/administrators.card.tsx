import { DeleteOutlined, PlusOutlined, UserDeleteOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Input, Popconfirm, Tag } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole, useSession } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { AddAdministratorModal } from './add-administrator.modal.tsx';
import { memberRoleView } from './member-roles.ts';

type Member = ApiResponse<'/api/v1/manage/company/user'>['list'][number];

const DEFAULT_PAGE_SIZE = 10;

/**
 * The company's administrators (issue 35): the owner, administrators, external administrators and
 * holders of a custom console role, not plain members; search, paging, add, revoke and remove.
 */
export function AdministratorsCard() {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const { username } = useSession();
  const [query, setQuery] = useState({ page: 1, pageSize: DEFAULT_PAGE_SIZE, keyword: '' });
  const [adding, setAdding] = useState(false);

  const load = useCallback(
    () =>
      callApi('/api/v1/manage/company/user', {
        page: query.page,
        pageSize: query.pageSize,
        keyword: query.keyword || undefined,
        adminsOnly: true,
      }),
    [callApi, query],
  );
  const { data, loading, reload } = useLoad(load);

  // Either way the person leaves this list.
  const takeOut = async (member: Member, revoke: boolean) => {
    try {
      if (revoke)
        await callApi('/api/v1/manage/company/user/role', { userId: member.userId, role: 'member' });
      else await callApi('/api/v1/manage/company/user/del', { userId: member.userId });
      void message.success(t(revoke ? 'settings.revoked' : 'settings.removed', { name: member.username }));
      const lastOnPage = data?.list.length === 1 && query.page > 1;
      if (lastOnPage) setQuery({ ...query, page: query.page - 1 });
      else reload();
    } catch {
      // The HTTP client has shown why (an external administrator's peer, for instance).
    }
  };

  const columns: DataColumn<Member>[] = [
    { key: 'username', title: t('settings.column.username'), render: (member) => member.username },
    {
      key: 'email',
      title: t('settings.column.email'),
      minScreen: 'md',
      render: (member) => member.email ?? '—',
    },
    {
      key: 'phone',
      title: t('settings.column.phone'),
      minScreen: 'lg',
      render: (member) => member.phone ?? '—',
    },
    {
      key: 'role',
      title: t('settings.column.role'),
      render: (member) => (
        <Tag color={memberRoleView[member.role].color} bordered={false}>
          {member.consoleRole?.name ?? t(memberRoleView[member.role].label)}
        </Tag>
      ),
    },
    {
      key: 'createdAt',
      title: t('settings.column.createdAt'),
      minScreen: 'lg',
      render: (member) => <span style={{ whiteSpace: 'nowrap' }}>{formatDate(member.createdAt)}</span>,
    },
    {
      key: 'actions',
      title: t('settings.column.actions'),
      width: 170,
      render: (member) =>
        member.isOwner || member.username === username ? null : (
          <Flex gap={12}>
            <Popconfirm
              title={t('settings.revokeTitle', { name: member.username })}
              okText={t('settings.revoke')}
              cancelText={t('common.cancel')}
              onConfirm={() => takeOut(member, true)}
            >
              <Button type="link" size="small" icon={<UserDeleteOutlined />} style={{ paddingInline: 0 }}>
                {t('settings.revoke')}
              </Button>
            </Popconfirm>
            <Popconfirm
              title={t('settings.removeTitle', { name: member.username })}
              okText={t('settings.remove')}
              okButtonProps={{ danger: true }}
              cancelText={t('common.cancel')}
              onConfirm={() => takeOut(member, false)}
            >
              <Button type="link" danger size="small" icon={<DeleteOutlined />} style={{ paddingInline: 0 }}>
                {t('settings.remove')}
              </Button>
            </Popconfirm>
          </Flex>
        ),
    },
  ];

  return (
    <Card
      title={t('settings.adminsTitle')}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setAdding(true)}>
          {t('settings.addAdmin')}
        </Button>
      }
    >
      <Flex style={{ marginBottom: 16 }}>
        <Input.Search
          allowClear
          placeholder={t('settings.searchPlaceholder')}
          aria-label={t('settings.searchPlaceholder')}
          style={{ maxWidth: 320 }}
          onSearch={(keyword) => setQuery({ ...query, page: 1, keyword: keyword.trim() })}
        />
      </Flex>
      <DataTable<Member>
        label={t('settings.adminsTitle')}
        testId="administrators"
        rowKey={(member) => member.userId}
        loading={loading}
        columns={columns}
        {...pagedList(data, query, {
          showTotal: (total) => t('settings.total', { total }),
          onChange: (page, pageSize) => setQuery({ ...query, page, pageSize }),
        })}
      />
      <AddAdministratorModal
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={() => {
          setAdding(false);
          if (query.page === 1) reload();
          else setQuery({ ...query, page: 1 });
        }}
      />
    </Card>
  );
}
