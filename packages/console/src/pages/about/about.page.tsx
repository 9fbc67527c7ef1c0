import { Card, Descriptions, Flex, Input, Skeleton, Tag, Typography } from 'antd';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { licenseStatusView } from '../license/license-view.ts';

type ThirdPartyPackage = ApiResponse<'/api/v1/manage/system/third-party'>['list'][number];

/** /setting/about (full set): version and build, licence summary, third-party licences. */
export function AboutPage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const system = useLoad(useCallback(() => callApi('/api/v1/manage/system/info'), [callApi]));
  const licence = useLoad(useCallback(() => callApi('/api/v1/manage/license/detail'), [callApi]));
  const users = licence.data?.list.find((item) => item.module === 'user');

  return (
    <Flex vertical gap={24} style={{ maxWidth: 1200 }}>
      <Flex gap={24} wrap>
        <Card title={t('about.productTitle')} style={{ flex: '1 1 360px' }}>
          {system.data ? (
            <Descriptions
              size="small"
              column={1}
              data-testid="about-system"
              items={[
                { key: 'version', label: t('about.version'), children: system.data.version },
                { key: 'build', label: t('about.build'), children: system.data.build },
                { key: 'runtime', label: t('about.runtime'), children: `Node.js ${system.data.nodeVersion}` },
                {
                  key: 'database',
                  label: t('about.database'),
                  children: t(`about.databaseName.${system.data.database}`),
                },
                { key: 'started', label: t('about.startedAt'), children: formatDate(system.data.startedAt) },
              ]}
            />
          ) : (
            <Skeleton active loading={system.loading} paragraph={{ rows: 4 }} />
          )}
        </Card>
        <Card
          title={t('about.licenceTitle')}
          style={{ flex: '1 1 360px' }}
          extra={<Link to="/setting/license">{t('about.openLicence')}</Link>}
        >
          {licence.data ? (
            <Descriptions
              size="small"
              column={1}
              data-testid="about-licence"
              items={[
                { key: 'customer', label: t('license.customer'), children: licence.data.customer ?? '—' },
                {
                  key: 'status',
                  label: t('about.licenceStatus'),
                  children: users ? (
                    <Tag color={licenseStatusView[users.status].color} bordered={false}>
                      {t(licenseStatusView[users.status].label)}
                    </Tag>
                  ) : (
                    '—'
                  ),
                },
                {
                  key: 'expires',
                  label: t('license.column.expiresAt'),
                  children: formatDate(users?.expiresAt) || '—',
                },
                {
                  key: 'code',
                  label: t('license.codeTitle'),
                  children: <Typography.Text copyable>{licence.data.applicationCode}</Typography.Text>,
                },
              ]}
            />
          ) : (
            <Skeleton active loading={licence.loading} paragraph={{ rows: 4 }} />
          )}
        </Card>
      </Flex>
      <ThirdPartyCard />
    </Flex>
  );
}

function ThirdPartyCard() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { data, loading } = useLoad(
    useCallback(() => callApi('/api/v1/manage/system/third-party'), [callApi]),
  );
  const [search, setSearch] = useState('');
  const [paging, setPaging] = useState({ page: 1, pageSize: 10 });
  const rows = useMemo(() => {
    const needle = search.trim().toLowerCase();
    const list = data?.list ?? [];
    return needle
      ? list.filter(
          (item) => item.name.toLowerCase().includes(needle) || item.license.toLowerCase().includes(needle),
        )
      : list;
  }, [data, search]);
  const columns: DataColumn<ThirdPartyPackage>[] = [
    { key: 'name', title: t('about.column.name'), render: (row) => row.name },
    { key: 'version', title: t('about.column.version'), render: (row) => row.version },
    { key: 'license', title: t('about.column.license'), render: (row) => row.license },
  ];
  const start = (paging.page - 1) * paging.pageSize;
  return (
    <Card
      title={t('about.thirdPartyTitle')}
      extra={
        data ? (
          <Typography.Text type="secondary">
            {t('about.packages', { count: data.list.length })}
          </Typography.Text>
        ) : null
      }
    >
      <Typography.Paragraph type="secondary">{t('about.thirdPartyHint')}</Typography.Paragraph>
      <Input.Search
        allowClear
        placeholder={t('about.searchPlaceholder')}
        aria-label={t('about.searchPlaceholder')}
        style={{ maxWidth: 320, marginBottom: 16 }}
        onChange={(event) => {
          setSearch(event.target.value);
          setPaging({ ...paging, page: 1 });
        }}
        onSearch={(value) => {
          setSearch(value);
          setPaging({ ...paging, page: 1 });
        }}
      />
      <DataTable<ThirdPartyPackage>
        label={t('about.thirdPartyTitle')}
        testId="third-party-table"
        rowKey={(row) => `${row.name}@${row.version}`}
        loading={loading}
        columns={columns}
        rows={rows.slice(start, start + paging.pageSize)}
        paging={{
          ...paging,
          total: rows.length,
          onChange: (page, pageSize) => setPaging({ page, pageSize }),
        }}
      />
    </Card>
  );
}
