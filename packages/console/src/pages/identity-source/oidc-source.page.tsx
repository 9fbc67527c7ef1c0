import { firstScanModes, oidcClientAuthMethods } from '@tessera/contract/constants';
import { Alert, Button, Descriptions, Flex, Form, Input, Radio, Select, Switch, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { FormSection, NameField, requiredRule, SourceForm, SourceScreen } from './source-form.tsx';
import type { OidcDetail, SourceInput } from './source-view.ts';
import { UpstreamButtonFields, UpstreamSignOutField } from './upstream-button-fields.tsx';
import { useSourceSave } from './use-source-save.ts';

type OidcValues = Omit<SourceInput<'oidc'>, 'type'>;
type TestOutcome = ApiResponse<'/api/v1/manage/identity-source/oidc/test'>;

// A new person joins the company's departments named by the groups claim (as with SAML's groups attribute).
const claimFields = ['usernameClaim', 'nameClaim', 'emailClaim', 'phoneClaim', 'groupsClaim'] as const;
const fields = [
  'name',
  'issuer',
  'clientId',
  'clientAuth',
  'clientSecret',
  'scopes',
  ...claimFields,
  'logoUrl',
  'emailDomains',
  'mfaAcrValues',
  'mfaAmrValues',
] as const;

/** /identity-source/oidc/{id?}: an upstream OpenID Connect provider people sign in at. */
export function OidcSourcePage() {
  return (
    <SourceScreen type="oidc">
      {(detail, onSaved) => <OidcForm key={detail?.sourceId ?? 'new'} detail={detail} onSaved={onSaved} />}
    </SourceScreen>
  );
}

const valuesOf = (name: string, source?: OidcDetail): OidcValues => {
  const { secretSet: _set, ...settings } = source?.settings ?? ({} as Partial<OidcDetail['settings']>);
  return {
    name,
    enabled: true,
    issuer: '',
    clientId: '',
    clientAuth: 'client_secret_basic',
    clientSecret: '',
    scopes: 'openid profile email',
    idTokenAlgorithms: [],
    usernameClaim: 'preferred_username',
    nameClaim: 'name',
    emailClaim: 'email',
    phoneClaim: 'phone_number',
    groupsClaim: '',
    mfaAcrValues: [],
    mfaAmrValues: ['mfa'],
    logoUrl: '',
    emailDomains: [],
    trustUpstreamMfa: false,
    signOutUpstream: true,
    firstScan: 'link_only',
    ...settings,
  } as OidcValues;
};

/**
 * An address to give the provider, with a copy button: a Descriptions item itself (antd reads the
 * label and content of its direct children, so a component wrapping an item shows no content).
 */
const address = (label: string, value: string, testId: string) => (
  <Descriptions.Item key={testId} label={label}>
    <Typography.Text copyable code data-testid={testId} style={{ wordBreak: 'break-all' }}>
      {value}
    </Typography.Text>
  </Descriptions.Item>
);

function OidcForm({ detail, onSaved }: { detail?: OidcDetail; onSaved(detail: OidcDetail): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<OidcValues>();
  const [initial] = useState(() => valuesOf(t('sources.type.oidc'), detail));
  const [testing, setTesting] = useState(false);
  const [outcome, setOutcome] = useState<TestOutcome>();
  const clientAuth = Form.useWatch('clientAuth', form);
  const { saving, submit } = useSourceSave({
    type: 'oidc',
    form,
    sourceId: detail?.sourceId,
    fields,
    toInput: (values) => values,
    onSaved: (saved) => {
      if (saved.type !== 'oidc') return;
      onSaved(saved);
      form.setFieldsValue(valuesOf(saved.name, saved));
    },
  });
  const test = async () => {
    setTesting(true);
    setOutcome(undefined);
    try {
      setOutcome(
        await callApi('/api/v1/manage/identity-source/oidc/test', { issuer: form.getFieldValue('issuer') }),
      );
    } catch {
      // The client shows the refusal (an issuer that is not an address).
    } finally {
      setTesting(false);
    }
  };
  const secretKept = Boolean(detail?.settings.secretSet);
  const tags = (name: 'mfaAcrValues' | 'mfaAmrValues', label: string, extra?: string) => (
    <Form.Item name={name} label={label} extra={extra}>
      <Select mode="tags" open={false} tokenSeparators={[',', ' ']} />
    </Form.Item>
  );

  return (
    <SourceForm<OidcValues>
      form={form}
      initialValues={initial}
      saving={saving}
      isNew={!detail}
      onSubmit={() => void submit()}
      testId="oidc-source"
    >
      <FormSection title={t('sources.oidc.provider')} hint={t('sources.typeHint.oidc')}>
        <NameField />
        <Form.Item name="enabled" label={t('sources.form.enabled')} valuePropName="checked">
          <Switch />
        </Form.Item>
        <Form.Item
          name="issuer"
          label={t('sources.oidc.issuer')}
          extra={t('sources.oidc.issuerHint')}
          rules={[requiredRule(t('sources.form.required'))]}
        >
          <Input placeholder="https://login.example.com/tenant/v2.0" autoComplete="off" />
        </Form.Item>
        <Flex vertical gap={8} style={{ marginBottom: 16 }}>
          <Flex gap={8} align="center">
            <Button onClick={() => void test()} loading={testing} data-testid="oidc-test">
              {t('sources.oidc.test')}
            </Button>
            <Typography.Text type="secondary">{t('sources.oidc.testHint')}</Typography.Text>
          </Flex>
          {outcome ? (
            <Alert
              type={outcome.ok ? 'success' : 'error'}
              showIcon
              data-testid="oidc-test-outcome"
              message={outcome.ok ? t('sources.oidc.testOk') : t('sources.oidc.testFailed')}
              description={
                outcome.details ? (
                  <Descriptions size="small" column={1}>
                    <Descriptions.Item label={t('sources.oidc.issuer')}>
                      {outcome.details.issuer}
                    </Descriptions.Item>
                    <Descriptions.Item label={t('sources.oidc.endpoints.authorization')}>
                      {outcome.details.authorizationEndpoint}
                    </Descriptions.Item>
                    <Descriptions.Item label={t('sources.oidc.endpoints.token')}>
                      {outcome.details.tokenEndpoint}
                    </Descriptions.Item>
                    <Descriptions.Item label={t('sources.oidc.endpoints.userinfo')}>
                      {outcome.details.userinfoEndpoint ?? t('sources.oidc.none')}
                    </Descriptions.Item>
                    <Descriptions.Item label={t('sources.oidc.endpoints.endSession')}>
                      {outcome.details.endSessionEndpoint ?? t('sources.oidc.none')}
                    </Descriptions.Item>
                    <Descriptions.Item label={t('sources.oidc.keys')}>
                      {`${outcome.details.keys} (${outcome.details.algorithms.join(', ')})`}
                    </Descriptions.Item>
                  </Descriptions>
                ) : (
                  outcome.message
                )
              }
            />
          ) : null}
        </Flex>
        {detail ? (
          <Descriptions size="small" column={1} bordered title={t('sources.oidc.addresses')}>
            {address(t('sources.oidc.callbackUrl'), detail.callbackUrl, 'callback-url')}
            {address(t('sources.oidc.backchannelLogoutUrl'), detail.backchannelLogoutUrl, 'logout-url')}
            {address(
              t('sources.oidc.postLogoutRedirectUrl'),
              detail.postLogoutRedirectUrl,
              'post-logout-url',
            )}
            {detail.settings.clientAuth === 'private_key_jwt'
              ? address(t('sources.oidc.jwksUrl'), detail.jwksUrl, 'jwks-url')
              : null}
          </Descriptions>
        ) : (
          <Typography.Text type="secondary">{t('sources.form.callbackAfterSave')}</Typography.Text>
        )}
      </FormSection>

      <FormSection title={t('sources.form.credentials')}>
        <Form.Item
          name="clientId"
          label={t('sources.oidc.clientId')}
          rules={[requiredRule(t('sources.form.required'))]}
        >
          <Input style={{ fontFamily: 'monospace' }} autoComplete="off" />
        </Form.Item>
        <Form.Item name="clientAuth" label={t('sources.oidc.clientAuth')}>
          <Radio.Group
            style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
            options={oidcClientAuthMethods.map((mode) => ({
              value: mode,
              label: t(`sources.oidc.clientAuthMode.${mode}`),
            }))}
          />
        </Form.Item>
        {clientAuth === 'private_key_jwt' ? null : (
          <Form.Item
            name="clientSecret"
            label={t('sources.oidc.clientSecret')}
            extra={secretKept ? t('sources.form.secretKept') : undefined}
            rules={secretKept ? [] : [requiredRule(t('sources.form.required'))]}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
        )}
        <Form.Item name="scopes" label={t('sources.oidc.scopes')}>
          <Input autoComplete="off" />
        </Form.Item>
      </FormSection>

      <FormSection title={t('sources.oidc.claims')} hint={t('sources.oidc.claimsHint')}>
        {claimFields.map((name) => (
          <Form.Item key={name} name={name} label={t(`sources.oidc.${name}`)}>
            <Input style={{ fontFamily: 'monospace' }} autoComplete="off" />
          </Form.Item>
        ))}
      </FormSection>

      <FormSection title={t('sources.oidc.signIn')}>
        <UpstreamButtonFields />
        <UpstreamSignOutField />
        <Form.Item
          name="trustUpstreamMfa"
          label={t('sources.oidc.trustUpstreamMfa')}
          extra={t('sources.oidc.trustHint')}
          valuePropName="checked"
        >
          <Switch />
        </Form.Item>
        {tags('mfaAcrValues', t('sources.oidc.mfaAcrValues'))}
        {tags('mfaAmrValues', t('sources.oidc.mfaAmrValues'))}
        <Form.Item name="firstScan" label={t('sources.oidc.firstSignIn')} style={{ marginBottom: 0 }}>
          <Radio.Group
            style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
            options={firstScanModes.map((mode) => ({
              value: mode,
              label: t(`sources.oidc.firstSignInMode.${mode}`),
            }))}
          />
        </Form.Item>
      </FormSection>
    </SourceForm>
  );
}
