import { PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Select, Space } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { KeywordSearch } from '../../components/keyword-search.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { AuthorizationFormModal, type AuthorizationTarget } from './authorization-form.modal.tsx';
import { AuthorizationList } from './authorization-list.tsx';
import type { AppOption, Authorization } from './permission-types.ts';

/** The Authorizations tab: by application, subject type and keyword; created and changed after a preview. */
export function AuthorizationsTab({ apps }: { apps: AppOption[] }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [query, setQuery] = useState({
    page: 1,
    pageSize: 20,
    keyword: '',
    appId: undefined as string | undefined,
    subjectType: undefined as Authorization['subject']['type'] | undefined,
  });
  const [target, setTarget] = useState<AuthorizationTarget>();

  const load = useCallback(
    () =>
      callApi('/api/v1/manage/permission/authorization/list', {
        page: query.page,
        pageSize: query.pageSize,
        appId: query.appId,
        subjectType: query.subjectType,
        keyword: query.keyword || undefined,
      }),
    [callApi, query],
  );
  const { data, loading, reload } = useLoad(load);

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
          <Select
            allowClear
            aria-label={t('permission.authorization.subjectType')}
            placeholder={t('permission.authorization.subjectType')}
            options={(['user', 'role', 'department'] as const).map((type) => ({
              value: type,
              label: t(`permission.authorization.subjectTypes.${type}`),
            }))}
            value={query.subjectType}
            onChange={(subjectType?: Authorization['subject']['type']) =>
              setQuery({ ...query, page: 1, subjectType })
            }
            style={{ width: 150 }}
          />
          <KeywordSearch
            keyword={query.keyword}
            placeholder={t('permission.authorization.searchPlaceholder')}
            onSearch={(keyword) => setQuery({ ...query, page: 1, keyword })}
          />
        </Space>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setTarget({ mode: 'create' })}>
          {t('permission.authorization.create')}
        </Button>
      </Flex>
      <AuthorizationList
        rows={data?.list ?? []}
        loading={loading}
        paging={{
          page: query.page,
          pageSize: query.pageSize,
          total: data?.total ?? 0,
          showTotal: (count) => t('permission.common.total', { count }),
          onChange: (page, pageSize) => setQuery({ ...query, page, pageSize }),
        }}
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
