import { EditOutlined } from '@ant-design/icons';
import type { QuantityModule } from '@tessera/contract/constants';
import { Button, Card, Flex, Input, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { formatThousands } from '../../lib/format/number.ts';
import { useLoad } from '../../lib/use-load.ts';
import { CompanyQuotaModal } from './company-quota.modal.tsx';
import { type CompanyQuotas, quotaOf } from './license-view.ts';

const DEFAULT_PAGE_SIZE = 10;

/** Usage against the quota: "12 / 100", or "12 / No limit"; a full quota is shown in red. */
function Usage({ company, module }: { company: CompanyQuotas; module: QuantityModule }) {
  const { t } = useTranslation();
  const { quota, used } = quotaOf(company, module);
  const full = quota !== null && used >= quota;
  return (
    <Typography.Text type={full ? 'danger' : undefined} style={{ whiteSpace: 'nowrap' }}>
      {formatThousands(used)} / {quota === null ? t('license.noLimit') : formatThousands(quota)}
    </Typography.Text>
  );
}

/**
 * Platform administrators: every company with its usage and quotas of users and applications,
 * searchable by name or id, and the quotas set per company.
 */
export function CompanyQuotasCard() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [query, setQuery] = useState({ page: 1, pageSize: DEFAULT_PAGE_SIZE, keyword: '' });
  const [editing, setEditing] = useState<CompanyQuotas>();

  const load = useCallback(
    () =>
      callApi('/api/v1/manage/license/quota/list', {
        page: query.page,
        pageSize: query.pageSize,
        keyword: query.keyword || undefined,
      }),
    [callApi, query],
  );
  const { data, setData, loading } = useLoad(load);

  const columns: DataColumn<CompanyQuotas>[] = [
    {
      key: 'company',
      title: t('license.quotas.column.company'),
      render: (company) => (
        <Flex vertical>
          <Typography.Text strong>{company.name}</Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('license.quotas.owner', { name: company.ownerUsername })}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'user',
      title: t('license.quotas.column.users'),
      align: 'right',
      render: (company) => <Usage company={company} module="user" />,
    },
    {
      key: 'app',
      title: t('license.quotas.column.apps'),
      align: 'right',
      render: (company) => <Usage company={company} module="app" />,
    },
    {
      key: 'actions',
      title: t('license.quotas.column.actions'),
      width: 120,
      render: (company) => (
        <Button
          type="link"
          size="small"
          icon={<EditOutlined />}
          style={{ paddingInline: 0 }}
          aria-label={t('license.quotas.editFor', { company: company.name })}
          onClick={() => setEditing(company)}
        >
          {t('license.quotas.edit')}
        </Button>
      ),
    },
  ];

  return (
    <Card title={t('license.quotas.title')} data-testid="company-quotas">
      <Flex vertical gap={16}>
        <Typography.Text type="secondary">{t('license.quotas.hint')}</Typography.Text>
        <Input.Search
          allowClear
          placeholder={t('license.quotas.search')}
          aria-label={t('license.quotas.search')}
          style={{ maxWidth: 320 }}
          onSearch={(keyword) => setQuery({ ...query, page: 1, keyword: keyword.trim() })}
        />
        <DataTable<CompanyQuotas>
          label={t('license.quotas.title')}
          testId="company-quotas-table"
          rowKey={(company) => company.companyId}
          loading={loading}
          columns={columns}
          {...pagedList(data, query, {
            showTotal: (total) => t('license.quotas.total', { total }),
            onChange: (page, pageSize) => setQuery({ ...query, page, pageSize }),
          })}
        />
      </Flex>
      <CompanyQuotaModal
        company={editing}
        onClose={() => setEditing(undefined)}
        onSaved={(saved) => {
          setEditing(undefined);
          if (data)
            setData({
              ...data,
              list: data.list.map((company) => (company.companyId === saved.companyId ? saved : company)),
            });
        }}
      />
    </Card>
  );
}
