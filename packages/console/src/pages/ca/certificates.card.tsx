import { PlusOutlined } from '@ant-design/icons';
import { certificateStatuses } from '@tessera/contract/constants';
import { Button, Card, Flex, Select, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import {
  type CertificateAuthority,
  CertificateStatusTag,
  type IssuedCertificate,
  useKeyLabel,
} from './ca-parts.tsx';
import { IssueCertificateModal } from './issue-certificate.modal.tsx';
import { RevokeCertificateModal } from './revoke-certificate.modal.tsx';

type Status = IssuedCertificate['status'];
interface Query {
  status?: Status;
  page: number;
  pageSize: number;
}

/** The certificates a CA issued, newest first: issue one, revoke one with a reason. */
export function CertificatesCard({
  authority,
  onChanged,
}: {
  authority: CertificateAuthority;
  /** A certificate was issued or revoked: the CA's counts changed. */
  onChanged(): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const keyLabel = useKeyLabel();
  const [query, setQuery] = useState<Query>({ page: 1, pageSize: 20 });
  const [issuing, setIssuing] = useState(false);
  const [revoking, setRevoking] = useState<IssuedCertificate>();
  const load = useCallback(
    () => callApi('/api/v1/manage/ca/certificate/list', { caId: authority.caId, ...query }),
    [callApi, authority.caId, query],
  );
  const { data, loading, reload } = useLoad(load);
  const changed = () => {
    reload();
    onChanged();
  };

  return (
    <Card
      title={t('ca.detail.certificatesTitle')}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setIssuing(true)}>
          {t('ca.detail.issue')}
        </Button>
      }
    >
      <Flex vertical gap={16}>
        <Select
          allowClear
          placeholder={t('ca.detail.allStatuses')}
          aria-label={t('ca.detail.status')}
          style={{ width: 180 }}
          value={query.status}
          options={certificateStatuses.map((value) => ({
            value,
            label: t(`ca.certificate.status.${value}`),
          }))}
          onChange={(status?: Status) => setQuery((old) => ({ ...old, status, page: 1 }))}
        />
        <DataTable
          columns={certificateColumns(t, keyLabel, setRevoking)}
          rowKey={(certificate) => certificate.certificateId}
          loading={loading}
          label={t('ca.detail.certificatesTitle')}
          testId="certificate-list"
          {...pagedList(data, query, {
            showTotal: (count) => t('ca.detail.total', { count }),
            onChange: (page, pageSize) => setQuery((old) => ({ ...old, page, pageSize })),
          })}
        />
      </Flex>
      <IssueCertificateModal
        authority={authority}
        open={issuing}
        onClose={() => setIssuing(false)}
        onIssued={changed}
      />
      <RevokeCertificateModal
        target={revoking}
        onClose={() => setRevoking(undefined)}
        onRevoked={() => {
          setRevoking(undefined);
          changed();
        }}
      />
    </Card>
  );
}

function certificateColumns(
  t: TFunction,
  keyLabel: ReturnType<typeof useKeyLabel>,
  revoke: (certificate: IssuedCertificate) => void,
): DataColumn<IssuedCertificate>[] {
  return [
    {
      key: 'person',
      title: t('ca.certificate.columns.person'),
      render: (certificate) => (
        <Flex vertical gap={2}>
          <strong>{certificate.username ?? '—'}</strong>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {certificate.subject}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'serialNumber',
      title: t('ca.certificate.columns.serialNumber'),
      minScreen: 'lg',
      render: (certificate) => (
        <Typography.Text code style={{ fontSize: 12, overflowWrap: 'anywhere' }}>
          {certificate.serialNumber}
        </Typography.Text>
      ),
    },
    {
      key: 'key',
      title: t('ca.certificate.columns.key'),
      minScreen: 'md',
      render: (certificate) => (
        <Flex vertical gap={2}>
          <span>{keyLabel(certificate)}</span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t(`ca.certificate.origin.${certificate.source}`)}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'status',
      title: t('ca.certificate.columns.status'),
      render: (certificate) => (
        <Flex vertical gap={2} align="flex-start">
          <CertificateStatusTag status={certificate.status} />
          {certificate.revokedAt && certificate.revocationReason && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('ca.certificate.revokedOn', {
                time: formatDate(certificate.revokedAt, 'YYYY-MM-DD'),
                reason: t(`ca.reason.${certificate.revocationReason}`),
              })}
            </Typography.Text>
          )}
        </Flex>
      ),
    },
    {
      key: 'validUntil',
      title: t('ca.certificate.columns.validUntil'),
      minScreen: 'md',
      render: (certificate) => formatDate(certificate.notAfter, 'YYYY-MM-DD'),
    },
    {
      key: 'actions',
      title: t('ca.certificate.columns.actions'),
      render: (certificate) =>
        certificate.status === 'valid' && (
          <Button type="link" size="small" danger onClick={() => revoke(certificate)}>
            {t('ca.certificate.revoke')}
          </Button>
        ),
    },
  ];
}
