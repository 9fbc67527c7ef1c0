import { MinusCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { appLimits, type FormCredentialMode, formLoginUrlProblem } from '@tessera/contract/constants';
import { Button, Card, Flex, Form, Grid, Input, Radio, Skeleton, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useCallback, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { AppDetail } from './app-view.ts';
import { detailFormLayout } from './form-layout.ts';
import { useDetailSave } from './use-detail-save.ts';

type FormConfig = ApiResponse<'/api/v1/manage/app/form/detail'>;

interface Values {
  loginUrl: string;
  usernameField: string;
  passwordField: string;
  extraFields: { name: string; value: string }[];
  credentialMode: FormCredentialMode;
  sharedUsername: string;
  sharedPassword: string;
}

const FIELD_NAME = /^[^\s"'<>&]+$/;

const fieldNameRules = (t: TFunction) => [
  { required: true, whitespace: true, message: t('apps.form.fieldRequired') },
  { max: appLimits.fieldNameMax },
  { pattern: FIELD_NAME, message: t('apps.form.fieldInvalid') },
];

const valuesOf = (config: FormConfig): Values => ({
  loginUrl: config.loginUrl ?? '',
  usernameField: config.usernameField,
  passwordField: config.passwordField,
  extraFields: config.extraFields.map((field) => ({ ...field })),
  credentialMode: config.credentialMode,
  sharedUsername: config.sharedUsername ?? '',
  sharedPassword: '',
});

/** The Form fill tab of a form-fill app: its login form and whose credentials fill it. */
export function AppFormFillCard({ app }: { app: AppDetail }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const load = useCallback(
    () => callApi('/api/v1/manage/app/form/detail', { appId: app.appId }),
    [callApi, app.appId],
  );
  const { data, setData, loading } = useLoad(load);
  return (
    <Card size="small" title={t('apps.form.title')}>
      <Typography.Paragraph type="secondary">{t('apps.form.intro')}</Typography.Paragraph>
      {data ? (
        <FormFillForm app={app} config={data} onChange={setData} />
      ) : (
        <Skeleton active loading={loading} paragraph={{ rows: 6 }} />
      )}
    </Card>
  );
}

function FormFillForm({
  app,
  config,
  onChange,
}: {
  app: AppDetail;
  config: FormConfig;
  onChange(config: FormConfig): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<Values>();
  const narrow = !(Grid.useBreakpoint().md ?? true);
  const mode = Form.useWatch('credentialMode', form) ?? config.credentialMode;

  useEffect(() => {
    form.setFieldsValue(valuesOf(config));
    // An http address saved before the rule: say so at once (launches are refused until it changes).
    if (config.loginUrl && formLoginUrlProblem(config.loginUrl) === 'http')
      void form.validateFields(['loginUrl']).catch(() => undefined);
  }, [form, config]);

  const { saving, submit } = useDetailSave(
    form,
    [
      'loginUrl',
      'usernameField',
      'passwordField',
      'extraFields',
      'credentialMode',
      'sharedUsername',
      'sharedPassword',
    ],
    async (values) => {
      onChange(
        await callApi('/api/v1/manage/app/form/update', {
          appId: app.appId,
          loginUrl: values.loginUrl.trim(),
          usernameField: values.usernameField.trim(),
          passwordField: values.passwordField.trim(),
          extraFields: (values.extraFields ?? []).map((field) => ({
            name: field.name.trim(),
            value: field.value ?? '',
          })),
          credentialMode: values.credentialMode,
          sharedUsername:
            values.credentialMode === 'shared' ? values.sharedUsername?.trim() || null : undefined,
          // Left out: the stored password stays.
          sharedPassword:
            values.credentialMode === 'shared' && values.sharedPassword ? values.sharedPassword : undefined,
        }),
      );
    },
  );

  return (
    <Form<Values>
      form={form}
      {...detailFormLayout(narrow, 180)}
      style={{ maxWidth: 860 }}
      initialValues={valuesOf(config)}
      onFinish={submit}
      disabled={saving}
      data-testid="form-fill"
    >
      <Form.Item
        name="loginUrl"
        label={t('apps.form.loginUrl')}
        extra={t('apps.form.loginUrlHint')}
        validateFirst
        rules={[
          { required: true, whitespace: true, message: t('apps.protocol.urlInvalid') },
          {
            validator: async (_rule, value: string) => {
              const problem = formLoginUrlProblem(value.trim());
              if (problem === 'invalid') throw new Error(t('apps.protocol.urlInvalid'));
              if (problem === 'http') throw new Error(t('apps.form.loginUrlHttp'));
            },
          },
        ]}
      >
        <Input placeholder="https://legacy.example.com/login" inputMode="url" spellCheck={false} />
      </Form.Item>
      <Form.Item
        name="usernameField"
        label={t('apps.form.usernameField')}
        validateFirst
        rules={fieldNameRules(t)}
      >
        <Input placeholder="username" spellCheck={false} style={{ maxWidth: 320 }} />
      </Form.Item>
      <Form.Item
        name="passwordField"
        label={t('apps.form.passwordField')}
        validateFirst
        rules={fieldNameRules(t)}
      >
        <Input placeholder="password" spellCheck={false} style={{ maxWidth: 320 }} />
      </Form.Item>
      <Form.Item label={t('apps.form.extraFields')} extra={t('apps.form.extraFieldsHint')}>
        <Form.List name="extraFields">
          {(fields, { add, remove }) => (
            <Flex vertical gap={8}>
              {fields.map((field) => (
                <Flex key={field.key} gap={8} align="flex-start" wrap={narrow}>
                  <Form.Item
                    name={[field.name, 'name']}
                    validateFirst
                    rules={fieldNameRules(t)}
                    style={{ flex: 1, marginBottom: 0, minWidth: 140 }}
                  >
                    <Input placeholder={t('apps.form.fieldName')} aria-label={t('apps.form.fieldName')} />
                  </Form.Item>
                  <Form.Item
                    name={[field.name, 'value']}
                    rules={[{ max: appLimits.credentialMax }]}
                    style={{ flex: 1, marginBottom: 0, minWidth: 140 }}
                  >
                    <Input placeholder={t('apps.form.fieldValue')} aria-label={t('apps.form.fieldValue')} />
                  </Form.Item>
                  <Button
                    type="text"
                    icon={<MinusCircleOutlined />}
                    aria-label={t('apps.form.removeField')}
                    title={t('apps.form.removeField')}
                    onClick={() => remove(field.name)}
                  />
                </Flex>
              ))}
              {fields.length < appLimits.extraFieldsMax ? (
                <Button
                  type="dashed"
                  icon={<PlusOutlined />}
                  onClick={() => add({ name: '', value: '' })}
                  style={{ alignSelf: 'flex-start' }}
                >
                  {t('apps.form.addField')}
                </Button>
              ) : null}
            </Flex>
          )}
        </Form.List>
      </Form.Item>
      <Form.Item name="credentialMode" label={t('apps.form.credentialMode')}>
        <Radio.Group>
          <Flex vertical gap={8}>
            <Radio value="user">
              {t('apps.form.modeUser')}
              <br />
              <Typography.Text type="secondary">{t('apps.form.modeUserHint')}</Typography.Text>
            </Radio>
            <Radio value="shared">
              {t('apps.form.modeShared')}
              <br />
              <Typography.Text type="secondary">{t('apps.form.modeSharedHint')}</Typography.Text>
            </Radio>
          </Flex>
        </Radio.Group>
      </Form.Item>
      {mode === 'shared' ? (
        <>
          <Form.Item
            name="sharedUsername"
            label={t('apps.form.sharedUsername')}
            rules={[{ max: appLimits.credentialMax }]}
          >
            <Input autoComplete="off" style={{ maxWidth: 320 }} />
          </Form.Item>
          <Form.Item
            name="sharedPassword"
            label={t('apps.form.sharedPassword')}
            extra={t('apps.form.passwordWriteOnly')}
            rules={[{ max: appLimits.credentialMax }]}
          >
            <Input.Password
              autoComplete="new-password"
              placeholder={
                config.sharedPasswordSet ? t('apps.form.passwordUnchanged') : t('apps.form.passwordNotSet')
              }
              style={{ maxWidth: 320 }}
            />
          </Form.Item>
        </>
      ) : null}
      <Form.Item label={null} colon={false} style={{ marginBottom: 0 }}>
        <Flex gap={8}>
          <Button type="primary" htmlType="submit" loading={saving}>
            {t('apps.detail.save')}
          </Button>
          <Button onClick={() => form.setFieldsValue(valuesOf(config))}>{t('apps.detail.reset')}</Button>
        </Flex>
      </Form.Item>
    </Form>
  );
}
