import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Descriptions, Flex, Space } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { BackButton, DetailMissing } from '../../components/detail-nav.tsx';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import { AuthorizationFormModal, type AuthorizationTarget } from './authorization-form.modal.tsx';
import { AuthorizationList } from './authorization-list.tsx';
import type { Role } from './permission-types.ts';
import { RoleFormModal } from './role-form.modal.tsx';
import { RoleMembersCard } from './role-members.card.tsx';
import { useAppOptions } from './use-permission-data.ts';

const ROLES_TAB = '/permission/index?tab=roles';

/** /permission/role-detail?id=… (hidden, full set): a role, its people, and the authorizations that name it. */
export function RoleDetailPage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const roleId = params.get('id') ?? '';
  const apps = useAppOptions();
  const [editing, setEditing] = useState<Role>();
  const [target, setTarget] = useState<AuthorizationTarget>();

  const loadRole = useCallback(
    async () =>
      roleId
        ? await callApi('/api/v1/manage/permission/role/detail', { roleId }, { silent: true }).catch(
            () => null,
          )
        : null,
    [callApi, roleId],
  );
  const { data: role, setData: setRole, loading, reload } = useLoad(loadRole);
  const loadAuthorizations = useCallback(
    () =>
      callApi('/api/v1/manage/permission/authorization/list', {
        subjectType: 'role',
        subjectId: roleId,
        page: 1,
        pageSize: 100,
      }),
    [callApi, roleId],
  );
  const authorizations = useLoad(loadAuthorizations);

  if (!role)
    return (
      <DetailMissing
        loading={loading}
        status={roleId ? '404' : 'info'}
        title={t('permission.role.notFound')}
        backTo={ROLES_TAB}
        backLabel={t('permission.role.back')}
      />
    );

  const remove = () =>
    confirm({
      title: t('permission.role.deleteTitle', { name: role.name }),
      content: t('permission.role.deleteContent'),
      okText: t('permission.common.delete'),
      onOk: async () => {
        await callApi('/api/v1/manage/permission/role/del', { roleId: role.roleId });
        void message.success(t('permission.role.deleted', { name: role.name }));
        navigate(ROLES_TAB);
      },
    });

  return (
    <Flex vertical gap={16}>
      <BackButton to={ROLES_TAB}>{t('permission.role.back')}</BackButton>
      <Card
        title={role.name}
        extra={
          <Space>
            <Button onClick={() => setEditing(role)}>{t('permission.common.edit')}</Button>
            <Button danger onClick={() => void remove()}>
              {t('permission.common.delete')}
            </Button>
          </Space>
        }
      >
        <Descriptions
          column={{ xs: 1, md: 3 }}
          items={[
            { key: 'description', label: t('permission.role.description'), children: role.description },
            { key: 'members', label: t('permission.role.members'), children: role.memberCount },
            {
              key: 'authorizations',
              label: t('permission.role.authorizations'),
              children: role.authorizationCount,
            },
          ]}
        />
      </Card>
      <RoleMembersCard role={role} onChanged={reload} />
      <Card
        title={t('permission.role.authorizations')}
        extra={
          <Button
            icon={<PlusOutlined />}
            onClick={() =>
              setTarget({ mode: 'create', subject: { type: 'role', id: role.roleId, name: role.name } })
            }
          >
            {t('permission.authorization.create')}
          </Button>
        }
      >
        <AuthorizationList
          rows={authorizations.data?.list ?? []}
          loading={authorizations.loading}
          onEdit={(authorization) => setTarget({ mode: 'edit', authorization })}
          onDeleted={() => {
            authorizations.reload();
            reload();
          }}
        />
      </Card>
      <RoleFormModal
        target={editing}
        onClose={() => setEditing(undefined)}
        onSaved={(saved) => {
          setEditing(undefined);
          setRole(saved);
        }}
      />
      <AuthorizationFormModal
        target={target}
        apps={apps}
        defaultAppId={apps[0]?.value}
        onClose={() => setTarget(undefined)}
        onSaved={() => {
          setTarget(undefined);
          authorizations.reload();
          reload();
        }}
      />
    </Flex>
  );
}
