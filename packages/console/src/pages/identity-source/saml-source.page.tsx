import { DownloadOutlined, UploadOutlined } from '@ant-design/icons';
import { firstScanModes, samlBindings, samlLimits, samlNameIdFormats } from '@tessera/contract/constants';
import {
  Button,
  Descriptions,
  Flex,
  Form,
  Input,
  Radio,
  Select,
  Space,
  Switch,
  Typography,
  Upload,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { showFieldErrors } from '../org/server-errors.ts';
import { SamlMetadataRefresh } from './saml-metadata-refresh.tsx';
import { FormSection, NameField, requiredRule, SourceForm, SourceScreen } from './source-form.tsx';
import type { SamlDetail, SourceInput } from './source-view.ts';
import { UpstreamButtonFields, UpstreamSignOutField } from './upstream-button-fields.tsx';
import { useSourceSave } from './use-source-save.ts';

type SamlValues = Omit<SourceInput<'saml'>, 'type'>;

const attributeFields = [
  'usernameAttribute',
  'nameAttribute',
  'emailAttribute',
  'phoneAttribute',
  'groupsAttribute',
] as const;
const fields = [
  'name',
  'metadataUrl',
  'idpEntityId',
  'ssoUrl',
  'sloUrl',
  'signingCertificates',
  'mfaContexts',
  'logoUrl',
  'emailDomains',
  ...attributeFields,
];

/** /identity-source/saml/{id?}: an upstream SAML identity provider (Tessera as its service provider). */
export function SamlSourcePage() {
  return (
    <SourceScreen type="saml">
      {(detail, onSaved) => (
        <SamlForm key={detail?.sourceId ?? 'new'} detail={detail} onSaved={(saved) => onSaved(saved)} />
      )}
    </SourceScreen>
  );
}

function SamlForm({ detail, onSaved }: { detail?: SamlDetail; onSaved(detail: SamlDetail): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<SamlValues>();
  const [reading, setReading] = useState(false);
  const valuesOf = (source?: SamlDetail): SamlValues => ({
    name: t('sources.type.saml'),
    enabled: true,
    metadataUrl: '',
    idpEntityId: '',
    ssoUrl: '',
    ssoBinding: 'redirect',
    signOutUpstream: true,
    signingCertificates: [''],
    nameIdFormat: 'unspecified',
    mfaContexts: [],
    firstScan: 'link_only',
    emailDomains: [],
    ...Object.fromEntries(attributeFields.map((field) => [field, ''])),
    ...(source?.settings ?? {}),
    logoUrl: source?.settings.logoUrl ?? '',
    sloUrl: source?.settings.sloUrl ?? '',
  });
  const [initial] = useState(() => valuesOf(detail));
  const { saving, submit } = useSourceSave({
    type: 'saml',
    form,
    sourceId: detail?.sourceId,
    fields,
    toInput: (values) => values,
    onSaved: (saved) => {
      if (saved.type !== 'saml') return;
      onSaved(saved);
      form.setFieldsValue(valuesOf(saved));
    },
  });

  /** Reads the upstream's metadata (a URL fetched by the server now, or a file) into the form. */
  const readMetadata = async (body: { url: string } | { xml: string }) => {
    setReading(true);
    try {
      const read = await callApi('/api/v1/manage/identity-source/saml/metadata/read', body);
      form.setFieldsValue({
        idpEntityId: read.idpEntityId,
        ssoUrl: read.ssoUrl,
        ssoBinding: read.ssoBinding,
        sloUrl: read.sloUrl ?? '',
        signingCertificates: read.signingCertificates,
        ...(read.nameIdFormat ? { nameIdFormat: read.nameIdFormat } : {}),
      });
      void message.success(t('sources.saml.metadataRead'));
    } catch (error) {
      showFieldErrors(form, error, ['metadataUrl']);
    } finally {
      setReading(false);
    }
  };

  return (
    <SourceForm<SamlValues>
      form={form}
      initialValues={initial}
      saving={saving}
      isNew={!detail}
      onSubmit={() => void submit()}
      testId="saml-source"
    >
      <FormSection title={t('sources.type.saml')} hint={t('sources.typeHint.saml')}>
        <NameField />
        <Form.Item name="enabled" label={t('sources.form.enabled')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </FormSection>

      <FormSection title={t('sources.saml.serviceProvider')} hint={t('sources.saml.serviceProviderHint')}>
        {detail ? (
          <Descriptions column={1} size="small" bordered data-testid="saml-sp">
            <Descriptions.Item label={t('sources.saml.spEntityId')}>
              <Typography.Text copyable code>
                {detail.serviceProvider.entityId}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('sources.saml.acsUrl')}>
              <Typography.Text copyable code data-testid="saml-acs-url">
                {detail.serviceProvider.acsUrl}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('sources.saml.spSloUrl')}>
              <Typography.Text copyable code data-testid="saml-slo-url">
                {detail.serviceProvider.sloUrl}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('sources.saml.certificate')}>
              <Flex vertical gap={4}>
                <Typography.Text>{detail.serviceProvider.certificate.subject}</Typography.Text>
                <Typography.Text type="secondary" copyable style={{ fontFamily: 'monospace', fontSize: 12 }}>
                  {detail.serviceProvider.certificate.fingerprint}
                </Typography.Text>
              </Flex>
            </Descriptions.Item>
            <Descriptions.Item label={t('sources.saml.spMetadata')}>
              <Space wrap>
                <Button
                  icon={<DownloadOutlined />}
                  href={detail.serviceProvider.metadataUrl}
                  download
                  data-testid="saml-sp-metadata"
                >
                  {t('sources.saml.downloadMetadata')}
                </Button>
                <Typography.Text copyable code>
                  {detail.serviceProvider.metadataUrl}
                </Typography.Text>
              </Space>
            </Descriptions.Item>
          </Descriptions>
        ) : (
          <Typography.Text type="secondary">{t('sources.form.callbackAfterSave')}</Typography.Text>
        )}
      </FormSection>

      <FormSection title={t('sources.saml.upstream')} hint={t('sources.saml.upstreamHint')}>
        <Form.Item label={t('sources.saml.metadataUrl')} extra={t('sources.saml.metadataUrlHint')}>
          <Space.Compact style={{ width: '100%' }}>
            <Form.Item name="metadataUrl" noStyle>
              <Input spellCheck={false} placeholder="https://login.example.com/federationmetadata.xml" />
            </Form.Item>
            <Button
              loading={reading}
              data-testid="saml-read-metadata"
              onClick={() => {
                const url = String(form.getFieldValue('metadataUrl') ?? '').trim();
                if (url) void readMetadata({ url });
              }}
            >
              {t('sources.saml.readMetadata')}
            </Button>
          </Space.Compact>
        </Form.Item>
        {detail?.metadataRefresh ? (
          <Form.Item label=" " colon={false}>
            <SamlMetadataRefresh
              detail={{ ...detail, metadataRefresh: detail.metadataRefresh }}
              onRead={(fresh) =>
                form.setFieldsValue({
                  ssoUrl: fresh.settings.ssoUrl,
                  ssoBinding: fresh.settings.ssoBinding,
                  signingCertificates: fresh.settings.signingCertificates,
                })
              }
            />
          </Form.Item>
        ) : null}
        <Form.Item label={t('sources.saml.metadataFile')}>
          <Upload
            accept=".xml,application/xml,text/xml,application/samlmetadata+xml"
            maxCount={1}
            showUploadList={false}
            beforeUpload={(file) => {
              if (file.size > samlLimits.metadataBytes) void message.error(t('sources.saml.fileTooLarge'));
              else void file.text().then((xml) => readMetadata({ xml }));
              return false;
            }}
          >
            <Button icon={<UploadOutlined />} loading={reading}>
              {t('sources.saml.chooseFile')}
            </Button>
          </Upload>
        </Form.Item>
        <Form.Item
          name="idpEntityId"
          label={t('sources.saml.idpEntityId')}
          rules={[requiredRule(t('sources.form.required'))]}
        >
          <Input spellCheck={false} />
        </Form.Item>
        <Form.Item
          name="ssoUrl"
          label={t('sources.saml.ssoUrl')}
          rules={[requiredRule(t('sources.form.required'))]}
        >
          <Input spellCheck={false} />
        </Form.Item>
        <Form.Item name="ssoBinding" label={t('sources.saml.ssoBinding')}>
          <Radio.Group
            options={samlBindings.map((value) => ({ value, label: t(`sources.saml.binding.${value}`) }))}
          />
        </Form.Item>
        <Form.Item name="sloUrl" label={t('sources.saml.sloUrl')} extra={t('sources.saml.sloUrlHint')}>
          <Input spellCheck={false} />
        </Form.Item>
        <Form.List name="signingCertificates">
          {(items, { add, remove }) => (
            <Form.Item label={t('sources.saml.certificates')} extra={t('sources.saml.certificatesHint')}>
              <Flex vertical gap={8}>
                {items.map((item) => (
                  <Flex key={item.key} gap={8} align="flex-start">
                    <Form.Item name={item.name} noStyle rules={[requiredRule(t('sources.form.required'))]}>
                      <Input.TextArea
                        rows={3}
                        spellCheck={false}
                        style={{ fontFamily: 'monospace', fontSize: 12 }}
                        placeholder="-----BEGIN CERTIFICATE-----"
                      />
                    </Form.Item>
                    {items.length > 1 ? (
                      <Button onClick={() => remove(item.name)}>{t('sources.saml.remove')}</Button>
                    ) : null}
                  </Flex>
                ))}
                {items.length < samlLimits.certificatesMax ? (
                  <div>
                    <Button onClick={() => add('')}>{t('sources.saml.addCertificate')}</Button>
                  </div>
                ) : null}
              </Flex>
            </Form.Item>
          )}
        </Form.List>
        <Form.Item
          name="nameIdFormat"
          label={t('sources.saml.nameIdFormat')}
          extra={t('sources.saml.nameIdHint')}
        >
          <Select
            style={{ maxWidth: 360 }}
            options={samlNameIdFormats.map((value) => ({
              value,
              label: t(`sources.saml.nameIdFormatName.${value}`),
            }))}
          />
        </Form.Item>
      </FormSection>

      <FormSection title={t('sources.saml.attributes')} hint={t('sources.saml.attributesHint')}>
        {attributeFields.map((field) => (
          <Form.Item key={field} name={field} label={t(`sources.saml.attribute.${field}`)}>
            <Input spellCheck={false} style={{ maxWidth: 480 }} />
          </Form.Item>
        ))}
      </FormSection>

      <FormSection title={t('sources.saml.signIn')}>
        <UpstreamButtonFields />
        <UpstreamSignOutField />
        <Form.Item
          name="mfaContexts"
          label={t('sources.saml.mfaContexts')}
          extra={t('sources.saml.mfaContextsHint')}
        >
          <Select mode="tags" open={false} tokenSeparators={[' ', ',']} />
        </Form.Item>
        <Form.Item name="firstScan" label={t('sources.saml.firstSignIn')} style={{ marginBottom: 0 }}>
          <Radio.Group
            style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
            options={firstScanModes.map((mode) => ({
              value: mode,
              label: t(`sources.saml.firstSignInMode.${mode}`),
            }))}
          />
        </Form.Item>
      </FormSection>
    </SourceForm>
  );
}
