import { PlusOutlined } from '@ant-design/icons';
import { syncableSourceTypes } from '@tessera/contract/constants';
import { Button, Card, Space, Switch, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import { LastRun } from './run-summary.tsx';
import { SELECT_SOURCE_PATH, type SourceSummary, sourcePath } from './source-view.ts';

/** /identity-source/index: the company's sources, enabled or not, their people and last sync. */
export function IdentitySourcesPage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const ask = useDangerConfirm();
  const navigate = useNavigate();
  const [busy, setBusy] = useState<string>();
  const load = useCallback(() => callApi('/api/v1/manage/identity-source/list'), [callApi]);
  const { data, setData, loading, reload } = useLoad(load);

  const run = async (source: SourceSummary, work: () => Promise<void>) => {
    setBusy(source.sourceId);
    try {
      await work();
    } catch {
      // Shown by the HTTP client.
    } finally {
      setBusy(undefined);
    }
  };

  const toggle = (source: SourceSummary, enabled: boolean) =>
    run(source, async () => {
      const changed = await callApi('/api/v1/manage/identity-source/status', {
        sourceId: source.sourceId,
        enabled,
      });
      setData((old) =>
        old ? { list: old.list.map((row) => (row.sourceId === changed.sourceId ? changed : row)) } : old,
      );
      void message.success(
        t(enabled ? 'sources.list.enabled' : 'sources.list.disabled', { name: source.name }),
      );
    });

  const remove = (source: SourceSummary) =>
    run(source, async () => {
      let unlinked = 0;
      const done = await ask({
        title: t('sources.list.deleteTitle', { name: source.name }),
        content: t('sources.list.deleteContent', { count: source.people }),
        okText: t('sources.list.delete'),
        onOk: async () => {
          unlinked = (await callApi('/api/v1/manage/identity-source/del', { sourceId: source.sourceId }))
            .peopleUnlinked;
        },
      });
      if (!done) return;
      void message.success(t('sources.list.deleted', { name: source.name, count: unlinked }));
      reload();
    });

  const columns: DataColumn<SourceSummary>[] = [
    {
      key: 'name',
      title: t('sources.list.column.name'),
      render: (source) => (
        <Link to={sourcePath(source.type, source.sourceId)} style={{ fontWeight: 500 }}>
          {source.name}
        </Link>
      ),
    },
    {
      key: 'type',
      title: t('sources.list.column.type'),
      render: (source) => t(`sources.type.${source.type}`),
    },
    {
      key: 'status',
      title: t('sources.list.column.status'),
      render: (source) => (
        <Switch
          size="small"
          checked={source.enabled}
          loading={busy === source.sourceId}
          aria-label={t('sources.list.column.status')}
          onChange={(enabled) => void toggle(source, enabled)}
        />
      ),
    },
    {
      key: 'people',
      title: t('sources.list.column.people'),
      align: 'right',
      render: (source) => source.people,
    },
    {
      key: 'lastSync',
      title: t('sources.list.column.lastSync'),
      minScreen: 'md',
      // Sources without contacts (WeChat, an upstream identity provider) are never synced.
      render: (source) =>
        syncableSourceTypes.includes(source.type) ? <LastRun run={source.lastRun} /> : '—',
    },
    {
      key: 'actions',
      title: '',
      render: (source) => (
        <Space size={4} style={{ whiteSpace: 'nowrap' }}>
          <Button
            type="link"
            size="small"
            style={{ paddingInline: 0 }}
            onClick={() => navigate(sourcePath(source.type, source.sourceId))}
          >
            {t('sources.list.edit')}
          </Button>
          <Button
            type="link"
            size="small"
            danger
            disabled={busy === source.sourceId}
            onClick={() => void remove(source)}
          >
            {t('sources.list.delete')}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <Card
      title={t('sources.list.title')}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(SELECT_SOURCE_PATH)}>
          {t('sources.list.add')}
        </Button>
      }
      styles={{ header: { flexWrap: 'wrap', rowGap: 8, paddingBlock: 12 } }}
      style={{ maxWidth: 1600 }}
    >
      <Typography.Paragraph type="secondary">{t('sources.list.intro')}</Typography.Paragraph>
      <DataTable<SourceSummary>
        label={t('sources.list.title')}
        testId="identity-sources"
        rowKey={(source) => source.sourceId}
        loading={loading}
        columns={columns}
        rows={data?.list ?? []}
      />
    </Card>
  );
}
