import { ImportOutlined } from '@ant-design/icons';
import {
  samlLimits,
  samlNameIdFormats,
  samlNameIdSources,
  samlSignatureAlgorithms,
} from '@tessera/contract/constants';
import { Button, Card, Flex, Form, Grid, Input, Radio, Select, Skeleton, Switch, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { AppDetail } from './app-view.ts';
import { camel, templateOf } from './app-view.ts';
import { detailFormLayout } from './form-layout.ts';
import { SamlIdpCard } from './saml-idp.card.tsx';
import { SamlImportModal } from './saml-import.modal.tsx';
import { AcsList, AttributeList, CertificateList } from './saml-lists.tsx';
import {
  type SamlSettings,
  type SamlValues,
  samlFormFields,
  samlUpdateOf,
  samlUrlRule,
  samlValuesOf,
} from './saml-view.ts';
import { useDetailSave } from './use-detail-save.ts';

/** The SAML tab of a SAML application: its service provider, then the company's identity provider. */
export function AppSamlCard({ app }: { app: AppDetail }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const load = useCallback(
    () => callApi('/api/v1/manage/app/saml/detail', { appId: app.appId }),
    [callApi, app.appId],
  );
  const { data, setData, loading } = useLoad(load);
  const [importing, setImporting] = useState(false);
  return (
    <Flex vertical gap={16}>
      <Card
        size="small"
        title={t('apps.saml.title')}
        extra={
          <Button icon={<ImportOutlined />} onClick={() => setImporting(true)} data-testid="saml-import">
            {t('apps.saml.import')}
          </Button>
        }
      >
        <Typography.Paragraph type="secondary">{t('apps.saml.intro')}</Typography.Paragraph>
        {data?.metadataUrl ? (
          <Typography.Paragraph type="secondary" style={{ overflowWrap: 'anywhere' }}>
            {t('apps.saml.lastFetched', { url: data.metadataUrl })}
          </Typography.Paragraph>
        ) : null}
        {data ? (
          <SamlForm app={app} settings={data} onChange={setData} />
        ) : (
          <Skeleton active loading={loading} paragraph={{ rows: 8 }} />
        )}
      </Card>
      <SamlIdpCard />
      {importing ? (
        <SamlImportModal
          appId={app.appId}
          lastUrl={data?.metadataUrl ?? ''}
          onClose={() => setImporting(false)}
          onImported={(settings) => {
            setImporting(false);
            setData(settings);
          }}
        />
      ) : null}
    </Flex>
  );
}

function SamlForm({
  app,
  settings,
  onChange,
}: {
  app: AppDetail;
  settings: SamlSettings;
  onChange(settings: SamlSettings): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<SamlValues>();
  const narrow = !(Grid.useBreakpoint().md ?? true);
  useEffect(() => form.setFieldsValue(samlValuesOf(settings)), [form, settings]);
  const { saving, submit } = useDetailSave(form, samlFormFields, async (values) => {
    onChange(await callApi('/api/v1/manage/app/saml/update', samlUpdateOf(app.appId, values)));
  });
  const section = (title: string) => (
    <Typography.Title level={5} style={{ marginTop: 8 }}>
      {title}
    </Typography.Title>
  );

  return (
    <Form<SamlValues>
      form={form}
      {...detailFormLayout(narrow, 210)}
      style={{ maxWidth: 980 }}
      initialValues={samlValuesOf(settings)}
      onFinish={submit}
      disabled={saving}
      data-testid="saml-form"
    >
      <Form.Item
        name="entityId"
        label={t('apps.saml.entityId')}
        extra={t('apps.saml.entityIdHint')}
        rules={[
          { required: true, whitespace: true, message: t('apps.saml.fieldRequired') },
          { max: samlLimits.entityIdMax },
        ]}
      >
        <Input spellCheck={false} placeholder="https://app.example.com/saml/metadata" />
      </Form.Item>
      <Form.Item label={t('apps.saml.acs')} extra={t('apps.saml.acsHint')} required>
        <AcsList narrow={narrow} />
      </Form.Item>
      <Form.Item name="sloUrl" label={t('apps.saml.sloUrl')} rules={[samlUrlRule(t, false)]}>
        <Input spellCheck={false} inputMode="url" placeholder="https://app.example.com/saml/slo" />
      </Form.Item>
      <Form.Item name="sloBinding" label={t('apps.saml.sloBinding')}>
        <Radio.Group
          options={(['redirect', 'post'] as const).map((value) => ({
            value,
            label: t(`apps.saml.binding.${value}`),
          }))}
        />
      </Form.Item>
      <Form.Item
        name="sloResponseUrl"
        label={t('apps.saml.sloResponseUrl')}
        extra={t('apps.saml.sloResponseUrlHint')}
        rules={[samlUrlRule(t, false)]}
      >
        <Input spellCheck={false} inputMode="url" />
      </Form.Item>
      <Form.Item label={t('apps.saml.signingCertificates')} extra={t('apps.saml.signingCertificatesHint')}>
        <CertificateList infos={settings.signingCertificates} />
      </Form.Item>
      <Form.Item
        name="encryptionCertificate"
        label={t('apps.saml.encryptionCertificate')}
        extra={
          settings.encryptionCertificate
            ? `${t('apps.saml.encryptionCertificateHint')} ${settings.encryptionCertificate.subject}`
            : t('apps.saml.encryptionCertificateHint')
        }
      >
        <Input.TextArea
          autoSize={{ minRows: 2, maxRows: 6 }}
          spellCheck={false}
          placeholder={t('apps.saml.certificatePlaceholder')}
          style={{ fontFamily: 'monospace', fontSize: 12 }}
        />
      </Form.Item>

      {section(t('apps.saml.nameId'))}
      <Form.Item name="nameIdFormat" label={t('apps.saml.nameIdFormat')}>
        <Select
          style={{ maxWidth: 360 }}
          options={samlNameIdFormats.map((value) => ({
            value,
            label: t(`apps.saml.nameIdFormatName.${value}`),
          }))}
        />
      </Form.Item>
      <Form.Item name="nameIdSource" label={t('apps.saml.nameIdSource')}>
        <Select
          style={{ maxWidth: 360 }}
          options={samlNameIdSources.map((value) => ({
            value,
            label: t(`apps.saml.nameIdSourceName.${value}`),
          }))}
        />
      </Form.Item>
      <Form.Item label={t('apps.saml.attributes')} extra={t('apps.saml.attributesHint')}>
        <AttributeList narrow={narrow} valueHints={valueHintsOf(app)} />
      </Form.Item>

      {section(t('apps.saml.security'))}
      <Form.Item name="signResponse" label={t('apps.saml.signResponse')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item name="signAssertion" label={t('apps.saml.signAssertion')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item name="signatureAlgorithm" label={t('apps.saml.signatureAlgorithm')}>
        <Select
          style={{ maxWidth: 420 }}
          options={samlSignatureAlgorithms.map((value) => ({
            value,
            label: t(`apps.saml.algorithmName.${camel(value.replace(/-/g, '_') as 'rsa_sha256')}`),
          }))}
        />
      </Form.Item>
      <Form.Item name="encryptAssertion" label={t('apps.saml.encryptAssertion')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item
        name="requireSignedRequests"
        label={t('apps.saml.requireSignedRequests')}
        extra={t('apps.saml.requireSignedRequestsHint')}
        valuePropName="checked"
      >
        <Switch />
      </Form.Item>
      <Form.Item
        name="defaultRelayState"
        label={t('apps.saml.defaultRelayState')}
        extra={t('apps.saml.defaultRelayStateHint')}
        rules={[{ max: samlLimits.relayStateMax }]}
      >
        <Input spellCheck={false} />
      </Form.Item>
      <Form.Item label={null} colon={false} style={{ marginBottom: 0 }}>
        <Flex gap={8}>
          <Button type="primary" htmlType="submit" loading={saving} data-testid="saml-save">
            {t('apps.detail.save')}
          </Button>
          <Button onClick={() => form.setFieldsValue(samlValuesOf(settings))}>
            {t('apps.detail.reset')}
          </Button>
        </Flex>
      </Form.Item>
    </Form>
  );
}

/** The patterns of the fixed values the app's catalogue entry leaves to the administrator. */
function valueHintsOf(app: AppDetail): Record<string, string> {
  const attributes = templateOf(app.template)?.saml?.attributes ?? [];
  return Object.fromEntries(attributes.flatMap((a) => (a.valueHint ? [[a.name, a.valueHint]] : [])));
}
