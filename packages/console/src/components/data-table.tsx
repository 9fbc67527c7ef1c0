import { DownOutlined, LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Button, Dropdown, Empty, Flex, Grid, Spin, theme } from 'antd';
import type { CSSProperties, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { pageCountOf, pageItems } from './pager.ts';

type Breakpoint = 'md' | 'lg';

export interface DataColumn<Row> {
  key: string;
  title: ReactNode;
  render(row: Row): ReactNode;
  align?: 'left' | 'right';
  width?: number;
  /** Shown only from this screen width on (antd's breakpoints). */
  minScreen?: Breakpoint;
}

export interface DataPaging {
  page: number;
  pageSize: number;
  total: number;
  pageSizes?: readonly number[];
  showTotal?(total: number): ReactNode;
  onChange(page: number, pageSize: number): void;
}

/**
 * The rows and paging of a page of a list call's answer (`{ list, total }`; none while it loads),
 * shown at the page and page size the screen asked for: `<DataTable {...pagedList(data, query, …)} />`.
 */
export function pagedList<Row>(
  data: { list: readonly Row[]; total: number } | undefined,
  query: { page: number; pageSize: number },
  paging: Pick<DataPaging, 'pageSizes' | 'showTotal' | 'onChange'>,
): { rows: readonly Row[]; paging: DataPaging } {
  return {
    rows: data?.list ?? [],
    paging: { page: query.page, pageSize: query.pageSize, total: data?.total ?? 0, ...paging },
  };
}

/**
 * A plain table with antd's look, for lists of a few columns. antd's Table brings a tree, a
 * select and a virtual list along (about 80 KiB gzip), which would put a screen over its
 * size budget; these lists need none of that.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  loading = false,
  paging,
  label,
  testId,
}: {
  columns: DataColumn<Row>[];
  rows: readonly Row[];
  rowKey(row: Row): string;
  loading?: boolean;
  paging?: DataPaging;
  /** Accessible name of the table. */
  label?: string;
  testId?: string;
}) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const screens = Grid.useBreakpoint();
  const shown = columns.filter((column) => !column.minScreen || (screens[column.minScreen] ?? true));
  const cell: CSSProperties = {
    padding: '12px 8px',
    borderBottom: `1px solid ${token.colorBorderSecondary}`,
    overflowWrap: 'anywhere',
  };
  return (
    <div>
      <Spin spinning={loading}>
        <div style={{ overflowX: 'auto' }}>
          <table
            aria-label={label}
            data-testid={testId}
            style={{
              width: '100%',
              borderCollapse: 'collapse',
              fontSize: token.fontSize,
              color: token.colorText,
            }}
          >
            <thead>
              <tr>
                {shown.map((column) => (
                  <th
                    key={column.key}
                    scope="col"
                    style={{
                      ...cell,
                      width: column.width,
                      textAlign: column.align ?? 'left',
                      fontWeight: 600,
                      whiteSpace: 'nowrap',
                      background: token.colorFillAlter,
                    }}
                  >
                    {column.title}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={rowKey(row)}>
                  {shown.map((column) => (
                    <td
                      key={column.key}
                      // Long addresses may break anywhere, but a column is never narrower than a few
                      // characters: short Chinese values ("前端组") stay on one line at 1280 px.
                      style={{
                        ...cell,
                        minWidth: column.width ? undefined : '4.5em',
                        textAlign: column.align ?? 'left',
                      }}
                    >
                      {column.render(row)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {rows.length === 0 ? (
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            description={t('common.noData')}
            style={{ padding: 16 }}
          />
        ) : null}
      </Spin>
      {paging ? <Pager {...paging} /> : null}
    </div>
  );
}

function Pager({ page, pageSize, total, pageSizes = [10, 20, 50], showTotal, onChange }: DataPaging) {
  const { t } = useTranslation();
  const pageCount = pageCountOf(total, pageSize);
  return (
    <Flex
      component="nav"
      aria-label={t('common.pagination')}
      justify="flex-end"
      align="center"
      gap={4}
      wrap
      style={{ marginTop: 16 }}
    >
      {showTotal ? <span style={{ marginInlineEnd: 8 }}>{showTotal(total)}</span> : null}
      <Button
        size="small"
        type="text"
        icon={<LeftOutlined />}
        aria-label={t('common.previousPage')}
        disabled={page <= 1}
        onClick={() => onChange(page - 1, pageSize)}
      />
      {pageItems(page, pageCount).map((item, index) =>
        item === 'gap' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: gaps have no identity; at most two, in fixed places.
          <span key={`gap-${index}`} aria-hidden="true" style={{ paddingInline: 4 }}>
            …
          </span>
        ) : (
          <Button
            key={item}
            size="small"
            type={item === page ? 'primary' : 'text'}
            ghost={item === page}
            aria-current={item === page ? 'page' : undefined}
            onClick={() => onChange(item, pageSize)}
            style={{ minWidth: 28 }}
          >
            {item}
          </Button>
        ),
      )}
      <Button
        size="small"
        type="text"
        icon={<RightOutlined />}
        aria-label={t('common.nextPage')}
        disabled={page >= pageCount}
        onClick={() => onChange(page + 1, pageSize)}
      />
      <Dropdown
        trigger={['click']}
        menu={{
          items: pageSizes.map((size) => ({ key: String(size), label: t('common.pageSize', { size }) })),
          selectable: true,
          selectedKeys: [String(pageSize)],
          onClick: ({ key }) => onChange(1, Number(key)),
        }}
      >
        <Button size="small" style={{ marginInlineStart: 8 }}>
          {t('common.pageSize', { size: pageSize })} <DownOutlined style={{ fontSize: 10 }} />
        </Button>
      </Dropdown>
    </Flex>
  );
}
