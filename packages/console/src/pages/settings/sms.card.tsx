import { Alert, Button, Form, Input } from 'antd';
import { useCallback, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { LoadedCard, settingsFormLayout } from './loaded-card.tsx';

type Settings = ApiResponse<'/api/v1/manage/company/sms/conf'>;

interface Values {
  signName: string;
  templateId: string;
}

const valuesOf = (settings: Settings): Values => ({
  signName: settings.signName ?? '',
  templateId: settings.templateId ?? '',
});

/**
 * Company settings: the sign name and code template of the company's text messages, approved
 * under the platform's provider account; empty uses the platform's.
 */
export function SmsCard() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  return (
    <LoadedCard
      title={t('settings.sms.title')}
      intro={t('settings.sms.intro')}
      testId="sms-card"
      load={useCallback(() => callApi('/api/v1/manage/company/sms/conf'), [callApi])}
    >
      {(settings, replace) => (
        <>
          {settings.platformConfigured ? null : (
            <Alert
              type="info"
              showIcon
              message={t('settings.sms.noProvider')}
              style={{ marginBottom: 16, maxWidth: 760 }}
            />
          )}
          <SmsForm settings={settings} onSaved={replace} />
        </>
      )}
    </LoadedCard>
  );
}

function SmsForm({ settings, onSaved }: { settings: Settings; onSaved(settings: Settings): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<Values>();
  useEffect(() => form.setFieldsValue(valuesOf(settings)), [form, settings]);
  const { saving, submit } = useFormSubmit(form, async (values: Values) => {
    onSaved(await callApi('/api/v1/manage/company/sms/update', values));
    void message.success(t('settings.sms.saved'));
  });
  const platform = (value: string) => (value ? t('settings.sms.platformValue', { value }) : undefined);
  return (
    <Form<Values>
      form={form}
      {...settingsFormLayout(160)}
      initialValues={valuesOf(settings)}
      onFinish={submit}
      disabled={saving}
      data-testid="sms-form"
    >
      <Form.Item
        name="signName"
        label={t('settings.sms.signName')}
        extra={platform(settings.platformSignName)}
      >
        <Input autoComplete="off" maxLength={128} />
      </Form.Item>
      <Form.Item
        name="templateId"
        label={t('settings.sms.templateId')}
        extra={platform(settings.platformTemplateId)}
      >
        <Input autoComplete="off" maxLength={128} />
      </Form.Item>
      <Form.Item label={null} colon={false} style={{ marginBottom: 0 }}>
        <Button type="primary" htmlType="submit" loading={saving}>
          {t('settings.sms.save')}
        </Button>
      </Form.Item>
    </Form>
  );
}
