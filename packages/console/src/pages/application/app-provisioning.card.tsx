import {
  provisioningAttributes,
  provisioningLifecycles,
  provisioningLimits,
  provisioningLossActions,
  provisioningUserNameSources,
} from '@tessera/contract/constants';
import {
  Alert,
  Button,
  Card,
  Checkbox,
  Flex,
  Form,
  Input,
  Radio,
  Skeleton,
  Space,
  Switch,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiRequest, ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import type { AppDetail } from './app-view.ts';
import { detailFormLayout } from './form-layout.ts';
import { ProvisioningPreview, ProvisioningRuns } from './provisioning-runs.tsx';
import { type AppSettingsForm, useAppSettingsForm } from './use-app-settings-form.ts';

type Target = NonNullable<ApiResponse<'/api/v1/manage/app/provisioning/detail'>['target']>;
type Values = Omit<ApiRequest<'/api/v1/manage/app/provisioning/update'>, 'appId'>;
type TestResult = ApiResponse<'/api/v1/manage/app/provisioning/test'>;

const fields = ['baseUrl', 'token', 'userNameFrom', 'attributes', 'lifecycle', 'onLoss', 'enabled'] as const;

const blank: Values = {
  baseUrl: '',
  token: '',
  userNameFrom: 'username',
  attributes: ['name', 'emails'],
  lifecycle: 'full',
  onLoss: 'deactivate',
  enabled: true,
};

const valuesOf = (target: Target | null): Values =>
  target
    ? {
        baseUrl: target.baseUrl,
        token: '',
        userNameFrom: target.userNameFrom,
        attributes: target.attributes,
        lifecycle: target.lifecycle,
        onLoss: target.onLoss,
        enabled: target.enabled,
      }
    : blank;

/**
 * The Provisioning tab of an application: its SCIM target (the token is written, never read
 * back), a test of the connection, the preview of the next run, and the runs.
 */
export function AppProvisioningCard({ app }: { app: AppDetail }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const settingsForm = useAppSettingsForm({
    path: '/api/v1/manage/app/provisioning/detail',
    appId: app.appId,
    fields,
    valuesOf: (detail) => valuesOf(detail.target),
    save: async (values, detail) => {
      const target = await callApi('/api/v1/manage/app/provisioning/update', {
        ...values,
        appId: app.appId,
        token: values.token || undefined,
      });
      return { ...detail, target };
    },
  });
  const { settings: data, setSettings: setData, loading } = settingsForm;
  return (
    <Flex vertical gap={16}>
      <Card size="small" title={t('apps.provisioning.title')} data-testid="provisioning-target">
        <Typography.Paragraph type="secondary">{t('apps.provisioning.intro')}</Typography.Paragraph>
        {data ? (
          <TargetForm
            appId={app.appId}
            target={data.target}
            settingsForm={settingsForm}
            onRemoved={() => setData({ ...data, target: null })}
          />
        ) : (
          <Skeleton active loading={loading} paragraph={{ rows: 8 }} />
        )}
      </Card>
      {data?.target ? (
        <>
          <ProvisioningPreview appId={app.appId} />
          <ProvisioningRuns appId={app.appId} enabled={data.target.enabled} />
        </>
      ) : null}
    </Flex>
  );
}

function TargetForm({
  appId,
  target,
  settingsForm,
  onRemoved,
}: {
  appId: string;
  target: Target | null;
  settingsForm: AppSettingsForm<'/api/v1/manage/app/provisioning/detail', Values>;
  onRemoved(): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message, modal } = useFeedback();
  const { form, narrow, saving, submit } = settingsForm;
  const [testing, setTesting] = useState(false);
  const [tested, setTested] = useState<TestResult>();
  // A saved or removed target has not been tested yet.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the target is what changed
  useEffect(() => setTested(undefined), [target]);
  const onLoss = Form.useWatch('onLoss', form);

  const test = async () => {
    setTesting(true);
    try {
      setTested(await callApi('/api/v1/manage/app/provisioning/test', { appId }));
    } catch {
      // Shown by the HTTP client.
    } finally {
      setTesting(false);
    }
  };

  const remove = () =>
    modal.confirm({
      title: t('apps.provisioning.removeConfirm'),
      okText: t('apps.provisioning.remove'),
      okButtonProps: { danger: true },
      cancelText: t('common.cancel'),
      onOk: async () => {
        await callApi('/api/v1/manage/app/provisioning/remove', { appId });
        void message.success(t('apps.provisioning.removed'));
        onRemoved();
      },
    });

  const supported = (yes: boolean) => t(yes ? 'apps.provisioning.yes' : 'apps.provisioning.no');

  return (
    <Form<Values>
      form={form}
      {...detailFormLayout(narrow, 170)}
      style={{ maxWidth: 980 }}
      initialValues={valuesOf(target)}
      onFinish={submit}
      disabled={saving}
      data-testid="provisioning-form"
    >
      <Form.Item
        name="baseUrl"
        label={t('apps.provisioning.baseUrl')}
        extra={t('apps.provisioning.baseUrlHint')}
        rules={[{ required: true, message: t('apps.provisioning.baseUrl') }]}
      >
        <Input
          placeholder="https://app.example.com/scim/v2"
          spellCheck={false}
          maxLength={provisioningLimits.urlMax}
        />
      </Form.Item>
      <Form.Item
        name="token"
        label={t('apps.provisioning.token')}
        extra={target?.tokenSet ? t('apps.provisioning.tokenSet') : t('apps.provisioning.tokenNotSet')}
        rules={target?.tokenSet ? [] : [{ required: true, message: t('apps.provisioning.token') }]}
      >
        <Input.Password
          autoComplete="new-password"
          maxLength={provisioningLimits.tokenMax}
          placeholder={target?.tokenSet ? t('apps.provisioning.tokenPlaceholderSet') : undefined}
        />
      </Form.Item>
      <Form.Item name="userNameFrom" label={t('apps.provisioning.userNameFrom')}>
        <Radio.Group
          options={provisioningUserNameSources.map((value) => ({
            value,
            label: t(`apps.provisioning.userNameFromOption.${value}`),
          }))}
        />
      </Form.Item>
      <Form.Item
        name="attributes"
        label={t('apps.provisioning.attributes')}
        extra={t('apps.provisioning.attributesHint')}
      >
        <Checkbox.Group
          options={provisioningAttributes.map((value) => ({
            value,
            label: t(`apps.provisioning.attribute.${value}`),
          }))}
        />
      </Form.Item>
      <Form.Item name="lifecycle" label={t('apps.provisioning.lifecycle')}>
        <Radio.Group
          options={provisioningLifecycles.map((value) => ({
            value,
            label: t(`apps.provisioning.lifecycleOption.${value}`),
          }))}
        />
      </Form.Item>
      <Form.Item
        name="onLoss"
        label={t('apps.provisioning.onLoss')}
        extra={
          onLoss === 'delete' ? (
            <Typography.Text type="warning">{t('apps.provisioning.onLossDeleteWarning')}</Typography.Text>
          ) : null
        }
      >
        <Radio.Group
          options={provisioningLossActions.map((value) => ({
            value,
            label: t(`apps.provisioning.onLossOption.${value}`),
          }))}
        />
      </Form.Item>
      <Form.Item name="enabled" label={t('apps.provisioning.enabled')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item label=" " colon={false}>
        <Space wrap>
          <Button type="primary" htmlType="submit" loading={saving}>
            {t('apps.provisioning.save')}
          </Button>
          <Button disabled={!target} loading={testing} onClick={() => void test()}>
            {t('apps.provisioning.test')}
          </Button>
          {target ? (
            <Button danger onClick={remove}>
              {t('apps.provisioning.remove')}
            </Button>
          ) : null}
        </Space>
      </Form.Item>
      {tested ? (
        <Alert
          showIcon
          type={tested.ok ? 'success' : 'error'}
          data-testid="provisioning-test-result"
          message={
            tested.ok
              ? t('apps.provisioning.testOk', {
                  patch: supported(tested.patchSupported),
                  filter: supported(tested.filterSupported),
                })
              : t('apps.provisioning.testFailed', { message: tested.message })
          }
        />
      ) : null}
    </Form>
  );
}
