import { MinusCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { casAttributeSources, casLimits, casPatternKinds } from '@tessera/contract/constants';
import {
  Button,
  Card,
  Checkbox,
  Flex,
  Form,
  Input,
  InputNumber,
  Select,
  Skeleton,
  Switch,
  Typography,
} from 'antd';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import type { AppDetail } from './app-view.ts';
import {
  type CasSettings,
  type CasValues,
  casFormFields,
  casPatternRule,
  casSloUrlRule,
  casUpdateOf,
  casValuesOf,
} from './cas-view.ts';
import { detailFormLayout } from './form-layout.ts';
import { type AppSettingsForm, useAppSettingsForm } from './use-app-settings-form.ts';

/** The CAS tab of a CAS application: the company's CAS server address, then the app's CAS settings. */
export function AppCasCard({ app }: { app: AppDetail }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const settingsForm = useAppSettingsForm({
    path: '/api/v1/manage/app/cas/detail',
    appId: app.appId,
    fields: casFormFields,
    valuesOf: casValuesOf,
    save: (values) => callApi('/api/v1/manage/app/cas/update', casUpdateOf(app.appId, values)),
  });
  const { settings, loading } = settingsForm;
  return (
    <Card size="small" title={t('apps.cas.title')}>
      <Typography.Paragraph type="secondary">{t('apps.cas.intro')}</Typography.Paragraph>
      {settings ? (
        <CasForm settings={settings} settingsForm={settingsForm} />
      ) : (
        <Skeleton active loading={loading} paragraph={{ rows: 8 }} />
      )}
    </Card>
  );
}

function CasForm({
  settings,
  settingsForm,
}: {
  settings: CasSettings;
  settingsForm: AppSettingsForm<'/api/v1/manage/app/cas/detail', CasValues>;
}) {
  const { t } = useTranslation();
  const { form, narrow, saving, submit } = settingsForm;
  const sloEnabled = Form.useWatch('sloEnabled', form) ?? settings.sloEnabled;

  return (
    <Form<CasValues>
      form={form}
      {...detailFormLayout(narrow, 190)}
      style={{ maxWidth: 980 }}
      initialValues={casValuesOf(settings)}
      onFinish={submit}
      disabled={saving}
      data-testid="cas-form"
    >
      <Form.Item label={t('apps.cas.serverUrl')} extra={t('apps.cas.serverUrlHint')}>
        <Typography.Text copyable code style={{ wordBreak: 'break-all' }} data-testid="cas-server-url">
          {settings.serverUrl}
        </Typography.Text>
      </Form.Item>
      <Form.Item label={t('apps.cas.patterns')} extra={t('apps.cas.patternsHint')} required>
        <Form.List name="servicePatterns">
          {(fields, { add, remove }) => (
            <Flex vertical gap={8} data-testid="cas-patterns">
              {fields.map((field, index) => (
                <Flex key={field.key} gap={8} align="flex-start" wrap={narrow}>
                  <Form.Item name={[field.name, 'kind']} style={{ marginBottom: 0, width: 190 }}>
                    <Select
                      aria-label={`${t('apps.cas.kindLabel')} ${index + 1}`}
                      options={casPatternKinds.map((kind) => ({
                        value: kind,
                        label: t(`apps.cas.kind.${kind}`),
                      }))}
                      onChange={() => void form.validateFields([['servicePatterns', field.name, 'value']])}
                    />
                  </Form.Item>
                  <Form.Item
                    name={[field.name, 'value']}
                    style={{ flex: 1, marginBottom: 0, minWidth: 0 }}
                    validateTrigger={['onChange', 'onBlur']}
                    rules={[
                      casPatternRule(t, () => form.getFieldValue(['servicePatterns', field.name, 'kind'])),
                      { max: casLimits.patternMax },
                    ]}
                  >
                    <Input
                      aria-label={`${t('apps.cas.patternLabel')} ${index + 1}`}
                      placeholder="https://oa.example.com/"
                      spellCheck={false}
                    />
                  </Form.Item>
                  <Button
                    type="text"
                    icon={<MinusCircleOutlined />}
                    aria-label={t('apps.cas.removePattern')}
                    title={t('apps.cas.removePattern')}
                    disabled={fields.length <= 1}
                    onClick={() => remove(field.name)}
                  />
                </Flex>
              ))}
              {fields.length < casLimits.patternsMax ? (
                <Button
                  type="dashed"
                  icon={<PlusOutlined />}
                  onClick={() => add({ kind: 'prefix', value: '' })}
                  style={{ alignSelf: 'flex-start' }}
                >
                  {t('apps.cas.addPattern')}
                </Button>
              ) : null}
            </Flex>
          )}
        </Form.List>
      </Form.Item>
      <Form.Item name="attributes" label={t('apps.cas.attributes')} extra={t('apps.cas.attributesHint')}>
        <Checkbox.Group
          options={casAttributeSources.map((source) => ({
            value: source,
            label: t(`apps.cas.attribute.${source}`),
          }))}
        />
      </Form.Item>
      <Form.Item
        name="ticketTtl"
        label={t('apps.cas.ticketTtl')}
        extra={t('apps.cas.ticketTtlHint')}
        rules={[
          { required: true, type: 'integer', min: casLimits.ticketTtlMin, max: casLimits.ticketTtlMax },
        ]}
      >
        <InputNumber
          min={casLimits.ticketTtlMin}
          max={casLimits.ticketTtlMax}
          precision={0}
          addonAfter={t('apps.cas.seconds')}
          aria-label={t('apps.cas.ticketTtl')}
        />
      </Form.Item>
      <Form.Item
        name="allowProxy"
        label={t('apps.cas.allowProxy')}
        extra={t('apps.cas.allowProxyHint')}
        valuePropName="checked"
      >
        <Switch aria-label={t('apps.cas.allowProxy')} />
      </Form.Item>
      <Form.Item
        name="sloEnabled"
        label={t('apps.cas.sloEnabled')}
        extra={t('apps.cas.sloEnabledHint')}
        valuePropName="checked"
      >
        <Switch aria-label={t('apps.cas.sloEnabled')} />
      </Form.Item>
      {sloEnabled ? (
        <Form.Item
          name="sloUrl"
          label={t('apps.cas.sloUrl')}
          extra={t('apps.cas.sloUrlHint')}
          dependencies={['servicePatterns']}
          rules={[casSloUrlRule(t)]}
        >
          <Input placeholder="https://oa.example.com/cas/logout" spellCheck={false} inputMode="url" />
        </Form.Item>
      ) : null}
      <Form.Item label=" " colon={false}>
        <Button type="primary" htmlType="submit" loading={saving}>
          {t('apps.cas.save')}
        </Button>
      </Form.Item>
    </Form>
  );
}
