import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { formatDate } from '../../lib/format/date.ts';
import type { SamlDetail } from './source-view.ts';

type RefreshState = NonNullable<SamlDetail['metadataRefresh']>;

/**
 * The saved source's metadata URL, read again once a day by the server (and now, on demand): when
 * it was last read, and the error of a failed read (the source keeps its last good settings).
 * `onRead` gets the source as it now is (new certificates, single sign-on address).
 */
export function SamlMetadataRefresh({
  detail,
  onRead,
}: {
  detail: SamlDetail & { metadataRefresh: RefreshState };
  onRead(detail: SamlDetail): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [state, setState] = useState<RefreshState>(detail.metadataRefresh);
  const [reading, setReading] = useState(false);

  const readNow = async () => {
    setReading(true);
    try {
      setState(
        await callApi('/api/v1/manage/identity-source/saml/metadata/refresh', { sourceId: detail.sourceId }),
      );
      const fresh = await callApi('/api/v1/manage/identity-source/detail', { sourceId: detail.sourceId });
      if (fresh.type === 'saml') onRead(fresh);
    } finally {
      setReading(false);
    }
  };

  return (
    <Flex vertical gap={8} data-testid="saml-metadata-refresh">
      <Flex gap={8} align="center" wrap>
        <Typography.Text type="secondary">
          {state.refreshedAt
            ? t('sources.saml.refreshedAt', { time: formatDate(state.refreshedAt) })
            : t('sources.saml.notRefreshed')}
        </Typography.Text>
        <Button size="small" icon={<ReloadOutlined />} loading={reading} onClick={() => void readNow()}>
          {t('sources.saml.refreshNow')}
        </Button>
      </Flex>
      {state.error ? (
        <Alert
          type="warning"
          showIcon
          data-testid="saml-metadata-refresh-error"
          title={t('sources.saml.refreshFailed', { time: formatDate(state.failedAt ?? '') })}
          description={state.error}
        />
      ) : null}
    </Flex>
  );
}
