import { Alert, Button, Card, Flex, Space, Tabs, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { BackButton, DetailMissing } from '../../components/detail-nav.tsx';
import { ImageUpload } from '../../components/image-upload.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { AppAccessCard } from './app-access.card.tsx';
import { AppApiAccountsCard } from './app-api-accounts.card.tsx';
import { AppBasicsCard } from './app-basics.card.tsx';
import { AppCasCard } from './app-cas.card.tsx';
import { AppFormFillCard } from './app-form-fill.card.tsx';
import { AppLdapCard } from './app-ldap.card.tsx';
import { AppLogo } from './app-logo.tsx';
import { AppProtocolCard } from './app-protocol.card.tsx';
import { AppProvisioningCard } from './app-provisioning.card.tsx';
import { logoAccept, logoProblem } from './app-rules.ts';
import { AppSamlCard } from './app-saml.card.tsx';
import { AppStatusTag } from './app-status-tag.tsx';
import { APP_LIST_PATH, type AppDetail, camel, templateName, templateOf, toggledStatus } from './app-view.ts';
import { useAppActions } from './use-app-actions.ts';

const tabKeys = [
  'basics',
  'protocol',
  'saml',
  'cas',
  'ldap',
  'form',
  'access',
  'provisioning',
  'api',
] as const;
type TabKey = (typeof tabKeys)[number];

/** /application/detail?appId=… (hidden; highlights the list): one application's settings. */
export function AppDetailPage() {
  const [params] = useSearchParams();
  const appId = params.get('appId')?.trim() ?? '';
  if (!appId) return <AppMissing status="info" />;
  return <AppDetailView key={appId} appId={appId} />;
}

function AppMissing({ status, loading }: { status: 'info' | '404'; loading?: boolean }) {
  const { t } = useTranslation();
  return (
    <DetailMissing
      loading={loading}
      status={status}
      title={t('apps.detail.missing')}
      backTo={APP_LIST_PATH}
      backLabel={t('apps.detail.backToList')}
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

  if (!app) return <AppMissing status="404" loading={loading} />;

  const onlyFor: Partial<Record<TabKey, AppDetail['protocol']>> = {
    protocol: 'oidc',
    saml: 'saml',
    cas: 'cas',
    ldap: 'ldap',
    form: 'form',
  };
  const shown: TabKey[] = tabKeys.filter((key) => (onlyFor[key] ?? app.protocol) === app.protocol);
  const asked = params.get('tab') as TabKey | null;
  const active: TabKey = asked && shown.includes(asked) ? asked : 'basics';
  const body: Record<TabKey, () => React.ReactNode> = {
    basics: () => <AppBasicsCard app={app} onChange={setApp} />,
    protocol: () => <AppProtocolCard app={app} onChange={setApp} />,
    saml: () => <AppSamlCard app={app} />,
    cas: () => <AppCasCard app={app} />,
    ldap: () => <AppLdapCard app={app} onChange={setApp} />,
    form: () => <AppFormFillCard app={app} />,
    access: () => <AppAccessCard app={app} onChange={setApp} />,
    provisioning: () => <AppProvisioningCard app={app} />,
    api: () => <AppApiAccountsCard app={app} />,
  };

  return (
    <Flex vertical gap={16} style={{ maxWidth: 1400 }}>
      <BackButton to={APP_LIST_PATH}>{t('apps.detail.backToList')}</BackButton>
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
  const actions = useAppActions();
  const [busy, setBusy] = useState(false);
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
            <ImageUpload
              accept={logoAccept}
              problemOf={logoProblem}
              send={async (file) => {
                const { logo } = await uploadFile('/api/v1/manage/app/logo', file, {
                  fields: { appId: app.appId },
                });
                onChange({ ...app, logo });
              }}
              uploaded="apps.detail.logoUpdated"
              button={{ size: 'small', type: 'link', title: t('apps.detail.logoHint') }}
            >
              {t('apps.detail.uploadLogo')}
            </ImageUpload>
          </Flex>
          <Flex vertical gap={4} style={{ minWidth: 0 }}>
            <Typography.Title level={4} style={{ margin: 0, overflowWrap: 'anywhere' }}>
              {app.name}
            </Typography.Title>
            <Space size={8} wrap>
              <AppStatusTag status={app.status} ready={app.readyToEnable} />
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
        <Alert
          type="info"
          showIcon
          title={t(app.readyToEnable ? 'apps.detail.readyHint' : 'apps.detail.notConfiguredHint')}
          style={{ marginTop: 16 }}
        />
      ) : null}
    </Card>
  );
}
