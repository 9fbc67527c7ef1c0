import CaretDownOutlined from '@ant-design/icons/CaretDownOutlined';
import CaretUpOutlined from '@ant-design/icons/CaretUpOutlined';
import DownloadOutlined from '@ant-design/icons/DownloadOutlined';
import { type ExportFormat, type LogRange, logRanges } from '@tessera/contract/constants';
import { Button, DatePicker, Dropdown, Flex, Select, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiRequest } from '../../api/http-client.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { useDownload } from '../org/download.ts';

export type Order = 'desc' | 'asc';

/** The time part of a log query: a range of spec §9, or a custom one with both ends. */
export interface RangeQuery {
  range: LogRange;
  from?: string;
  to?: string;
}

/** Range: last month, last three months, or custom (then a date-time range picker). */
export function RangeFilter({ value, onChange }: { value: RangeQuery; onChange(value: RangeQuery): void }) {
  const { t } = useTranslation();
  const [picked, setPicked] = useState<[Dayjs, Dayjs] | null>(
    value.from && value.to ? [dayjs(value.from), dayjs(value.to)] : null,
  );
  return (
    <Flex gap={8} wrap>
      <Select<LogRange>
        aria-label={t('log.range')}
        data-testid="log-range"
        value={value.range}
        style={{ width: 170 }}
        options={logRanges.map((range) => ({ value: range, label: t(`log.ranges.${range}`) }))}
        onChange={(range) => {
          if (range !== 'custom') onChange({ range });
          else if (picked) onChange({ range, from: picked[0].toISOString(), to: picked[1].toISOString() });
          else onChange({ ...value, range });
        }}
      />
      {value.range === 'custom' ? (
        <DatePicker.RangePicker
          showTime={{ format: 'HH:mm' }}
          format="YYYY-MM-DD HH:mm"
          value={picked}
          placeholder={[t('log.customFrom'), t('log.customTo')]}
          disabledDate={(day) => day.isAfter(dayjs().endOf('day'))}
          onChange={(dates) => {
            const [from, to] = dates ?? [];
            if (!from || !to) return;
            setPicked([from, to]);
            onChange({ range: 'custom', from: from.toISOString(), to: to.toISOString() });
          }}
        />
      ) : null}
    </Flex>
  );
}

/** A filter select that may be cleared ("any"). */
export function FilterSelect<V extends string>({
  label,
  value,
  options,
  onChange,
  width = 180,
  testId,
  showSearch,
}: {
  label: string;
  value: V | undefined;
  options: { value: V; label: ReactNode }[];
  onChange(value: V | undefined): void;
  width?: number;
  testId?: string;
  showSearch?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Select<V>
      aria-label={label}
      data-testid={testId}
      allowClear
      showSearch={showSearch ? { optionFilterProp: 'label' } : undefined}
      placeholder={`${label}: ${t('log.anyValue')}`}
      value={value}
      options={options}
      style={{ width }}
      onChange={(next) => onChange(next ?? undefined)}
    />
  );
}

/** The time column's title: newest or oldest first, switched on the server. */
export function TimeSortHeader({ order, onChange }: { order: Order; onChange(order: Order): void }) {
  const { t } = useTranslation();
  const hint = order === 'desc' ? t('log.sortNewest') : t('log.sortOldest');
  return (
    <button
      type="button"
      title={hint}
      aria-label={`${t('log.column.time')}: ${hint}`}
      data-testid="log-sort-time"
      onClick={() => onChange(order === 'desc' ? 'asc' : 'desc')}
      style={{ all: 'unset', cursor: 'pointer', display: 'inline-flex', alignItems: 'center', gap: 4 }}
    >
      {t('log.column.time')}
      {order === 'desc' ? <CaretDownOutlined /> : <CaretUpOutlined />}
    </button>
  );
}

/** How many rows match ("more than" past the server's count cap). */
export function TotalText({ data }: { data: { total: number; totalCapped: boolean } | undefined }) {
  const { t } = useTranslation();
  return data ? (
    <Typography.Text type="secondary" data-testid="log-total">
      {t(data.totalCapped ? 'log.totalCapped' : 'log.total', { count: data.total })}
    </Typography.Text>
  ) : null;
}

type ExportBody = ApiRequest<'/api/v1/manage/log/export'>;

/** Exports the rows the filters match as .xlsx or CSV (the server streams them). */
export function ExportButton({ body }: { body: Omit<ExportBody, 'format' | 'language'> }) {
  const { t } = useTranslation();
  const download = useDownload();
  const [busy, setBusy] = useState(false);
  const run = async (format: ExportFormat) => {
    setBusy(true);
    try {
      const stamp = dayjs().format('YYYYMMDD-HHmm');
      await download(
        '/api/v1/manage/log/export',
        { ...body, format, language: currentLanguage() } as ExportBody,
        `${body.view === 'signin' ? 'sign-ins' : 'administration'}-${stamp}.${format}`,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [
          { key: 'xlsx', label: t('log.exportXlsx') },
          { key: 'csv', label: t('log.exportCsv') },
        ],
        onClick: ({ key }) => void run(key as ExportFormat),
      }}
    >
      <Button icon={<DownloadOutlined />} loading={busy} title={t('log.exportHint')} data-testid="log-export">
        {t('log.export')}
      </Button>
    </Dropdown>
  );
}
