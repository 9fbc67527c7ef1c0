import { ArrowLeftOutlined } from '@ant-design/icons';
import { Card, Descriptions, Flex, Grid, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { SafetyLoading } from '../safety/safety-form.tsx';
import { useKeyLabel } from './ca-parts.tsx';
import { CertificatesCard } from './certificates.card.tsx';

const wrap = { overflowWrap: 'anywhere' } as const;

/** One certificate authority: its certificate, where its CRL is published, and what it issued. */
export function CaDetail({ caId }: { caId: string }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const keyLabel = useKeyLabel();
  const narrow = !(Grid.useBreakpoint().md ?? true);
  const load = useCallback(() => callApi('/api/v1/manage/ca/detail', { caId }), [callApi, caId]);
  const { data: authority, loading, reload } = useLoad(load);

  const back = (
    <Link to="/safety-management/ca">
      <ArrowLeftOutlined /> {t('ca.detail.back')}
    </Link>
  );
  if (!authority)
    return (
      <Flex vertical gap={16}>
        {back}
        <SafetyLoading loading={loading} onRetry={reload} />
      </Flex>
    );
  return (
    <Flex vertical gap={16} style={{ maxWidth: 1200 }}>
      {back}
      <Card title={authority.name} data-testid="ca-detail">
        <Descriptions column={1} size="small" layout={narrow ? 'vertical' : 'horizontal'}>
          <Descriptions.Item label={t('ca.detail.subject')}>
            <span style={wrap}>{authority.subject}</span>
          </Descriptions.Item>
          <Descriptions.Item label={t('ca.detail.key')}>
            {keyLabel(authority)} · {t(`ca.source.${authority.source}`)}
          </Descriptions.Item>
          <Descriptions.Item label={t('ca.detail.serialNumber')}>
            <Typography.Text code style={wrap}>
              {authority.serialNumber}
            </Typography.Text>
          </Descriptions.Item>
          <Descriptions.Item label={t('ca.detail.validity')}>
            {t('ca.detail.validityRange', {
              from: formatDate(authority.notBefore),
              until: formatDate(authority.notAfter),
            })}
          </Descriptions.Item>
          <Descriptions.Item label={t('ca.detail.fingerprint')}>
            <Typography.Text code style={{ ...wrap, fontSize: 12 }}>
              {authority.fingerprint}
            </Typography.Text>
          </Descriptions.Item>
          <Descriptions.Item label={t('ca.detail.crlUrl')}>
            <Flex vertical gap={2}>
              <Typography.Text copyable={{ text: authority.crlUrl }} style={wrap} data-testid="crl-url">
                <a href={authority.crlUrl}>{authority.crlUrl}</a>
              </Typography.Text>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('ca.detail.crlHint')}
              </Typography.Text>
            </Flex>
          </Descriptions.Item>
          <Descriptions.Item label={t('ca.detail.certificateUrl')}>
            <Typography.Text copyable={{ text: authority.certificateUrl }} style={wrap}>
              <a href={authority.certificateUrl}>{authority.certificateUrl}</a>
            </Typography.Text>
          </Descriptions.Item>
        </Descriptions>
      </Card>
      <CertificatesCard authority={authority} onChanged={reload} />
    </Flex>
  );
}
