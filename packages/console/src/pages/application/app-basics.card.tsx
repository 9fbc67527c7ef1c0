import { appLimits } from '@tessera/contract/constants';
import { Button, Card, Descriptions, Form, Grid, Input, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { formatDate } from '../../lib/format/date.ts';
import { appNameRules } from './app-rules.ts';
import { type AppDetail, camel, templateName, templateOf } from './app-view.ts';
import { detailFormLayout } from './form-layout.ts';
import { useDetailSave } from './use-detail-save.ts';

interface Values {
  name: string;
  description: string;
}

/** The Basics tab: name and description, with the app's fixed facts. */
export function AppBasicsCard({ app, onChange }: { app: AppDetail; onChange(app: AppDetail): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<Values>();
  const narrow = !(Grid.useBreakpoint().md ?? true);
  const template = templateOf(app.template);

  useEffect(() => {
    form.setFieldsValue({ name: app.name, description: app.description ?? '' });
  }, [form, app.name, app.description]);

  const { saving, submit } = useDetailSave(form, ['name', 'description'], async (values) => {
    onChange(
      await callApi('/api/v1/manage/app/update', {
        appId: app.appId,
        name: values.name.trim(),
        description: values.description?.trim() || null,
      }),
    );
  });

  return (
    <Card size="small" title={t('apps.detail.tab.basics')}>
      <Form<Values>
        form={form}
        {...detailFormLayout(narrow, 160)}
        style={{ maxWidth: 760 }}
        initialValues={{ name: app.name, description: app.description ?? '' }}
        onFinish={submit}
        disabled={saving}
      >
        <Form.Item name="name" label={t('apps.basics.name')} validateFirst rules={appNameRules(t)}>
          <Input count={{ show: true, max: appLimits.nameMax }} />
        </Form.Item>
        <Form.Item
          name="description"
          label={t('apps.basics.description')}
          rules={[{ max: appLimits.descriptionMax }]}
        >
          <Input.TextArea
            autoSize={{ minRows: 2, maxRows: 6 }}
            count={{ show: true, max: appLimits.descriptionMax }}
          />
        </Form.Item>
        <Form.Item label={null} colon={false}>
          <Button type="primary" htmlType="submit" loading={saving}>
            {t('apps.detail.save')}
          </Button>
        </Form.Item>
      </Form>
      <Descriptions column={narrow ? 1 : 2} size="small" style={{ maxWidth: 900 }}>
        <Descriptions.Item label={t('apps.basics.appId')}>
          <Typography.Text copyable style={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
            {app.appId}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('apps.basics.type')}>
          {t(`apps.type.${camel(app.type)}`)} · {t(`apps.protocolName.${app.protocol}`)}
        </Descriptions.Item>
        {app.template ? (
          <Descriptions.Item label={t('apps.basics.template')}>
            {template ? templateName(t, template) : app.template}
          </Descriptions.Item>
        ) : null}
        <Descriptions.Item label={t('apps.detail.created')}>{formatDate(app.createdAt)}</Descriptions.Item>
        <Descriptions.Item label={t('apps.detail.updated')}>{formatDate(app.updatedAt)}</Descriptions.Item>
      </Descriptions>
    </Card>
  );
}
