import { Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDate } from '../../lib/format/date.ts';
import type { SyncRun } from './source-view.ts';

const statusColor = { queued: 'default', running: 'processing', succeeded: 'green', failed: 'red' } as const;

export function RunStatusTag({ run }: { run: Pick<SyncRun, 'status'> }) {
  const { t } = useTranslation();
  return <Tag color={statusColor[run.status]}>{t(`sources.run.status.${run.status}`)}</Tag>;
}

/** A run's changes in one line: created, updated, moved, disabled... (the non-zero ones). */
export function RunCounts({ run }: { run: Pick<SyncRun, 'counts'> }) {
  const { t } = useTranslation();
  const counts = run.counts;
  if (!counts) return null;
  const parts = (
    ['created', 'updated', 'moved', 'disabled', 'enabled', 'conflicts', 'conflictsElsewhere'] as const
  )
    .filter((key) => counts[key] > 0)
    .map((key) => `${counts[key]} ${t(`sources.sync.counts.${key}`)}`);
  const departments = counts.departmentsCreated + counts.departmentsUpdated + counts.departmentsRemoved;
  if (departments > 0)
    parts.push(
      t('sources.sync.counts.departments', {
        created: counts.departmentsCreated,
        updated: counts.departmentsUpdated,
        removed: counts.departmentsRemoved,
      }),
    );
  if (!parts.length) parts.push(`${counts.unchanged} ${t('sources.sync.counts.unchanged')}`);
  return <span>{parts.join(' · ')}</span>;
}

/** The last run of a source, as the list shows it: when, how it went, what it changed or why it failed. */
export function LastRun({ run }: { run: SyncRun | null }) {
  const { t } = useTranslation();
  if (!run) return <Typography.Text type="secondary">{t('sources.list.never')}</Typography.Text>;
  return (
    <span>
      <RunStatusTag run={run} />
      <span style={{ whiteSpace: 'nowrap' }}>
        {formatDate(run.finishedAt ?? run.createdAt, 'YYYY-MM-DD HH:mm')}
      </span>
      <br />
      <Typography.Text type={run.status === 'failed' ? 'danger' : 'secondary'} style={{ fontSize: 12 }}>
        {run.errors[0]?.message ?? <RunCounts run={run} />}
      </Typography.Text>
    </span>
  );
}
