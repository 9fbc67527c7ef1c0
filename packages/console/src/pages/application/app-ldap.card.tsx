import { Button, Card, Descriptions, Flex, Skeleton, Switch, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatDate } from '../../lib/format/date.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { AppDetail } from './app-view.ts';
import { SecretOnceModal } from './secret-once.modal.tsx';

/**
 * The LDAP tab of an LDAP application: the service account's bind DN and the company's base DN
 * to give the application, its secret (made or replaced, shown once), and whether people may
 * bind with their password alone where the company asks them for a second factor, and whether
 * people and groups are also served as POSIX accounts and groups (Linux hosts).
 */
export function AppLdapCard({ app, onChange }: { app: AppDetail; onChange(app: AppDetail): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const load = useCallback(
    () => callApi('/api/v1/manage/app/ldap/detail', { appId: app.appId }),
    [callApi, app.appId],
  );
  const { data, setData, loading } = useLoad(load);
  const [secret, setSecret] = useState<string>();
  const [saving, setSaving] = useState(false);

  if (!data)
    return (
      <Card size="small" title={t('apps.ldap.title')}>
        <Skeleton active loading={loading} paragraph={{ rows: 5 }} />
      </Card>
    );

  const rotate = async () => {
    const answer = await callApi('/api/v1/manage/app/ldap/secret/rotate', { appId: app.appId });
    const { secret: made, ...settings } = answer;
    setData(settings);
    setSecret(made);
    // The application can be enabled once it has a secret: the header says so.
    onChange(await callApi('/api/v1/manage/app/detail', { appId: app.appId }));
  };
  const askRotate = () =>
    data.hasSecret
      ? void confirm({
          title: t('apps.ldap.rotateTitle'),
          content: t('apps.ldap.rotateContent'),
          okText: t('apps.ldap.rotateSecret'),
          onOk: rotate,
        })
      : void rotate();
  const save = async (change: { allowPasswordWithMfa?: boolean; posix?: boolean }) => {
    setSaving(true);
    try {
      setData(await callApi('/api/v1/manage/app/ldap/update', { appId: app.appId, ...change }));
      void message.success(t('apps.ldap.saved'));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Card size="small" title={t('apps.ldap.title')}>
      <Typography.Paragraph type="secondary">{t('apps.ldap.intro')}</Typography.Paragraph>
      <Descriptions column={1} bordered size="small" styles={{ label: { width: 260 } }}>
        <Descriptions.Item label={t('apps.ldap.bindDn')}>
          <Typography.Text code copyable data-testid="ldap-bind-dn" style={{ wordBreak: 'break-all' }}>
            {data.bindDn}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('apps.ldap.baseDn')}>
          <Flex vertical gap={4}>
            <Typography.Text code copyable data-testid="ldap-base-dn" style={{ wordBreak: 'break-all' }}>
              {data.baseDn}
            </Typography.Text>
            <Typography.Text type="secondary">{t('apps.ldap.baseDnHint')}</Typography.Text>
          </Flex>
        </Descriptions.Item>
        <Descriptions.Item label={t('apps.ldap.secret')}>
          <Flex wrap gap={12} align="center">
            <Typography.Text type="secondary">
              {data.hasSecret && data.secretRotatedAt
                ? t('apps.ldap.secretSet', { when: formatDate(data.secretRotatedAt, 'YYYY-MM-DD HH:mm') })
                : t('apps.ldap.secretNotSet')}
            </Typography.Text>
            <Button onClick={askRotate}>
              {t(data.hasSecret ? 'apps.ldap.rotateSecret' : 'apps.ldap.makeSecret')}
            </Button>
          </Flex>
        </Descriptions.Item>
        <Descriptions.Item label={t('apps.ldap.allowPasswordWithMfa')}>
          <Flex vertical gap={4} align="flex-start">
            <Switch
              checked={data.allowPasswordWithMfa}
              loading={saving}
              onChange={(allowPasswordWithMfa) => save({ allowPasswordWithMfa })}
              aria-label={t('apps.ldap.allowPasswordWithMfa')}
            />
            <Typography.Text type="secondary">{t('apps.ldap.allowPasswordWithMfaHint')}</Typography.Text>
          </Flex>
        </Descriptions.Item>
        <Descriptions.Item label={t('apps.ldap.posix')}>
          <Flex vertical gap={4} align="flex-start">
            <Switch
              checked={data.posix}
              loading={saving}
              onChange={(posix) => save({ posix })}
              aria-label={t('apps.ldap.posix')}
              data-testid="ldap-posix"
            />
            <Typography.Text type="secondary">{t('apps.ldap.posixHint')}</Typography.Text>
          </Flex>
        </Descriptions.Item>
      </Descriptions>
      {secret ? (
        <SecretOnceModal
          title={t('apps.ldap.secretTitle')}
          secret={secret}
          onClose={() => setSecret(undefined)}
        />
      ) : null}
    </Card>
  );
}
