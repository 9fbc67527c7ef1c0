import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { consoleGroups } from '@tessera/contract/constants';
import { Button, Card, Flex, Popconfirm, Tag, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { type ConsoleRole, ConsoleRoleModal } from './console-role.modal.tsx';

/**
 * The company's custom console roles (issue 35), beside the Administrators card where people are
 * given them: each with what it grants and how many people hold it; create, change and delete
 * (its holders become plain members again).
 */
export function ConsoleRolesCard({ onChanged }: { onChanged?(): void }) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const load = useCallback(() => callApi('/api/v1/manage/console-role/list', {}), [callApi]);
  const { data, loading, reload } = useLoad(load);
  // undefined: closed; null: a new role.
  const [editing, setEditing] = useState<ConsoleRole | null | undefined>(undefined);

  const remove = async (role: ConsoleRole) => {
    try {
      const deleted = await callApi('/api/v1/manage/console-role/del', { roleId: role.roleId });
      void message.success(
        t('settings.consoleRoles.deleted', { name: role.name, count: deleted.membersReturned }),
      );
      reload();
      onChanged?.();
    } catch {
      // The HTTP client has shown why.
    }
  };

  const columns: DataColumn<ConsoleRole>[] = [
    {
      key: 'name',
      title: t('settings.consoleRoles.name'),
      render: (role) => (
        <Flex vertical>
          <Typography.Text strong>{role.name}</Typography.Text>
          {role.description ? <Typography.Text type="secondary">{role.description}</Typography.Text> : null}
        </Flex>
      ),
    },
    {
      key: 'grants',
      title: t('settings.consoleRoles.grants'),
      render: (role) => (
        <Flex wrap gap={4}>
          {consoleGroups
            .filter((group) => role.grants.groups[group])
            .map((group) => (
              <Tag
                key={group}
                bordered={false}
                color={role.grants.groups[group] === 'manage' ? 'blue' : 'default'}
              >
                {t(`settings.consoleRoles.group.${group}`)} ·{' '}
                {t(`settings.consoleRoles.level.${role.grants.groups[group] ?? 'none'}`)}
              </Tag>
            ))}
          {role.grants.abilities.map((ability) => (
            <Tag key={ability} bordered={false} color="cyan">
              {t(`settings.consoleRoles.abilityShort.${ability}`)}
            </Tag>
          ))}
        </Flex>
      ),
    },
    {
      key: 'members',
      title: t('settings.consoleRoles.members'),
      align: 'right',
      width: 96,
      render: (role) => role.memberCount,
    },
    {
      key: 'actions',
      title: t('settings.column.actions'),
      width: 170,
      render: (role) => (
        <Flex gap={12}>
          <Button
            type="link"
            size="small"
            icon={<EditOutlined />}
            style={{ paddingInline: 0 }}
            onClick={() => setEditing(role)}
          >
            {t('settings.consoleRoles.edit')}
          </Button>
          <Popconfirm
            title={t('settings.consoleRoles.deleteTitle', { name: role.name })}
            description={
              role.memberCount
                ? t('settings.consoleRoles.deleteHolders', { count: role.memberCount })
                : undefined
            }
            okText={t('settings.consoleRoles.delete')}
            okButtonProps={{ danger: true }}
            cancelText={t('common.cancel')}
            onConfirm={() => remove(role)}
          >
            <Button type="link" danger size="small" icon={<DeleteOutlined />} style={{ paddingInline: 0 }}>
              {t('settings.consoleRoles.delete')}
            </Button>
          </Popconfirm>
        </Flex>
      ),
    },
  ];

  return (
    <Card
      title={t('settings.consoleRoles.title')}
      data-testid="console-roles"
      extra={
        <Button icon={<PlusOutlined />} onClick={() => setEditing(null)}>
          {t('settings.consoleRoles.add')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t('settings.consoleRoles.intro')}</Typography.Paragraph>
      <DataTable<ConsoleRole>
        label={t('settings.consoleRoles.title')}
        testId="console-role-list"
        rowKey={(role) => role.roleId}
        loading={loading}
        columns={columns}
        rows={data?.list ?? []}
      />
      <ConsoleRoleModal
        open={editing !== undefined}
        role={editing ?? undefined}
        onClose={() => setEditing(undefined)}
        onSaved={() => {
          setEditing(undefined);
          reload();
          onChanged?.();
        }}
      />
    </Card>
  );
}
