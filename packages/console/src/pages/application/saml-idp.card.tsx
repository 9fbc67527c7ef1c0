import { DownloadOutlined, SyncOutlined } from '@ant-design/icons';
import { Button, Card, Descriptions, Flex, Skeleton, Space, Tag, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatDate } from '../../lib/format/index.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import { downloadText, type SamlIdp } from './saml-view.ts';

const copyable = (text: string, testId?: string) => (
  <Typography.Text code copyable data-testid={testId} style={{ wordBreak: 'break-all' }}>
    {text}
  </Typography.Text>
);

/**
 * The company's SAML identity provider: what a service provider is given (its metadata URL or
 * the values), the metadata to download or copy, and the rotation of its signing certificate.
 */
export function SamlIdpCard() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const load = useCallback(() => callApi('/api/v1/manage/app/saml/idp'), [callApi]);
  const { data, setData, loading } = useLoad(load);
  return (
    <Card size="small" title={t('apps.saml.idp.title')} data-testid="saml-idp">
      <Typography.Paragraph type="secondary">{t('apps.saml.idp.intro')}</Typography.Paragraph>
      {data ? (
        <Flex vertical gap={16}>
          <Descriptions column={1} size="small" styles={{ label: { width: 180 } }}>
            <Descriptions.Item label={t('apps.saml.idp.metadataUrl')}>
              {copyable(data.metadataUrl, 'saml-idp-metadata-url')}
            </Descriptions.Item>
            <Descriptions.Item label={t('apps.saml.idp.entityId')}>
              {copyable(data.entityId)}
            </Descriptions.Item>
            <Descriptions.Item label={t('apps.saml.idp.ssoUrl')}>
              <Flex vertical gap={2}>
                {copyable(data.ssoUrl)}
                <Typography.Text type="secondary">{t('apps.saml.idp.bindings')}</Typography.Text>
              </Flex>
            </Descriptions.Item>
            <Descriptions.Item label={t('apps.saml.idp.sloUrl')}>{copyable(data.sloUrl)}</Descriptions.Item>
          </Descriptions>
          <Space wrap>
            <Button
              icon={<DownloadOutlined />}
              href={`${data.metadataUrl}?download`}
              data-testid="saml-idp-download"
            >
              {t('apps.saml.idp.download')}
            </Button>
            <Typography.Text
              copyable={{
                text: data.metadataXml,
                tooltips: [t('apps.saml.idp.copyXml'), t('apps.saml.idp.copied')],
              }}
            >
              {t('apps.saml.idp.copyXml')}
            </Typography.Text>
          </Space>
          <KeyRotation idp={data} onChange={setData} />
        </Flex>
      ) : (
        <Skeleton active loading={loading} paragraph={{ rows: 5 }} />
      )}
    </Card>
  );
}

function KeyRotation({ idp, onChange }: { idp: SamlIdp; onChange(idp: SamlIdp): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const [busy, setBusy] = useState(false);
  const hasNext = idp.certificates.some((c) => c.status === 'next');

  const prepare = async () => {
    setBusy(true);
    try {
      onChange(await callApi('/api/v1/manage/app/saml/key/prepare'));
      void message.success(t('apps.saml.idp.prepared'));
    } finally {
      setBusy(false);
    }
  };
  const step = (kind: 'activate' | 'discard') =>
    confirm({
      title: t(`apps.saml.idp.${kind}Title`),
      content: t(`apps.saml.idp.${kind}Content`),
      okText: t(`apps.saml.idp.${kind}`),
      onOk: async () => {
        onChange(await callApi(`/api/v1/manage/app/saml/key/${kind}`));
        void message.success(t(kind === 'activate' ? 'apps.saml.idp.activated' : 'apps.saml.idp.discarded'));
      },
    });

  return (
    <Flex vertical gap={8}>
      <Typography.Text strong>{t('apps.saml.idp.certificates')}</Typography.Text>
      {idp.certificates.map((certificate) => (
        <Card
          key={certificate.fingerprint}
          size="small"
          type="inner"
          data-testid={`saml-certificate-${certificate.status}`}
        >
          <Flex wrap gap={12} justify="space-between" align="center">
            <Flex vertical gap={2} style={{ minWidth: 0 }}>
              <Space wrap size={8}>
                <Tag color={certificate.status === 'active' ? 'green' : 'blue'}>
                  {t(`apps.saml.idp.${certificate.status}`)}
                </Tag>
                <Typography.Text>{certificate.subject}</Typography.Text>
              </Space>
              <Typography.Text type="secondary">
                {t('apps.saml.idp.validUntil', {
                  date: formatDate(certificate.notAfter * 1000, 'YYYY-MM-DD'),
                })}
              </Typography.Text>
              <Typography.Text type="secondary" style={{ fontSize: 12, overflowWrap: 'anywhere' }}>
                {t('apps.saml.idp.fingerprint')} {certificate.fingerprint}
              </Typography.Text>
            </Flex>
            <Space wrap>
              <Button
                size="small"
                icon={<DownloadOutlined />}
                onClick={() =>
                  downloadText(
                    `tessera-saml-${certificate.status}.pem`,
                    certificate.pem,
                    'application/x-pem-file',
                  )
                }
              >
                {t('apps.saml.idp.downloadCertificate')}
              </Button>
              {certificate.status === 'next' ? (
                <>
                  <Button
                    size="small"
                    type="primary"
                    onClick={() => step('activate')}
                    data-testid="saml-key-activate"
                  >
                    {t('apps.saml.idp.activate')}
                  </Button>
                  <Button size="small" danger onClick={() => step('discard')}>
                    {t('apps.saml.idp.discard')}
                  </Button>
                </>
              ) : null}
            </Space>
          </Flex>
        </Card>
      ))}
      {hasNext ? null : (
        <Flex vertical gap={4} align="flex-start">
          <Button icon={<SyncOutlined />} loading={busy} onClick={prepare} data-testid="saml-key-prepare">
            {t('apps.saml.idp.prepare')}
          </Button>
          <Typography.Text type="secondary">{t('apps.saml.idp.prepareHint')}</Typography.Text>
        </Flex>
      )}
    </Flex>
  );
}
