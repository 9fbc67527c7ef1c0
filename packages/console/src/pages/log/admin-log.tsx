import { Button, Flex, Popover, Typography } from 'antd';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiRequest, ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { UserPicker } from '../org/user-picker.tsx';
import { ChangeDiff, changedFields } from './change-diff.tsx';
import {
  ExportButton,
  FilterSelect,
  type Order,
  RangeFilter,
  type RangeQuery,
  TimeSortHeader,
  TotalText,
} from './log-filters.tsx';

type Row = ApiResponse<'/api/v1/manage/log/admin/list'>['list'][number];
type Filters = Omit<NonNullable<ApiRequest<'/api/v1/manage/log/admin/list'>>, 'page' | 'pageSize' | 'order'>;

/** Every change made in the company: who did what to which object, before and after. */
export function AdminLog() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [filters, setFilters] = useState<Filters>({ range: 'month' });
  const [paging, setPaging] = useState({ page: 1, pageSize: 20, order: 'desc' as Order });
  const query = useMemo(() => ({ ...filters, ...paging }), [filters, paging]);
  const { data, loading } = useLoad(
    useCallback(() => callApi('/api/v1/manage/log/admin/list', query), [callApi, query]),
  );
  const actions = useLoad(useCallback(() => callApi('/api/v1/manage/log/admin/actions'), [callApi])).data;
  const filter = (next: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...next }));
    setPaging((current) => ({ ...current, page: 1 }));
  };

  const columns: DataColumn<Row>[] = [
    {
      key: 'time',
      title: (
        <TimeSortHeader order={paging.order} onChange={(order) => setPaging({ ...paging, order, page: 1 })} />
      ),
      render: (row) => <span style={{ whiteSpace: 'nowrap' }}>{formatDate(row.time)}</span>,
    },
    { key: 'actor', title: t('log.column.actor'), render: (row) => row.actorName ?? '—' },
    {
      key: 'action',
      title: t('log.column.action'),
      render: (row) => <Typography.Text code>{row.action}</Typography.Text>,
    },
    {
      key: 'object',
      title: t('log.column.object'),
      minScreen: 'md',
      render: (row) => (
        <span style={{ overflowWrap: 'anywhere' }}>
          {row.targetType}
          {row.targetId ? <Typography.Text type="secondary"> {row.targetId}</Typography.Text> : null}
        </span>
      ),
    },
    {
      key: 'changes',
      title: t('log.column.changes'),
      render: (row) => {
        const fields = changedFields(row.before, row.after);
        if (!fields.length) return <Typography.Text type="secondary">—</Typography.Text>;
        return (
          <Popover
            trigger="click"
            placement="left"
            content={
              <div style={{ maxWidth: 520, maxHeight: 400, overflow: 'auto' }}>
                <ChangeDiff before={row.before} after={row.after} />
              </div>
            }
          >
            <Button size="small" type="link" style={{ padding: 0 }} aria-label={t('log.showChanges')}>
              {fields
                .slice(0, 3)
                .map((field) => field.field)
                .join(', ')}
              {fields.length > 3 ? ` +${fields.length - 3}` : ''}
            </Button>
          </Popover>
        );
      },
    },
    { key: 'ip', title: t('log.column.ip'), minScreen: 'lg', render: (row) => row.ip ?? '—' },
  ];

  return (
    <Flex vertical gap={16}>
      <Flex gap={8} wrap align="center">
        <RangeFilter
          value={filters as RangeQuery}
          onChange={(range) => filter({ range: range.range, from: range.from, to: range.to })}
        />
        <div style={{ width: 220 }}>
          <UserPicker
            aria-label={t('log.actor')}
            placeholder={`${t('log.actor')}: ${t('log.anyValue')}`}
            value={filters.actorId ?? null}
            onChange={(actorId) => filter({ actorId: actorId ?? undefined })}
          />
        </div>
        <FilterSelect
          label={t('log.action')}
          testId="log-filter-action"
          width={240}
          showSearch
          value={filters.action}
          options={(actions?.list ?? []).map((action) => ({ value: action, label: action }))}
          onChange={(action) => filter({ action })}
        />
        <Button
          onClick={() =>
            filter({ range: 'month', from: undefined, to: undefined, actorId: undefined, action: undefined })
          }
        >
          {t('log.reset')}
        </Button>
        <span style={{ flex: 1 }} />
        <ExportButton body={{ view: 'admin', ...filters, order: paging.order }} />
      </Flex>
      <DataTable<Row>
        label={t('log.views.admin')}
        testId="admin-log"
        rowKey={(row) => row.id}
        loading={loading}
        columns={columns}
        {...pagedList(data, paging, {
          pageSizes: [20, 50, 100],
          showTotal: () => <TotalText data={data} />,
          onChange: (page, pageSize) => setPaging({ ...paging, page, pageSize }),
        })}
      />
    </Flex>
  );
}
