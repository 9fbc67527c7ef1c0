import { PlusOutlined } from '@ant-design/icons';
import { type AppStatus, appStatuses } from '@tessera/contract/constants';
import { Button, Card, Flex, Select, Space, Typography } from 'antd';
import { Suspense, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { KeywordSearch } from '../../components/keyword-search.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { oneOfParam, pageSizeParam, positiveParam } from '../../lib/list-query.ts';
import { useLoad } from '../../lib/use-load.ts';
import { AppLogo } from './app-logo.tsx';
import { AppStatusTag } from './app-status-tag.tsx';
import { type AppSummary, appDetailPath, camel, toggledStatus } from './app-view.ts';
import { CreateAppModal } from './lazy-parts.ts';
import { useAppActions } from './use-app-actions.ts';
import { useAppCreated } from './use-app-created.tsx';

const PAGE_SIZES = [10, 20, 50] as const;

interface AppsQuery {
  page: number;
  pageSize: number;
  keyword: string;
  status?: AppStatus;
}

/** The list's query, kept in the address so a reload or the way back from a detail keeps it. */
export function parseAppsQuery(params: URLSearchParams): AppsQuery {
  return {
    page: positiveParam(params.get('page'), 1),
    pageSize: pageSizeParam(params.get('pageSize'), PAGE_SIZES, 20),
    keyword: params.get('keyword')?.trim() ?? '',
    status: oneOfParam(appStatuses, params.get('status')),
  };
}

function appsQueryParams(query: AppsQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.page > 1) params.set('page', String(query.page));
  if (query.pageSize !== 20) params.set('pageSize', String(query.pageSize));
  if (query.keyword) params.set('keyword', query.keyword);
  if (query.status) params.set('status', query.status);
  return params;
}

/** /application/index (both route sets): the company's applications, searched, filtered and paged on the server. */
export function AppsPage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const query = parseAppsQuery(params);
  const queryKey = appsQueryParams(query).toString();
  const setQuery = (next: Partial<AppsQuery>) =>
    setParams(appsQueryParams({ ...query, page: 1, ...next }), { replace: true });
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState<string>();
  const actions = useAppActions();
  const { onCreated, secretModal } = useAppCreated();

  // biome-ignore lint/correctness/useExhaustiveDependencies: the query is rebuilt on every render; its address form says when it changed.
  const load = useCallback(
    () =>
      callApi('/api/v1/manage/app/list', {
        page: query.page,
        pageSize: query.pageSize,
        keyword: query.keyword || undefined,
        status: query.status,
      }),
    [callApi, queryKey],
  );
  const { data, setData, loading, reload } = useLoad(load);

  const run = async (app: AppSummary, work: () => Promise<void>) => {
    setBusy(app.appId);
    try {
      await work();
    } finally {
      setBusy(undefined);
    }
  };

  const toggle = (app: AppSummary) =>
    run(app, async () => {
      const changed = await actions.setStatus(app, toggledStatus(app.status));
      if (changed)
        setData((old) =>
          old ? { ...old, list: old.list.map((row) => (row.appId === changed.appId ? changed : row)) } : old,
        );
    });

  const remove = (app: AppSummary) =>
    run(app, async () => {
      if (!(await actions.remove(app))) return;
      if (data?.list.length === 1 && query.page > 1) setQuery({ page: query.page - 1 });
      else reload();
    });

  const columns: DataColumn<AppSummary>[] = [
    {
      key: 'app',
      title: t('apps.list.column.app'),
      render: (app) => (
        <Flex align="center" gap={10} style={{ minWidth: 180 }}>
          <AppLogo app={app} />
          <Flex vertical style={{ minWidth: 0 }}>
            <Link to={appDetailPath(app.appId)} style={{ fontWeight: 500 }}>
              {app.name}
            </Link>
            {app.description ? (
              <Typography.Text
                type="secondary"
                ellipsis={{ tooltip: app.description }}
                style={{ maxWidth: 260, fontSize: 12 }}
              >
                {app.description}
              </Typography.Text>
            ) : null}
          </Flex>
        </Flex>
      ),
    },
    {
      key: 'type',
      title: `${t('apps.list.column.type')} / ${t('apps.list.column.protocol')}`,
      render: (app) => (
        <Flex vertical style={{ whiteSpace: 'nowrap' }}>
          <span>{t(`apps.type.${camel(app.type)}`)}</span>
          <Typography.Text type="secondary">{t(`apps.protocolName.${app.protocol}`)}</Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'status',
      title: t('apps.list.column.status'),
      render: (app) => <AppStatusTag status={app.status} />,
    },
    {
      key: 'clientId',
      title: t('apps.list.column.clientId'),
      minScreen: 'lg',
      render: (app) => (
        <Typography.Text
          copyable
          style={{
            fontFamily: 'monospace',
            fontSize: 12,
            wordBreak: 'break-all',
            display: 'inline-block',
            maxWidth: 240,
          }}
        >
          {app.clientId}
        </Typography.Text>
      ),
    },
    {
      key: 'createdAt',
      title: t('apps.list.column.createdAt'),
      minScreen: 'md',
      render: (app) => (
        <span style={{ whiteSpace: 'nowrap' }}>{formatDate(app.createdAt, 'YYYY-MM-DD HH:mm')}</span>
      ),
    },
    {
      key: 'actions',
      title: t('apps.list.column.actions'),
      render: (app) => (
        <Space size={4} style={{ whiteSpace: 'nowrap' }} data-testid={`app-actions-${app.appId}`}>
          <Button
            type="link"
            size="small"
            style={{ paddingInline: 0 }}
            onClick={() => navigate(appDetailPath(app.appId))}
          >
            {t('apps.list.details')}
          </Button>
          <Button
            type="link"
            size="small"
            style={{ paddingInline: 4 }}
            disabled={busy === app.appId}
            onClick={() => void toggle(app)}
          >
            {app.status === 'opened' ? t('apps.list.disable') : t('apps.list.enable')}
          </Button>
          <Button
            type="link"
            size="small"
            danger
            style={{ paddingInline: 4 }}
            disabled={busy === app.appId}
            onClick={() => void remove(app)}
          >
            {t('apps.list.delete')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <Card
      title={t('apps.list.title')}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setAdding(true)}>
          {t('apps.list.add')}
        </Button>
      }
      styles={{ header: { flexWrap: 'wrap', rowGap: 8, paddingBlock: 12 } }}
      style={{ maxWidth: 1600 }}
    >
      <Flex wrap gap={12} align="center" style={{ marginBottom: 16 }}>
        <KeywordSearch
          keyword={query.keyword}
          placeholder={t('apps.list.searchPlaceholder')}
          onSearch={(keyword) => setQuery({ keyword })}
        />
        <Select
          allowClear
          aria-label={t('apps.list.statusFilter')}
          placeholder={t('apps.list.allStatuses')}
          style={{ width: 160 }}
          value={query.status}
          onChange={(status) => setQuery({ status })}
          options={appStatuses.map((status) => ({ value: status, label: t(`apps.status.${camel(status)}`) }))}
        />
      </Flex>
      <DataTable<AppSummary>
        label={t('apps.list.title')}
        testId="apps"
        rowKey={(app) => app.appId}
        loading={loading}
        columns={columns}
        {...pagedList(data, query, {
          pageSizes: PAGE_SIZES,
          showTotal: (total) => t('apps.list.total', { total }),
          onChange: (page, pageSize) => setQuery({ page, pageSize }),
        })}
      />
      <Suspense fallback={null}>
        {adding ? (
          <CreateAppModal
            onClose={() => setAdding(false)}
            onCreated={(created) => {
              setAdding(false);
              onCreated(created);
            }}
          />
        ) : null}
      </Suspense>
      {secretModal}
    </Card>
  );
}
