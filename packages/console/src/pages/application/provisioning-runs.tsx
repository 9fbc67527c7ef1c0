import { Button, Card, Flex, Space, Tag, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';

type Preview = ApiResponse<'/api/v1/manage/app/provisioning/preview'>;
type PreviewRow = Preview['list'][number];
type Run = ApiResponse<'/api/v1/manage/app/provisioning/runs'>['list'][number];

const RUNS_PAGE = 10;
/** How often the runs are read again while one is waiting or running. */
const POLL_MS = 2_000;

const countKeys = ['created', 'adopted', 'updated', 'deactivated', 'deleted', 'unchanged', 'failed'] as const;

const actionColour: Record<PreviewRow['action'], string> = {
  create: 'green',
  update: 'blue',
  deactivate: 'orange',
  delete: 'red',
};
const statusColour: Record<Run['status'], string> = {
  queued: 'default',
  running: 'processing',
  retrying: 'warning',
  succeeded: 'success',
  failed: 'error',
};

/** What the next run would create, update, deactivate or delete (nothing is sent). */
export function ProvisioningPreview({ appId }: { appId: string }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [preview, setPreview] = useState<Preview>();
  const [loading, setLoading] = useState(false);
  const load = async () => {
    setLoading(true);
    try {
      setPreview(await callApi('/api/v1/manage/app/provisioning/preview', { appId }));
    } catch {
      // Shown by the HTTP client.
    } finally {
      setLoading(false);
    }
  };
  const columns: DataColumn<PreviewRow>[] = [
    { key: 'username', title: t('apps.provisioning.column.username'), render: (row) => row.username },
    { key: 'name', title: t('apps.provisioning.column.name'), render: (row) => row.name ?? '—' },
    {
      key: 'action',
      title: t('apps.provisioning.column.action'),
      render: (row) => (
        <Tag color={actionColour[row.action]}>{t(`apps.provisioning.action.${row.action}`)}</Tag>
      ),
    },
  ];
  return (
    <Card
      size="small"
      title={t('apps.provisioning.previewTitle')}
      data-testid="provisioning-preview"
      extra={
        <Button loading={loading} onClick={() => void load()}>
          {t('apps.provisioning.previewButton')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t('apps.provisioning.previewIntro')}</Typography.Paragraph>
      {preview ? (
        <Flex vertical gap={12}>
          <Typography.Text strong>{t('apps.provisioning.previewCounts', preview.counts)}</Typography.Text>
          {preview.list.length ? (
            <DataTable<PreviewRow>
              label={t('apps.provisioning.previewTitle')}
              testId="provisioning-preview-list"
              rowKey={(row) => row.userId}
              columns={columns}
              rows={preview.list}
            />
          ) : (
            <Typography.Text type="secondary">{t('apps.provisioning.previewEmpty')}</Typography.Text>
          )}
        </Flex>
      ) : null}
    </Card>
  );
}

/** The runs of the application, newest first, followed while one waits or runs; "Run now". */
export function ProvisioningRuns({ appId, enabled }: { appId: string; enabled: boolean }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [page, setPage] = useState(1);
  const [starting, setStarting] = useState(false);
  const load = useCallback(
    () => callApi('/api/v1/manage/app/provisioning/runs', { appId, page, pageSize: RUNS_PAGE }),
    [callApi, appId, page],
  );
  const { data, reload, loading } = useLoad(load);
  const active = data?.list.some((run) => ['queued', 'running', 'retrying'].includes(run.status));
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [active, reload]);

  const runNow = async () => {
    setStarting(true);
    try {
      await callApi('/api/v1/manage/app/provisioning/run', { appId });
      void message.info(t('apps.provisioning.queued'));
      setPage(1);
      reload();
    } catch {
      // Shown by the HTTP client.
    } finally {
      setStarting(false);
    }
  };

  /** The counts that are not zero, in their fixed order. */
  const countsText = (counts: Run['counts']) => {
    const shown = countKeys.filter((key) => counts[key] > 0);
    if (!shown.length) return t('apps.provisioning.nothingDone');
    return shown
      .map((key) => t(`apps.provisioning.count.${key}`, { n: counts[key] }))
      .join(t('apps.provisioning.countSeparator'));
  };

  const columns: DataColumn<Run>[] = [
    {
      key: 'started',
      title: t('apps.provisioning.column.started'),
      render: (run) => (
        <span style={{ whiteSpace: 'nowrap' }}>
          {formatDate(run.startedAt ?? run.createdAt, 'YYYY-MM-DD HH:mm:ss')}
        </span>
      ),
    },
    {
      key: 'trigger',
      title: t('apps.provisioning.column.trigger'),
      render: (run) =>
        run.trigger === 'manual'
          ? t('apps.provisioning.trigger.manual', {
              who: run.requestedBy ?? t('apps.provisioning.trigger.system'),
            })
          : t(`apps.provisioning.trigger.${run.trigger}`),
    },
    {
      key: 'status',
      title: t('apps.provisioning.column.status'),
      render: (run) => (
        <Space size={4} wrap>
          <Tag color={statusColour[run.status]}>{t(`apps.provisioning.status.${run.status}`)}</Tag>
          {run.attempts > 1 ? (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('apps.provisioning.attempts', { attempts: run.attempts })}
            </Typography.Text>
          ) : null}
        </Space>
      ),
    },
    {
      key: 'counts',
      title: t('apps.provisioning.column.counts'),
      render: (run) => (
        <Flex vertical gap={4}>
          <span>{countsText(run.counts)}</span>
          {run.errors.map((error, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a run's errors are a fixed list, never reordered
            <Typography.Text key={index} type="danger" style={{ fontSize: 12 }}>
              {error.username ? `${error.username}: ` : ''}
              {error.message}
            </Typography.Text>
          ))}
        </Flex>
      ),
    },
  ];

  return (
    <Card
      size="small"
      title={t('apps.provisioning.runsTitle')}
      data-testid="provisioning-runs"
      extra={
        <Space wrap>
          <Button onClick={reload}>{t('apps.provisioning.refresh')}</Button>
          <Button type="primary" disabled={!enabled} loading={starting} onClick={() => void runNow()}>
            {t('apps.provisioning.runNow')}
          </Button>
        </Space>
      }
    >
      <DataTable<Run>
        label={t('apps.provisioning.runs')}
        testId="provisioning-run-list"
        rowKey={(run) => run.runId}
        loading={loading}
        columns={columns}
        {...pagedList(data, { page, pageSize: RUNS_PAGE }, { onChange: (next) => setPage(next) })}
      />
    </Card>
  );
}
