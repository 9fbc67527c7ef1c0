import { ImportOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Space, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import { CaCreateModal } from './ca-create.modal.tsx';
import { CaDetail } from './ca-detail.tsx';
import { CaImportModal } from './ca-import.modal.tsx';
import { CA_PARAM, type CertificateAuthority, caDetailPath, useKeyLabel } from './ca-parts.tsx';

/**
 * /safety-management/ca (full set): the company's certificate authorities, created here or
 * imported (spec §3 Certificate, §5 key strengths and CA file); one CA's detail, with the
 * certificates it issued, under `?caId=`.
 */
export function CaPage() {
  const [params] = useSearchParams();
  const caId = params.get(CA_PARAM);
  return caId ? <CaDetail key={caId} caId={caId} /> : <CaList />;
}

function CaList() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const keyLabel = useKeyLabel();
  const [opened, setOpened] = useState<'create' | 'import'>();
  const load = useCallback(async () => (await callApi('/api/v1/manage/ca/list')).list, [callApi]);
  const { data, loading, reload } = useLoad(load);

  const remove = (authority: CertificateAuthority) =>
    confirm({
      title: t('ca.list.deleteTitle', { name: authority.name }),
      content: t('ca.list.deleteContent'),
      okText: t('ca.list.delete'),
      onOk: async () => {
        await callApi('/api/v1/manage/ca/del', { caId: authority.caId });
        void message.success(t('ca.list.deleted'));
        reload();
      },
    });

  const saved = () => {
    setOpened(undefined);
    reload();
  };
  return (
    <Card
      title={t('ca.list.title')}
      extra={
        <Flex gap={8} wrap justify="end">
          <Button icon={<ImportOutlined />} onClick={() => setOpened('import')}>
            {t('ca.list.import')}
          </Button>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setOpened('create')}>
            {t('ca.list.create')}
          </Button>
        </Flex>
      }
      style={{ maxWidth: 1200 }}
    >
      <Typography.Paragraph type="secondary" style={{ marginTop: -4 }}>
        {t('ca.list.hint')}
      </Typography.Paragraph>
      <DataTable
        columns={caColumns(t, keyLabel, remove)}
        rows={data ?? []}
        rowKey={(authority) => authority.caId}
        loading={loading}
        label={t('ca.list.title')}
        testId="ca-list"
      />
      <CaCreateModal open={opened === 'create'} onClose={() => setOpened(undefined)} onSaved={saved} />
      <CaImportModal open={opened === 'import'} onClose={() => setOpened(undefined)} onSaved={saved} />
    </Card>
  );
}

function caColumns(
  t: TFunction,
  keyLabel: ReturnType<typeof useKeyLabel>,
  remove: (authority: CertificateAuthority) => void,
): DataColumn<CertificateAuthority>[] {
  return [
    {
      key: 'name',
      title: t('ca.list.columns.name'),
      render: (authority) => (
        <Flex vertical gap={2}>
          <Link to={caDetailPath(authority.caId)}>
            <strong>{authority.name}</strong>
          </Link>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {authority.subject}
          </Typography.Text>
        </Flex>
      ),
    },
    { key: 'key', title: t('ca.list.columns.key'), render: keyLabel },
    {
      key: 'source',
      title: t('ca.list.columns.source'),
      minScreen: 'lg',
      render: (authority) => t(`ca.source.${authority.source}`),
    },
    {
      key: 'validUntil',
      title: t('ca.list.columns.validUntil'),
      minScreen: 'md',
      render: (authority) => formatDate(authority.notAfter, 'YYYY-MM-DD'),
    },
    {
      key: 'certificates',
      title: t('ca.list.columns.certificates'),
      render: ({ certificates }) => t('ca.list.certificateCounts', certificates),
    },
    {
      key: 'actions',
      title: t('ca.list.columns.actions'),
      render: (authority) => (
        <Space size={0} wrap>
          <Link to={caDetailPath(authority.caId)}>
            <Button type="link" size="small" tabIndex={-1}>
              {t('ca.list.detail')}
            </Button>
          </Link>
          <Button type="link" size="small" danger onClick={() => remove(authority)}>
            {t('ca.list.delete')}
          </Button>
        </Space>
      ),
    },
  ];
}
