import { ReloadOutlined, ThunderboltOutlined } from '@ant-design/icons';
import {
  type AppSigningAlgorithm,
  type AppTokenAuthMethod,
  appScopes,
  appSigningAlgorithms,
  appTokenAuthMethods,
} from '@tessera/contract/constants';
import {
  Button,
  Card,
  Checkbox,
  Col,
  Descriptions,
  Flex,
  Form,
  Grid,
  Input,
  InputNumber,
  Radio,
  Row,
  Switch,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatThousands } from '../../lib/format/number.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import {
  isWebUrl,
  type LifetimeKey,
  lifetimeKeys,
  lifetimeRule,
  logoutUriRule,
  recommendedLifetimes,
} from './app-rules.ts';
import { type AppDetail, camel } from './app-view.ts';
import { detailFormLayout } from './form-layout.ts';
import { SecretOnceModal } from './secret-once.modal.tsx';
import { UriList } from './uri-list.tsx';
import { useDetailSave } from './use-detail-save.ts';

export interface ProtocolValues {
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string;
  frontchannelLogoutUri: string;
  initiateLoginUri: string;
  homeUrl: string;
  scopes: string[];
  signingAlg: AppSigningAlgorithm;
  tokenAuthMethod: AppTokenAuthMethod;
  requirePkce: boolean;
  lifetimes: Partial<Record<LifetimeKey, number | null>>;
}

const formFields = [
  'redirectUris',
  'postLogoutRedirectUris',
  'backchannelLogoutUri',
  'frontchannelLogoutUri',
  'initiateLoginUri',
  'homeUrl',
  'scopes',
  'signingAlg',
  'tokenAuthMethod',
  'requirePkce',
  'lifetimes',
];

export const protocolValuesOf = (app: AppDetail): ProtocolValues => ({
  redirectUris: [...app.oidc.redirectUris],
  postLogoutRedirectUris: [...app.oidc.postLogoutRedirectUris],
  backchannelLogoutUri: app.oidc.backchannelLogoutUri ?? '',
  frontchannelLogoutUri: app.oidc.frontchannelLogoutUri ?? '',
  initiateLoginUri: app.oidc.initiateLoginUri ?? '',
  homeUrl: app.oidc.homeUrl ?? '',
  scopes: [...new Set(['openid', ...app.oidc.scopes])],
  signingAlg: app.oidc.signingAlg,
  tokenAuthMethod: app.oidc.tokenAuthMethod,
  requirePkce: app.oidc.requirePkce,
  lifetimes: { ...app.oidc.lifetimes },
});

const logoutPlaceholders = {
  backchannelLogoutUri: 'https://app.example.com/oidc/backchannel-logout',
  frontchannelLogoutUri: 'https://app.example.com/oidc/frontchannel-logout',
};

const optionalUrlRule = (message: string) => ({
  validator: async (_rule: unknown, value: string | undefined) => {
    if (value?.trim() && !isWebUrl(value.trim())) throw new Error(message);
  },
});

/** The OIDC tab: client credentials, sign-in settings, token lifetimes and the metadata document. */
export function AppProtocolCard({ app, onChange }: { app: AppDetail; onChange(app: AppDetail): void }) {
  return (
    <Flex vertical gap={16}>
      <ClientCredentials app={app} />
      <ProtocolForm app={app} onChange={onChange} />
      <MetadataCard app={app} />
    </Flex>
  );
}

function ClientCredentials({ app }: { app: AppDetail }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const confirm = useDangerConfirm();
  const [secret, setSecret] = useState<string>();

  // A refused reset keeps the old secret.
  const reset = () =>
    confirm({
      title: t('apps.protocol.resetTitle'),
      content: t('apps.protocol.resetContent'),
      okText: t('apps.protocol.resetSecret'),
      onOk: async () => {
        const { clientSecret } = await callApi('/api/v1/manage/app/secret/reset', { appId: app.appId });
        setSecret(clientSecret);
      },
    });

  return (
    <Card title={t('apps.protocol.credentials')} size="small">
      <Descriptions column={1} size="small" styles={{ label: { width: 160 } }}>
        <Descriptions.Item label={t('apps.protocol.clientId')}>
          <Typography.Text code copyable data-testid="client-id" style={{ wordBreak: 'break-all' }}>
            {app.clientId}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('apps.protocol.clientSecret')}>
          <Flex wrap gap={8} align="center">
            <Typography.Text type="secondary">{t('apps.protocol.secretHidden')}</Typography.Text>
            <Button size="small" danger icon={<ReloadOutlined />} onClick={reset}>
              {t('apps.protocol.resetSecret')}
            </Button>
          </Flex>
        </Descriptions.Item>
      </Descriptions>
      {secret ? (
        <SecretOnceModal
          title={t('apps.secret.title')}
          clientId={app.clientId}
          secret={secret}
          onClose={() => setSecret(undefined)}
        />
      ) : null}
    </Card>
  );
}

function ProtocolForm({ app, onChange }: { app: AppDetail; onChange(app: AppDetail): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<ProtocolValues>();
  // A public client (no secret) has nothing but PKCE: it stays on.
  const isPublic = Form.useWatch('tokenAuthMethod', form) === 'none';
  const narrow = !(Grid.useBreakpoint().md ?? true);

  useEffect(() => {
    form.setFieldsValue(protocolValuesOf(app));
  }, [form, app]);

  const { saving, submit } = useDetailSave(form, formFields, async (values) => {
    onChange(
      await callApi('/api/v1/manage/app/update', {
        appId: app.appId,
        redirectUris: values.redirectUris.map((uri) => uri.trim()),
        postLogoutRedirectUris: values.postLogoutRedirectUris.map((uri) => uri.trim()),
        backchannelLogoutUri: values.backchannelLogoutUri?.trim() || null,
        frontchannelLogoutUri: values.frontchannelLogoutUri?.trim() || null,
        initiateLoginUri: values.initiateLoginUri?.trim() || null,
        homeUrl: values.homeUrl?.trim() || null,
        scopes: values.scopes as never,
        signingAlg: values.signingAlg,
        tokenAuthMethod: values.tokenAuthMethod,
        requirePkce: values.requirePkce,
        lifetimes: values.lifetimes as Record<LifetimeKey, number>,
      }),
    );
  });

  const useRecommended = () => {
    form.setFieldsValue({ lifetimes: { ...recommendedLifetimes } });
    void form.validateFields(lifetimeKeys.map((key) => ['lifetimes', key]));
    void message.info(t('apps.protocol.recommendedFilled'));
  };

  return (
    <Card title={t('apps.protocol.settings')} size="small">
      <Form<ProtocolValues>
        form={form}
        {...detailFormLayout(narrow, 200)}
        style={{ maxWidth: 900 }}
        initialValues={protocolValuesOf(app)}
        onFinish={submit}
        disabled={saving}
        data-testid="protocol-form"
      >
        <UriList
          name="redirectUris"
          label={t('apps.protocol.redirectUris')}
          extra={t('apps.protocol.redirectUrisHint')}
        />
        <UriList
          name="postLogoutRedirectUris"
          label={t('apps.protocol.logoutUris')}
          extra={t('apps.protocol.logoutUrisHint')}
        />
        {(['backchannelLogoutUri', 'frontchannelLogoutUri'] as const).map((name) => (
          <Form.Item
            key={name}
            name={name}
            label={t(`apps.protocol.${name}`)}
            extra={t(`apps.protocol.${name}Hint`)}
            rules={[logoutUriRule(t)]}
          >
            <Input placeholder={logoutPlaceholders[name]} inputMode="url" spellCheck={false} />
          </Form.Item>
        ))}
        <Form.Item
          name="initiateLoginUri"
          label={t('apps.protocol.initiateLoginUri')}
          extra={t('apps.protocol.initiateLoginUriHint')}
          rules={[optionalUrlRule(t('apps.protocol.urlInvalid'))]}
        >
          <Input placeholder="https://app.example.com/login" inputMode="url" spellCheck={false} />
        </Form.Item>
        <Form.Item
          name="homeUrl"
          label={t('apps.protocol.homeUrl')}
          rules={[optionalUrlRule(t('apps.protocol.urlInvalid'))]}
        >
          <Input placeholder="https://app.example.com/" inputMode="url" spellCheck={false} />
        </Form.Item>
        <Form.Item name="scopes" label={t('apps.protocol.scopes')} extra={t('apps.protocol.scopesHint')}>
          <Checkbox.Group
            options={appScopes.map((scope) => ({
              value: scope,
              label: t(`apps.protocol.scope.${camel(scope)}`),
              disabled: scope === 'openid',
            }))}
          />
        </Form.Item>
        <Form.Item
          name="signingAlg"
          label={t('apps.protocol.signingAlg')}
          extra={t('apps.protocol.signingAlgHint')}
        >
          <Radio.Group
            optionType="button"
            options={appSigningAlgorithms.map((alg) => ({ value: alg, label: alg }))}
          />
        </Form.Item>
        <Form.Item name="tokenAuthMethod" label={t('apps.protocol.tokenAuthMethod')}>
          <Radio.Group>
            <Flex vertical gap={4}>
              {appTokenAuthMethods.map((method) => (
                <Radio key={method} value={method}>
                  {t(`apps.protocol.authMethod.${camel(method)}`)}
                </Radio>
              ))}
            </Flex>
          </Radio.Group>
        </Form.Item>
        <Form.Item
          name="requirePkce"
          label={t('apps.protocol.requirePkce')}
          extra={t('apps.protocol.requirePkceHint')}
          valuePropName="checked"
        >
          <Switch disabled={isPublic} />
        </Form.Item>
        <Form.Item label={t('apps.protocol.lifetimes')} extra={t('apps.protocol.lifetimesHint')}>
          <Row gutter={[16, 0]} data-testid="lifetimes">
            {lifetimeKeys.map((key) => (
              <Col key={key} xs={24} sm={12}>
                <Form.Item
                  name={['lifetimes', key]}
                  label={t(`apps.protocol.lifetime.${key}`)}
                  layout="vertical"
                  required={key === 'accessToken'}
                  rules={[lifetimeRule(t, key)]}
                  extra={t('apps.protocol.recommended', {
                    value: formatThousands(recommendedLifetimes[key]),
                  })}
                  style={{ marginBottom: 12 }}
                >
                  <InputNumber
                    min={1}
                    precision={0}
                    controls={false}
                    suffix={t('apps.protocol.seconds')}
                    style={{ width: '100%' }}
                  />
                </Form.Item>
              </Col>
            ))}
          </Row>
          <Button
            type="link"
            icon={<ThunderboltOutlined />}
            style={{ paddingInline: 0 }}
            onClick={useRecommended}
          >
            {t('apps.protocol.useRecommended')}
          </Button>
        </Form.Item>
        <Form.Item label={null} colon={false} style={{ marginBottom: 0 }}>
          <Flex gap={8}>
            <Button type="primary" htmlType="submit" loading={saving}>
              {t('apps.detail.save')}
            </Button>
            <Button onClick={() => form.setFieldsValue(protocolValuesOf(app))}>
              {t('apps.detail.reset')}
            </Button>
          </Flex>
        </Form.Item>
      </Form>
    </Card>
  );
}

const metadataKeys = [
  'issuer',
  'discoveryUrl',
  'jwksUri',
  'authorizationEndpoint',
  'tokenEndpoint',
  'userinfoEndpoint',
  'endSessionEndpoint',
] as const;

function MetadataCard({ app }: { app: AppDetail }) {
  const { t } = useTranslation();
  return (
    <Card title={t('apps.protocol.metadata')} size="small" data-testid="metadata">
      <Typography.Paragraph type="secondary">{t('apps.protocol.metadataHint')}</Typography.Paragraph>
      <Descriptions column={1} size="small" bordered styles={{ label: { width: 200 } }}>
        {metadataKeys.map((key) => (
          <Descriptions.Item key={key} label={t(`apps.protocol.${key}`)}>
            <Typography.Text
              copyable
              style={{ fontFamily: 'monospace', fontSize: 12, wordBreak: 'break-all' }}
            >
              {app.metadata[key]}
            </Typography.Text>
          </Descriptions.Item>
        ))}
      </Descriptions>
    </Card>
  );
}
