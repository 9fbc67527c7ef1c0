import { CaretDownOutlined, CaretUpOutlined } from '@ant-design/icons';
import { theme } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export type SortOrder = 'asc' | 'desc';

/** The order a column gets when its header is pressed: descending first, then flipping. */
export const nextSortOrder = (sorted: SortOrder | undefined): SortOrder =>
  sorted === 'desc' ? 'asc' : 'desc';

/** A column title that sorts the list on the server when pressed. */
export function SortHeader({
  title,
  sorted,
  onSort,
}: {
  title: ReactNode;
  /** The column's current order, when the list is sorted by it. */
  sorted: SortOrder | undefined;
  onSort(order: SortOrder): void;
}) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const color = (on: boolean) => (on ? token.colorPrimary : token.colorTextQuaternary);
  const hint =
    sorted === 'asc'
      ? t('org.users.sortAscending')
      : sorted === 'desc'
        ? t('org.users.sortDescending')
        : t('org.users.sortNone');
  return (
    <button
      type="button"
      title={hint}
      onClick={() => onSort(nextSortOrder(sorted))}
      style={{
        all: 'unset',
        cursor: 'pointer',
        display: 'inline-flex',
        alignItems: 'center',
        gap: 4,
        fontWeight: 600,
      }}
    >
      {title}
      <span style={{ display: 'inline-flex', flexDirection: 'column', fontSize: 10, lineHeight: 0.9 }}>
        <CaretUpOutlined style={{ color: color(sorted === 'asc') }} />
        <CaretDownOutlined style={{ color: color(sorted === 'desc') }} />
      </span>
    </button>
  );
}
