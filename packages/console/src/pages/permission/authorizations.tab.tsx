import { PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Select, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { KeywordSearch } from '../../components/keyword-search.tsx';
import { AuthorizationFormModal, type AuthorizationTarget } from './authorization-form.modal.tsx';
import { AuthorizationList } from './authorization-list.tsx';
import { usePagedList } from './paged-list.tsx';
import type { AppOption, Authorization } from './permission-types.ts';

/** The Authorizations tab: by application, subject type and keyword; created and changed after a preview. */
export function AuthorizationsTab({ apps }: { apps: AppOption[] }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [target, setTarget] = useState<AuthorizationTarget>();

  const { query, filter, rows, loading, reload, paging } = usePagedList(
    {
      page: 1,
      pageSize: 20,
      keyword: '',
      appId: undefined as string | undefined,
      subjectType: undefined as Authorization['subject']['type'] | undefined,
    },
    (q) => callApi('/api/v1/manage/permission/authorization/list', { ...q, keyword: q.keyword || undefined }),
  );

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
          <Select
            allowClear
            aria-label={t('permission.authorization.subjectType')}
            placeholder={t('permission.authorization.subjectType')}
            options={(['user', 'role', 'department'] as const).map((type) => ({
              value: type,
              label: t(`permission.authorization.subjectTypes.${type}`),
            }))}
            value={query.subjectType}
            onChange={(subjectType?: Authorization['subject']['type']) => filter({ subjectType })}
            style={{ width: 150 }}
          />
          <KeywordSearch
            keyword={query.keyword}
            placeholder={t('permission.authorization.searchPlaceholder')}
            onSearch={(keyword) => filter({ keyword })}
          />
        </Space>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setTarget({ mode: 'create' })}>
          {t('permission.authorization.create')}
        </Button>
      </Flex>
      <AuthorizationList
        rows={rows}
        loading={loading}
        paging={paging}
        onEdit={(authorization) => setTarget({ mode: 'edit', authorization })}
        onDeleted={reload}
      />
      <AuthorizationFormModal
        target={target}
        apps={apps}
        defaultAppId={query.appId ?? apps[0]?.value}
        onClose={() => setTarget(undefined)}
        onSaved={() => {
          setTarget(undefined);
          reload();
        }}
      />
    </>
  );
}
