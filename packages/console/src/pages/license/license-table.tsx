import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { formatThousands } from '../../lib/format/number.ts';
import { licenseModuleLabel, licenseStatusView } from './license-view.ts';

type LicenceDetail = ApiResponse<'/api/v1/manage/license/detail'>;
type ModuleState = LicenceDetail['list'][number];

/**
 * Each licensed function: quantity, usage, remaining quantity, expiry and status. In the company
 * scope the quantity is the company's quota; a counted function without one has no limit beyond
 * the licence.
 */
export function LicenseTable({
  list,
  scope,
  loading,
}: {
  list: ModuleState[];
  scope: LicenceDetail['scope'];
  loading?: boolean;
}) {
  const { t } = useTranslation();
  const count = (value: number | null) => (value === null ? '—' : formatThousands(value));
  const counted = (row: ModuleState) => row.used !== null;
  const columns: DataColumn<ModuleState>[] = [
    { key: 'module', title: t('license.column.module'), render: (row) => t(licenseModuleLabel[row.module]) },
    {
      key: 'total',
      title: scope === 'company' ? t('license.column.quota') : t('license.column.total'),
      align: 'right',
      render: (row) =>
        scope === 'company' && counted(row) && row.total === null ? t('license.noLimit') : count(row.total),
    },
    { key: 'used', title: t('license.column.used'), align: 'right', render: (row) => count(row.used) },
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
