import { Button, Space } from 'antd';
import type { TFunction } from 'i18next';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DataColumn, DataPaging } from '../../components/data-table.tsx';
import { useLoad } from '../../lib/use-load.ts';

/**
 * A list of the screen queried page by page: the query (paged, filtered, searched), its answer,
 * and the paging of the table; `setQuery` with a filter goes back to the first page.
 */
export function usePagedList<Q extends { page: number; pageSize: number }, Row>(
  initial: Q,
  fetch: (query: Q) => Promise<{ list: Row[]; total: number }>,
) {
  const { t } = useTranslation();
  const [query, setQuery] = useState(initial);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `fetch` is rebuilt on every render; the query says when to load again.
  const load = useCallback(() => fetch(query), [query]);
  const { data, loading, reload } = useLoad(load);
  const filter = (patch: Partial<Q>) => setQuery({ ...query, ...patch, page: 1 });
  const paging: DataPaging = {
    page: query.page,
    pageSize: query.pageSize,
    total: data?.total ?? 0,
    showTotal: (count) => t('permission.common.total', { count }),
    onChange: (page, pageSize) => setQuery({ ...query, page, pageSize }),
  };
  return { query, filter, rows: data?.list ?? [], loading, reload, paging };
}

/** The last column of a list: edit and delete the row. */
export function editDeleteColumn<Row>(
  t: TFunction,
  onEdit: (row: Row) => void,
  onDelete: (row: Row) => void,
): DataColumn<Row> {
  return {
    key: 'actions',
    title: t('permission.common.actions'),
    width: 140,
    render: (row) => (
      <Space size={0}>
        <Button type="link" size="small" onClick={() => onEdit(row)}>
          {t('permission.common.edit')}
        </Button>
        <Button type="link" size="small" danger onClick={() => onDelete(row)}>
          {t('permission.common.delete')}
        </Button>
      </Space>
    ),
  };
}
