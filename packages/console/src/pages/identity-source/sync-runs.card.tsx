import { type SyncRowKind, syncRowKinds } from '@tessera/contract/constants';
import { Button, Card, Flex, Modal, Segmented, Space, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { RunCounts, RunStatusTag } from './run-summary.tsx';
import type { SyncRun } from './source-view.ts';

const RUNS_PAGE = 10;
/** How often the runs are read again while one is queued or running. */
const POLL_MS = 2_000;

/**
 * The directory sync of a saved source: preview, apply a preview (exactly its rows), sync at
 * once, and the runs with their counts, errors and rows. Runs are jobs: the list follows them
 * until they end.
 */
export function SyncRunsCard({ sourceId, enabled }: { sourceId: string; enabled: boolean }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message, modal } = useFeedback();
  const [page, setPage] = useState(1);
  const [starting, setStarting] = useState(false);
  const [shown, setShown] = useState<SyncRun>();
  const load = useCallback(
    () => callApi('/api/v1/manage/identity-source/sync/runs', { sourceId, page, pageSize: RUNS_PAGE }),
    [callApi, sourceId, page],
  );
  const { data, reload } = useLoad(load);
  const active = data?.list.some((run) => run.status === 'queued' || run.status === 'running');

  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [active, reload]);

  const start = async (
    path: '/api/v1/manage/identity-source/sync/preview' | '/api/v1/manage/identity-source/sync/start',
  ) => {
    setStarting(true);
    try {
      await callApi(path, { sourceId });
      void message.info(t('sources.sync.queued'));
      setPage(1);
      reload();
    } catch {
      // Shown by the HTTP client.
    } finally {
      setStarting(false);
    }
  };

  const apply = (preview: SyncRun) => {
    const counts = preview.counts;
    modal.confirm({
      title: t('sources.sync.applyTitle'),
      content: t('sources.sync.applyContent', {
        created: counts?.created ?? 0,
        updated: counts?.updated ?? 0,
        moved: counts?.moved ?? 0,
        disabled: counts?.disabled ?? 0,
      }),
      okText: t('sources.sync.apply'),
      cancelText: t('common.cancel'),
      onOk: async () => {
        await callApi('/api/v1/manage/identity-source/sync/apply', { sourceId, runId: preview.runId });
        void message.info(t('sources.sync.queued'));
        reload();
      },
    });
  };

  const columns: DataColumn<SyncRun>[] = [
    {
      key: 'started',
      title: t('sources.sync.column.started'),
      render: (run) => (
        <span style={{ whiteSpace: 'nowrap' }}>
          {formatDate(run.startedAt ?? run.createdAt, 'YYYY-MM-DD HH:mm:ss')}
        </span>
      ),
    },
    {
      key: 'mode',
      title: t('sources.sync.column.mode'),
      render: (run) => (
        <Flex vertical>
          <span>{t(`sources.run.mode.${run.mode}`)}</span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {run.trigger === 'schedule'
              ? t('sources.run.trigger.schedule')
              : t('sources.run.trigger.manual', { who: run.requestedBy ?? t('sources.run.trigger.system') })}
          </Typography.Text>
        </Flex>
      ),
    },
    { key: 'status', title: t('sources.sync.column.status'), render: (run) => <RunStatusTag run={run} /> },
    {
      key: 'counts',
      title: t('sources.sync.column.counts'),
      render: (run) =>
        run.errors.length ? (
          <Typography.Text type="danger">
            {run.errors.map((error) => error.message).join('; ')}
          </Typography.Text>
        ) : (
          <RunCounts run={run} />
        ),
    },
    {
      key: 'actions',
      title: '',
      render: (run) => (
        <Space size={4} style={{ whiteSpace: 'nowrap' }}>
          {run.counts ? (
            <Button type="link" size="small" style={{ paddingInline: 0 }} onClick={() => setShown(run)}>
              {t('sources.sync.rows')}
            </Button>
          ) : null}
          {run.mode === 'preview' && run.status === 'succeeded' ? (
            run.appliedByRunId ? (
              <Typography.Text type="secondary">{t('sources.sync.applied')}</Typography.Text>
            ) : (
              <Button type="link" size="small" disabled={!enabled} onClick={() => apply(run)}>
                {t('sources.sync.apply')}
              </Button>
            )
          ) : null}
        </Space>
      ),
    },
  ];

  return (
    <Card
      title={t('sources.sync.title')}
      data-testid="sync-runs"
      extra={
        <Space wrap>
          <Button
            disabled={!enabled}
            loading={starting}
            onClick={() => void start('/api/v1/manage/identity-source/sync/preview')}
          >
            {t('sources.sync.preview')}
          </Button>
          <Button
            disabled={!enabled}
            loading={starting}
            onClick={() => void start('/api/v1/manage/identity-source/sync/start')}
          >
            {t('sources.sync.syncNow')}
          </Button>
        </Space>
      }
      styles={{ header: { flexWrap: 'wrap', rowGap: 8, paddingBlock: 12 } }}
    >
      <Typography.Paragraph type="secondary">{t('sources.sync.intro')}</Typography.Paragraph>
      <DataTable<SyncRun>
        label={t('sources.sync.runs')}
        testId="sync-run-list"
        rowKey={(run) => run.runId}
        columns={columns}
        {...pagedList(data, { page, pageSize: RUNS_PAGE }, { onChange: (next) => setPage(next) })}
      />
      {shown ? <RunRowsModal sourceId={sourceId} run={shown} onClose={() => setShown(undefined)} /> : null}
    </Card>
  );
}

type RunRow = ApiResponse<'/api/v1/manage/identity-source/sync/rows'>['list'][number];
const ROWS_PAGE = 20;
/** The counts field behind each kind of row. */
const countOf: Record<SyncRowKind, keyof NonNullable<SyncRun['counts']>> = {
  department_created: 'departmentsCreated',
  department_updated: 'departmentsUpdated',
  department_removed: 'departmentsRemoved',
  created: 'created',
  updated: 'updated',
  moved: 'moved',
  disabled: 'disabled',
  enabled: 'enabled',
  conflict: 'conflicts',
};

/** The rows of a run, by kind: what it creates, updates, moves and disables (or did). */
function RunRowsModal({ sourceId, run, onClose }: { sourceId: string; run: SyncRun; onClose(): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const kinds = syncRowKinds.filter((kind) => (run.counts?.[countOf[kind]] ?? 0) > 0);
  const [kind, setKind] = useState<SyncRowKind>(kinds[0] ?? 'created');
  const [page, setPage] = useState(1);
  const load = useCallback(
    () =>
      callApi('/api/v1/manage/identity-source/sync/rows', {
        sourceId,
        runId: run.runId,
        kind,
        page,
        pageSize: ROWS_PAGE,
      }),
    [callApi, sourceId, run.runId, kind, page],
  );
  const { data, loading } = useLoad(load);
  const columns: DataColumn<RunRow>[] = [
    { key: 'label', title: t('sources.sync.rowColumn.label'), render: (row) => row.label },
    {
      key: 'changes',
      title: t('sources.sync.rowColumn.changes'),
      render: (row) =>
        row.changes.map((change) => (
          <div key={change.field} style={{ fontSize: 12 }}>
            <Typography.Text type="secondary">{change.field}: </Typography.Text>
            {change.before !== null ? <del>{change.before}</del> : null} {change.after ?? ''}
          </div>
        )),
    },
    { key: 'note', title: t('sources.sync.rowColumn.note'), render: (row) => row.note ?? '' },
  ];
  return (
    <Modal
      open
      title={`${t(`sources.run.mode.${run.mode}`)} · ${formatDate(run.createdAt, 'YYYY-MM-DD HH:mm')}`}
      onCancel={onClose}
      footer={<Button onClick={onClose}>{t('sources.sync.close')}</Button>}
      width={860}
      destroyOnHidden
    >
      {kinds.length ? (
        <Flex vertical gap={12}>
          <Segmented<SyncRowKind>
            value={kind}
            onChange={(next) => {
              setKind(next);
              setPage(1);
            }}
            options={kinds.map((value) => ({
              value,
              label: `${t(`sources.sync.kind.${value}`)} (${run.counts?.[countOf[value]] ?? 0})`,
            }))}
            style={{ flexWrap: 'wrap' }}
          />
          <DataTable<RunRow>
            label={t(`sources.sync.kind.${kind}`)}
            testId="sync-rows"
            rowKey={(row) => `${row.kind}:${row.externalId}`}
            loading={loading}
            columns={columns}
            {...pagedList(data, { page, pageSize: ROWS_PAGE }, { onChange: (next) => setPage(next) })}
          />
        </Flex>
      ) : (
        <RunCounts run={run} />
      )}
    </Modal>
  );
}
