import { PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Descriptions, Flex, Space, Tag, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import { SecretOnceModal } from '../application/secret-once.modal.tsx';
import { RadiusClientModal } from './radius-client.modal.tsx';

type RadiusList = ApiResponse<'/api/v1/manage/radius/client/list'>;
export type RadiusClient = RadiusList['list'][number];

/** /safety-management/radius (full set): the RADIUS server of this installation and the company's RADIUS clients. */
export function RadiusPage() {
  const { callApi } = useConsole();
  const load = useCallback(() => callApi('/api/v1/manage/radius/client/list'), [callApi]);
  const { data, loading, reload } = useLoad(load);
  return (
    <Flex vertical gap={16} style={{ maxWidth: 1200 }}>
      <RadiusServerCard server={data?.server} />
      <RadiusClientsCard clients={data?.list ?? []} loading={loading} reload={reload} />
    </Flex>
  );
}

function RadiusServerCard({ server }: { server: RadiusList['server'] | undefined }) {
  const { t } = useTranslation();
  return (
    <Card title={t('radius.server.title')} loading={!server}>
      <Typography.Paragraph type="secondary" style={{ marginTop: -4 }}>
        {t('radius.server.hint')}
      </Typography.Paragraph>
      {server && (
        <Descriptions column={1} size="small" data-testid="radius-server">
          <Descriptions.Item label={t('radius.server.address')}>
            {server.port === null ? (
              <Alert
                type="warning"
                showIcon
                title={t('radius.server.off')}
                description={t('radius.server.offHint')}
              />
            ) : (
              t('radius.server.port', { port: server.port })
            )}
          </Descriptions.Item>
          <Descriptions.Item label={t('radius.server.challenge')}>
            {t('radius.server.challengeSeconds', { seconds: server.challengeSeconds })}
          </Descriptions.Item>
          <Descriptions.Item label={t('radius.server.factors')}>
            {t('radius.server.factorsHint')}
          </Descriptions.Item>
        </Descriptions>
      )}
    </Card>
  );
}

/** The secret the server answered once, with the client it belongs to. */
interface ShownSecret {
  name: string;
  secret: string;
}

function RadiusClientsCard({
  clients,
  loading,
  reload,
}: {
  clients: RadiusClient[];
  loading: boolean;
  reload(): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  /** `null`: a new client; a client: edit it; undefined: the form is closed. */
  const [editing, setEditing] = useState<RadiusClient | null>();
  const [shown, setShown] = useState<ShownSecret>();

  const remove = (client: RadiusClient) =>
    confirm({
      title: t('radius.list.deleteTitle', { name: client.name }),
      content: t('radius.list.deleteContent'),
      okText: t('radius.list.delete'),
      onOk: async () => {
        await callApi('/api/v1/manage/radius/client/del', { clientId: client.clientId });
        void message.success(t('radius.list.deleted'));
        reload();
      },
    });

  const resetSecret = (client: RadiusClient) =>
    confirm({
      title: t('radius.list.resetTitle', { name: client.name }),
      content: t('radius.list.resetContent'),
      okText: t('radius.list.resetSecret'),
      onOk: async () => {
        const { secret } = await callApi('/api/v1/manage/radius/client/secret/reset', {
          clientId: client.clientId,
        });
        setShown({ name: client.name, secret });
      },
    });

  const columns = clientColumns(t, { edit: setEditing, resetSecret, remove });
  return (
    <Card
      title={t('radius.list.title')}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing(null)}>
          {t('radius.list.add')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary" style={{ marginTop: -4 }}>
        {t('radius.list.hint')}
      </Typography.Paragraph>
      <DataTable
        columns={columns}
        rows={clients}
        rowKey={(client) => client.clientId}
        loading={loading}
        label={t('radius.list.title')}
        testId="radius-clients"
      />
      <RadiusClientModal
        target={editing}
        onClose={() => setEditing(undefined)}
        onSaved={(saved) => {
          setEditing(undefined);
          if (saved.secret) setShown({ name: saved.client.name, secret: saved.secret });
          reload();
        }}
      />
      {shown && (
        <SecretOnceModal
          title={t('radius.secret.title', { name: shown.name })}
          label={t('radius.secret.label')}
          secret={shown.secret}
          onClose={() => setShown(undefined)}
        />
      )}
    </Card>
  );
}

function clientColumns(
  t: TFunction,
  act: {
    edit(client: RadiusClient): void;
    resetSecret(client: RadiusClient): void;
    remove(client: RadiusClient): void;
  },
): DataColumn<RadiusClient>[] {
  return [
    {
      key: 'name',
      title: t('radius.list.columns.name'),
      render: (client) => (
        <Flex vertical gap={2}>
          <strong>{client.name}</strong>
          <Typography.Text code style={{ fontSize: 12, width: 'fit-content', whiteSpace: 'nowrap' }}>
            {client.source}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'access',
      title: t('radius.list.columns.access'),
      minScreen: 'md',
      render: (client) =>
        client.access === 'all'
          ? t('radius.access.all')
          : client.departments.map((department) => department.name).join(', '),
    },
    {
      key: 'otpMode',
      title: t('radius.list.columns.otpMode'),
      minScreen: 'lg',
      render: (client) => t(`radius.otpMode.${client.otpMode}`),
    },
    {
      key: 'status',
      title: t('radius.list.columns.status'),
      render: (client) => (
        <Tag variant="filled" color={client.enabled ? 'green' : 'default'} style={{ marginInlineEnd: 0 }}>
          {t(client.enabled ? 'radius.list.enabled' : 'radius.list.disabled')}
        </Tag>
      ),
    },
    {
      key: 'requests',
      title: t('radius.list.columns.requests'),
      minScreen: 'lg',
      render: ({ stats }) => <RequestCounts stats={stats} />,
    },
    {
      key: 'actions',
      title: t('radius.list.columns.actions'),
      render: (client) => (
        <Space size={0} wrap>
          <Button type="link" size="small" onClick={() => act.edit(client)}>
            {t('radius.list.edit')}
          </Button>
          <Button type="link" size="small" onClick={() => void act.resetSecret(client)}>
            {t('radius.list.resetSecret')}
          </Button>
          <Button type="link" size="small" danger onClick={() => void act.remove(client)}>
            {t('radius.list.delete')}
          </Button>
        </Space>
      ),
    },
  ];
}

function RequestCounts({ stats }: { stats: RadiusClient['stats'] }) {
  const { t } = useTranslation();
  const dropped = stats.droppedNoAuthenticator + stats.droppedBadAuthenticator;
  return (
    <Flex vertical gap={2} style={{ fontSize: 12 }}>
      <span>{t('radius.list.counts', { accepts: stats.accepts, rejects: stats.rejects })}</span>
      {dropped > 0 && (
        <Typography.Text type="warning" style={{ fontSize: 12 }}>
          {t('radius.list.dropped', { count: dropped })}
        </Typography.Text>
      )}
      {stats.lastRequestAt && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('radius.list.lastRequest', { time: formatDate(stats.lastRequestAt) })}
        </Typography.Text>
      )}
    </Flex>
  );
}
