import { ImportOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Descriptions, Flex, Skeleton, Typography } from 'antd';
import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole, useSession } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useTimeAgo } from '../../lib/use-time-ago.ts';
import { CompanyQuotasCard } from './company-quotas.card.tsx';
import { LicenseTable } from './license-table.tsx';
import { LICENSE_FILE_MAX_BYTES } from './license-view.ts';

type LicenceDetail = ApiResponse<'/api/v1/manage/license/detail'>;

/**
 * /setting/license (full set): the application code and the licence. Platform administrators see
 * the installation's totals, import licences and set company quotas; company administrators see
 * their company's quotas and usage.
 */
export function LicensePage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const loadCode = useCallback(() => callApi('/api/v1/manage/license/code'), [callApi]);
  const loadDetail = useCallback(() => callApi('/api/v1/manage/license/detail'), [callApi]);
  const code = useLoad(loadCode);
  const detail = useLoad(loadDetail);
  const platform = detail.data?.scope === 'installation';

  return (
    <Flex vertical gap={24} style={{ maxWidth: 1200 }}>
      <Card title={t('license.codeTitle')}>
        {code.data ? (
          <Typography.Paragraph
            copyable
            code
            data-testid="application-code"
            style={{ fontSize: 16, marginBottom: 8, wordBreak: 'break-all' }}
          >
            {code.data.code}
          </Typography.Paragraph>
        ) : (
          <Skeleton active loading={code.loading} title={false} paragraph={{ rows: 1 }} />
        )}
        {detail.data && (
          <Typography.Text type="secondary">
            {platform ? t('license.codeHint') : t('license.codeHintCompany')}
          </Typography.Text>
        )}
      </Card>
      <Card
        title={t('license.detailTitle')}
        extra={platform ? <ImportLicence onImported={detail.setData} /> : null}
      >
        {detail.data ? (
          <LicenceBody detail={detail.data} />
        ) : (
          <Skeleton active loading={detail.loading} paragraph={{ rows: 4 }} />
        )}
      </Card>
      {platform && <CompanyQuotasCard />}
    </Flex>
  );
}

function LicenceBody({ detail }: { detail: LicenceDetail }) {
  const { t } = useTranslation();
  const timeAgo = useTimeAgo();
  const { company } = useSession();
  return (
    <Flex vertical gap={16}>
      {detail.scope === 'company' && (
        <Typography.Text type="secondary" data-testid="license-company-hint">
          {t('license.companyHint', { company: company?.name ?? '' })}
        </Typography.Text>
      )}
      {detail.licenseId ? (
        <Descriptions
          size="small"
          column={{ xs: 1, sm: 1, md: 2 }}
          data-testid="license-summary"
          items={[
            { key: 'customer', label: t('license.customer'), children: detail.customer ?? '—' },
            {
              key: 'id',
              label: t('license.licenseId'),
              children: <Typography.Text copyable>{detail.licenseId}</Typography.Text>,
            },
            { key: 'issued', label: t('license.issuedAt'), children: formatDate(detail.issuedAt) || '—' },
            {
              key: 'imported',
              label: t('license.importedAt'),
              children: detail.importedAt ? (
                <span title={formatDate(detail.importedAt)}>{timeAgo(detail.importedAt)}</span>
              ) : (
                '—'
              ),
            },
          ]}
        />
      ) : (
        <Alert type="info" showIcon title={t('license.noLicence')} />
      )}
      <LicenseTable list={detail.list} scope={detail.scope} />
    </Flex>
  );
}

/** Reads the chosen licence file as text and sends it; the server checks the signature. */
function ImportLicence({ onImported }: { onImported(detail: LicenceDetail): void }) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const input = useRef<HTMLInputElement>(null);
  const [importing, setImporting] = useState(false);

  const importFile = async (file: File) => {
    if (file.size > LICENSE_FILE_MAX_BYTES) return void message.error(t('license.fileTooLarge'));
    const text = await file.text();
    if (!text.trim()) return void message.error(t('license.fileEmpty'));
    setImporting(true);
    try {
      onImported(await callApi('/api/v1/manage/license/import', { license: text }));
      void message.success(t('license.imported'));
    } catch {
      // The HTTP client has shown the server's reason (signature, installation, permission).
    } finally {
      setImporting(false);
    }
  };

  return (
    <>
      <input
        ref={input}
        type="file"
        accept=".lic,.txt,text/plain"
        hidden
        data-testid="license-file"
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (file) void importFile(file);
        }}
      />
      <Button
        type="primary"
        icon={<ImportOutlined />}
        loading={importing}
        onClick={() => input.current?.click()}
      >
        {t('license.importLicence')}
      </Button>
    </>
  );
}
