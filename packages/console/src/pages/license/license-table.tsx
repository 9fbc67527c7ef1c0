import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { formatThousands } from '../../lib/format/number.ts';
import { licenseModuleLabel, licenseStatusView } from './license-view.ts';

type ModuleState = ApiResponse<'/api/v1/manage/license/detail'>['list'][number];

/** Each licensed function: quantity, remaining quantity, expiry and status. */
export function LicenseTable({ list, loading }: { list: ModuleState[]; loading?: boolean }) {
  const { t } = useTranslation();
  const count = (value: number | null) => (value === null ? '—' : formatThousands(value));
  const columns: DataColumn<ModuleState>[] = [
    { key: 'module', title: t('license.column.module'), render: (row) => t(licenseModuleLabel[row.module]) },
    { key: 'total', title: t('license.column.total'), align: 'right', render: (row) => count(row.total) },
    {
      key: 'remaining',
      title: t('license.column.remaining'),
      align: 'right',
      render: (row) => count(row.remaining),
    },
    {
      key: 'expiresAt',
      title: t('license.column.expiresAt'),
      render: (row) => <span style={{ whiteSpace: 'nowrap' }}>{formatDate(row.expiresAt) || '—'}</span>,
    },
    {
      key: 'status',
      title: t('license.column.status'),
      render: (row) => (
        <Tag color={licenseStatusView[row.status].color} bordered={false}>
          {t(licenseStatusView[row.status].label)}
        </Tag>
      ),
    },
    {
      key: 'daysLeft',
      title: t('license.column.daysLeft'),
      align: 'right',
      minScreen: 'md',
      render: (row) => (row.reduceDay === null ? '—' : formatThousands(row.reduceDay)),
    },
  ];
  return (
    <DataTable<ModuleState>
      label={t('license.detailTitle')}
      testId="license-table"
      rowKey={(row) => row.module}
      loading={loading}
      columns={columns}
      rows={list}
    />
  );
}
