import { Alert, Button, Flex, Form, Input, Radio, Space, Switch, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { requiredText } from '../../lib/form-rules.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { LoadedCard, settingsFormLayout } from '../settings/loaded-card.tsx';

type Settings = ApiResponse<'/api/v1/manage/platform/sms'>;
type Provider = NonNullable<Settings['provider']>;
/** The radio's value: a provider, or none (SMS off). */
type Choice = Provider | 'none';

interface Values {
  provider: Choice;
  accessKeyId: string;
  accessKeySecret: string;
  region: string;
  appId: string;
  signName: string;
  templateId: string;
  templateMinutes: boolean;
  baseUrl: string;
}

const CHOICES: Choice[] = ['none', 'aliyun', 'tencent'];

const valuesOf = (settings: Settings): Values => ({
  provider: settings.provider ?? 'none',
  accessKeyId: settings.accessKeyId,
  accessKeySecret: '',
  region: settings.region,
  appId: settings.appId,
  signName: settings.signName,
  templateId: settings.templateId,
  templateMinutes: settings.templateMinutes,
  baseUrl: settings.baseUrl ?? '',
});

/**
 * The setup page's SMS card (platform console): the provider that sends one-time codes by SMS,
 * its access key (the secret is never shown, only whether one is stored), sign name and code
 * template, and a test message to a phone.
 */
export function SmsProviderCard() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  return (
    <LoadedCard
      title={t('setup.sms.title')}
      intro={t('setup.sms.intro')}
      testId="sms-provider-card"
      load={useCallback(() => callApi('/api/v1/manage/platform/sms'), [callApi])}
    >
      {(settings, replace) => (
        <>
          <ProviderForm settings={settings} onSaved={replace} />
          {settings.provider ? <TestMessage /> : null}
        </>
      )}
    </LoadedCard>
  );
}

function ProviderForm({ settings, onSaved }: { settings: Settings; onSaved(settings: Settings): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<Values>();
  const provider = Form.useWatch('provider', form) ?? settings.provider ?? 'none';
  useEffect(() => form.setFieldsValue(valuesOf(settings)), [form, settings]);
  const { saving, submit } = useFormSubmit(form, async (values: Values) => {
    const body =
      values.provider === 'none'
        ? { provider: null }
        : {
            ...values,
            provider: values.provider,
            appId: values.provider === 'tencent' ? values.appId : '',
          };
    onSaved(await callApi('/api/v1/manage/platform/sms/update', body));
    void message.success(t('setup.sms.saved'));
  });
  const required = [requiredText(t('setup.sms.required'))];
  const on = provider !== 'none';
  return (
    <Form<Values>
      form={form}
      {...settingsFormLayout(180)}
      initialValues={valuesOf(settings)}
      onFinish={submit}
      disabled={saving}
      data-testid="sms-provider-form"
    >
      <Form.Item name="provider" label={t('setup.sms.provider')}>
        <Radio.Group
          optionType="button"
          options={CHOICES.map((value) => ({ value, label: t(`setup.sms.providers.${value}`) }))}
        />
      </Form.Item>
      {on ? (
        <>
          <Form.Item name="accessKeyId" label={t(`setup.sms.accessKeyId.${provider}`)} rules={required}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item
            name="accessKeySecret"
            label={t(`setup.sms.accessKeySecret.${provider}`)}
            extra={
              settings.secretSet && settings.provider === provider ? t('setup.sms.secretKept') : undefined
            }
            rules={settings.secretSet && settings.provider === provider ? [] : required}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          {provider === 'tencent' ? (
            <Form.Item name="appId" label={t('setup.sms.appId')} rules={required}>
              <Input autoComplete="off" placeholder="1400000000" />
            </Form.Item>
          ) : null}
          <Form.Item
            name="region"
            label={t('setup.sms.region')}
            extra={t(`setup.sms.regionHint.${provider}`)}
          >
            <Input autoComplete="off" style={{ maxWidth: 240 }} />
          </Form.Item>
          <Form.Item name="signName" label={t('setup.sms.signName')} rules={required}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item
            name="templateId"
            label={t('setup.sms.templateId')}
            extra={t(`setup.sms.templateHint.${provider}`)}
            rules={required}
          >
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item name="templateMinutes" label={t('setup.sms.templateMinutes')} valuePropName="checked">
            <Switch />
          </Form.Item>
          <Form.Item
            name="baseUrl"
            label={t('setup.sms.baseUrl')}
            extra={t(`setup.sms.baseUrlHint.${provider}`)}
          >
            <Input autoComplete="off" />
          </Form.Item>
        </>
      ) : null}
      <Form.Item label={null} colon={false} style={{ marginBottom: 0 }}>
        <Button type="primary" htmlType="submit" loading={saving}>
          {t('setup.sms.save')}
        </Button>
      </Form.Item>
    </Form>
  );
}

function TestMessage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [phone, setPhone] = useState('');
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const send = async () => {
    setSending(true);
    setSent(null);
    try {
      const answer = await callApi('/api/v1/manage/platform/sms/test', { phone });
      setSent(answer.messageId);
    } catch {
      // The HTTP client has shown the provider's refusal.
    } finally {
      setSending(false);
    }
  };
  return (
    <Flex vertical gap={8} style={{ marginTop: 24, maxWidth: 760 }}>
      <Typography.Title level={5} style={{ margin: 0 }}>
        {t('setup.sms.testTitle')}
      </Typography.Title>
      <Typography.Text type="secondary">{t('setup.sms.testIntro')}</Typography.Text>
      <Space.Compact style={{ maxWidth: 420 }}>
        <Input
          aria-label={t('setup.sms.testPhone')}
          placeholder={t('setup.sms.testPhone')}
          value={phone}
          onChange={(event) => setPhone(event.target.value)}
        />
        <Button onClick={() => void send()} loading={sending} disabled={!phone.trim()}>
          {t('setup.sms.testSend')}
        </Button>
      </Space.Compact>
      {sent !== null ? (
        <Alert
          type="success"
          showIcon
          message={t('setup.sms.testSent', { id: sent || '—' })}
          data-testid="sms-test-sent"
        />
      ) : null}
    </Flex>
  );
}
