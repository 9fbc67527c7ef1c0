import { Button, Flex } from 'antd';
import { type ReactNode, useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiRequest, ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { UserPicker } from '../org/user-picker.tsx';
import {
  ExportButton,
  type Order,
  RangeFilter,
  type RangeQuery,
  TimeSortHeader,
  TotalText,
} from './log-filters.tsx';

/** The two views of the log screen, by the call that lists them. */
const views = {
  signin: '/api/v1/manage/log/sign-in/list',
  admin: '/api/v1/manage/log/admin/list',
} as const;
type View = keyof typeof views;
type ListPath<V extends View> = (typeof views)[V];
export type LogRow<V extends View> = ApiResponse<ListPath<V>>['list'][number];
export type LogFilters<V extends View> = Omit<
  NonNullable<ApiRequest<ListPath<V>>>,
  'page' | 'pageSize' | 'order'
>;

/**
 * A log view's state: its filters (any change goes back to page 1), paging and order, the page
 * of rows, and the time column that sorts.
 */
export function useLogView<V extends View>(view: V) {
  const { callApi } = useConsole();
  const [filters, setFilters] = useState({ range: 'month' } as LogFilters<V>);
  const [paging, setPaging] = useState({ page: 1, pageSize: 20, order: 'desc' as Order });
  const query = useMemo(() => ({ ...filters, ...paging }), [filters, paging]);
  const { data, loading } = useLoad(
    useCallback(
      () => callApi(views[view], query as ApiRequest<ListPath<V>>) as Promise<ApiResponse<ListPath<V>>>,
      [callApi, view, query],
    ),
  );
  const filter = (next: Partial<LogFilters<V>>) => {
    setFilters((current) => ({ ...current, ...next }));
    setPaging((current) => ({ ...current, page: 1 }));
  };
  const reset = () => {
    setFilters({ range: 'month' } as LogFilters<V>);
    setPaging((current) => ({ ...current, page: 1 }));
  };
  const timeColumn: DataColumn<{ time: string }> = {
    key: 'time',
    title: (
      <TimeSortHeader order={paging.order} onChange={(order) => setPaging({ ...paging, order, page: 1 })} />
    ),
    render: (row) => <span style={{ whiteSpace: 'nowrap' }}>{formatDate(row.time)}</span>,
  };
  return { view, filters, filter, reset, paging, setPaging, data, loading, timeColumn };
}

/**
 * A log view: the range, the person filter and the view's own filters, reset and export above
 * the page of rows.
 */
export function LogViewFrame<V extends View>({
  state,
  person,
  children,
  label,
  testId,
  columns,
}: {
  state: ReturnType<typeof useLogView<V>>;
  /** The person filter: its label and the filter key it sets. */
  person: { label: string; value: string | undefined; onChange(id: string | undefined): void };
  children: ReactNode;
  label: string;
  testId: string;
  columns: DataColumn<LogRow<V>>[];
}) {
  const { t } = useTranslation();
  const { filters, filter, reset, paging, setPaging, data, loading, view } = state;
  return (
    <Flex vertical gap={16}>
      <Flex gap={8} wrap align="center">
        <RangeFilter
          value={filters as RangeQuery}
          onChange={(range) =>
            filter({ range: range.range, from: range.from, to: range.to } as Partial<LogFilters<V>>)
          }
        />
        <div style={{ width: 220 }}>
          <UserPicker
            aria-label={person.label}
            placeholder={`${person.label}: ${t('log.anyValue')}`}
            value={person.value ?? null}
            onChange={(id) => person.onChange(id ?? undefined)}
          />
        </div>
        {children}
        <Button onClick={reset}>{t('log.reset')}</Button>
        <span style={{ flex: 1 }} />
        <ExportButton body={{ view, ...filters, order: paging.order }} />
      </Flex>
      <DataTable<LogRow<V>>
        label={label}
        testId={testId}
        rowKey={(row) => row.id}
        loading={loading}
        columns={columns}
        {...pagedList(data as { list: readonly LogRow<V>[]; total: number } | undefined, paging, {
          pageSizes: [20, 50, 100],
          showTotal: () => <TotalText data={data} />,
          onChange: (page, pageSize) => setPaging({ ...paging, page, pageSize }),
        })}
      />
    </Flex>
  );
}
