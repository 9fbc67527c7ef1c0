import { Button, Popover, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import type { DataColumn } from '../../components/data-table.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { ChangeDiff, changedFields } from './change-diff.tsx';
import { FilterSelect } from './log-filters.tsx';
import { type LogRow, LogViewFrame, useLogView } from './log-view.tsx';

type Row = LogRow<'admin'>;

/** Every change made in the company: who did what to which object, before and after. */
export function AdminLog() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const state = useLogView('admin');
  const { filters, filter } = state;
  const actions = useLoad(useCallback(() => callApi('/api/v1/manage/log/admin/actions'), [callApi])).data;

  const columns: DataColumn<Row>[] = [
    state.timeColumn,
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
    <LogViewFrame
      state={state}
      person={{
        label: t('log.actor'),
        value: filters.actorId,
        onChange: (actorId) => filter({ actorId }),
      }}
      label={t('log.views.admin')}
      testId="admin-log"
      columns={columns}
    >
      <FilterSelect
        label={t('log.action')}
        testId="log-filter-action"
        width={240}
        showSearch
        value={filters.action}
        options={(actions?.list ?? []).map((action) => ({ value: action, label: action }))}
        onChange={(action) => filter({ action })}
      />
    </LogViewFrame>
  );
}
