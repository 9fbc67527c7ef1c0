import { ArrowLeftOutlined, UploadOutlined } from '@ant-design/icons';
import { appLimits, companyIconTypes } from '@tessera/contract/constants';
import { Alert, Button, Card, Flex, Result, Skeleton, Space, Tabs, Typography, Upload } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useLoad } from '../../lib/use-load.ts';
import { AppAccessCard } from './app-access.card.tsx';
import { AppApiAccountsCard } from './app-api-accounts.card.tsx';
import { AppBasicsCard } from './app-basics.card.tsx';
import { AppFormFillCard } from './app-form-fill.card.tsx';
import { AppLogo } from './app-logo.tsx';
import { AppProtocolCard } from './app-protocol.card.tsx';
import { AppStatusTag } from './app-status-tag.tsx';
import { APP_LIST_PATH, type AppDetail, camel, templateName, templateOf, toggledStatus } from './app-view.ts';
import { useAppActions } from './use-app-actions.ts';

const tabKeys = ['basics', 'protocol', 'form', 'access', 'api'] as const;
type TabKey = (typeof tabKeys)[number];

/** /application/detail?appId=… (hidden; highlights the list): one application's settings. */
export function AppDetailPage() {
  const [params] = useSearchParams();
  const appId = params.get('appId')?.trim() ?? '';
  if (!appId) return <AppMissing status="info" />;
  return <AppDetailView key={appId} appId={appId} />;
}

function AppMissing({ status }: { status: 'info' | '404' }) {
  const { t } = useTranslation();
  return (
    <Result
      status={status}
      title={t('apps.detail.missing')}
      extra={
        <Link to={APP_LIST_PATH}>
          <Button type="primary">{t('apps.detail.backToList')}</Button>
        </Link>
      }
    />
  );
}

function AppDetailView({ appId }: { appId: string }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const load = useCallback(() => callApi('/api/v1/manage/app/detail', { appId }), [callApi, appId]);
  const { data: app, setData: setApp, loading } = useLoad(load);

  if (!app) {
    return loading ? (
      <Card>
        <Skeleton active avatar paragraph={{ rows: 6 }} />
      </Card>
    ) : (
      <AppMissing status="404" />
    );
  }

  const shown: TabKey[] = tabKeys.filter((key) =>
    key === 'protocol' ? app.protocol === 'oidc' : key === 'form' ? app.protocol === 'form' : true,
  );
  const asked = params.get('tab') as TabKey | null;
  const active: TabKey = asked && shown.includes(asked) ? asked : 'basics';
  const body: Record<TabKey, () => React.ReactNode> = {
    basics: () => <AppBasicsCard app={app} onChange={setApp} />,
    protocol: () => <AppProtocolCard app={app} onChange={setApp} />,
    form: () => <AppFormFillCard app={app} />,
    access: () => <AppAccessCard app={app} onChange={setApp} />,
    api: () => <AppApiAccountsCard app={app} />,
  };

  return (
    <Flex vertical gap={16} style={{ maxWidth: 1400 }}>
      <div>
        <Button
          type="link"
          icon={<ArrowLeftOutlined />}
          style={{ paddingInline: 0 }}
          onClick={() => navigate(APP_LIST_PATH)}
        >
          {t('apps.detail.backToList')}
        </Button>
      </div>
      <AppHeader app={app} onChange={setApp} onDeleted={() => navigate(APP_LIST_PATH, { replace: true })} />
      <Card styles={{ body: { paddingTop: 4 } }}>
        <Tabs
          activeKey={active}
          onChange={(key) => {
            const next = new URLSearchParams(params);
            next.set('tab', key);
            setParams(next, { replace: true });
          }}
          items={shown.map((key) => ({ key, label: t(`apps.detail.tab.${key}`) }))}
        />
        {body[active]()}
      </Card>
    </Flex>
  );
}

const logoTypes: readonly string[] = companyIconTypes;
const logoAccept = ['.png', '.jpg', '.jpeg', '.svg', '.webp', ...logoTypes].join(',');

function AppHeader({
  app,
  onChange,
  onDeleted,
}: {
  app: AppDetail;
  onChange(app: AppDetail): void;
  onDeleted(): void;
}) {
  const { t } = useTranslation();
  const { uploadFile } = useConsole();
  const { message } = useFeedback();
  const actions = useAppActions();
  const [busy, setBusy] = useState(false);
  const [uploading, setUploading] = useState(false);
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } finally {
      setBusy(false);
    }
  };
  const template = templateOf(app.template);

  return (
    <Card>
      <Flex wrap gap={24} align="center" justify="space-between">
        <Flex gap={16} align="center" style={{ minWidth: 0 }}>
          <Flex vertical align="center" gap={4}>
            <AppLogo app={app} size={64} />
            <Upload
              accept={logoAccept}
              showUploadList={false}
              maxCount={1}
              beforeUpload={(file) => {
                if (!logoTypes.includes(file.type)) {
                  void message.error(t('apps.detail.logoWrongType'));
                  return Upload.LIST_IGNORE;
                }
                if (file.size > appLimits.logoBytes) {
                  void message.error(t('apps.detail.logoTooLarge'));
                  return Upload.LIST_IGNORE;
                }
                return true;
              }}
              customRequest={({ file, onSuccess, onError }) => {
                setUploading(true);
                uploadFile('/api/v1/manage/app/logo', file as Blob, { fields: { appId: app.appId } })
                  .then(({ logo }) => {
                    onChange({ ...app, logo });
                    void message.success(t('apps.detail.logoUpdated'));
                    onSuccess?.(logo);
                  })
                  .catch((error: Error) => onError?.(error))
                  .finally(() => setUploading(false));
              }}
            >
              <Button
                size="small"
                type="link"
                icon={<UploadOutlined />}
                loading={uploading}
                title={t('apps.detail.logoHint')}
              >
                {t('apps.detail.uploadLogo')}
              </Button>
            </Upload>
          </Flex>
          <Flex vertical gap={4} style={{ minWidth: 0 }}>
            <Typography.Title level={4} style={{ margin: 0, overflowWrap: 'anywhere' }}>
              {app.name}
            </Typography.Title>
            <Space size={8} wrap>
              <AppStatusTag status={app.status} />
              <Typography.Text type="secondary">
                {t(`apps.type.${camel(app.type)}`)} · {t(`apps.protocolName.${app.protocol}`)}
                {template ? ` · ${templateName(t, template)}` : ''}
              </Typography.Text>
            </Space>
            {app.description ? (
              <Typography.Text type="secondary" style={{ overflowWrap: 'anywhere' }}>
                {app.description}
              </Typography.Text>
            ) : null}
          </Flex>
        </Flex>
        <Space wrap size={8}>
          <Button
            type={app.status === 'opened' ? 'default' : 'primary'}
            danger={app.status === 'opened'}
            disabled={busy}
            onClick={() =>
              run(async () => {
                const changed = await actions.setStatus(app, toggledStatus(app.status));
                if (changed) onChange({ ...app, ...changed });
              })
            }
          >
            {app.status === 'opened' ? t('apps.list.disable') : t('apps.list.enable')}
          </Button>
          <Button
            danger
            disabled={busy}
            onClick={() =>
              run(async () => {
                if (await actions.remove(app)) onDeleted();
              })
            }
          >
            {t('apps.list.delete')}
          </Button>
        </Space>
      </Flex>
      {app.status === 'to_be_configured' ? (
        <Alert type="info" showIcon title={t('apps.detail.notConfiguredHint')} style={{ marginTop: 16 }} />
      ) : null}
    </Card>
  );
}
