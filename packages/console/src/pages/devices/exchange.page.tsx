import {
  deviceActivationPolicies,
  devicePermissions,
  exchangeCredentialModes,
  exchangeLimits,
} from '@tessera/contract/constants';
import { Flex, Form, Input, InputNumber, Radio, Switch, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useLoad } from '../../lib/use-load.ts';
import { SafetyForm, SafetyLoading, SafetySection } from '../safety/safety-form.tsx';

type ExchangeSettings = ApiResponse<'/api/v1/manage/safety/exchange'>;
type Values = ExchangeSettings & { servicePassword?: string };

const fields = [
  'enabled',
  'exchangeUrl',
  'credentialMode',
  'serviceUsername',
  'servicePassword',
  'activation',
  'userDeviceLimit',
  'defaultDevicePermission',
] as const;
const { min, max } = exchangeLimits.userDeviceLimit;

/** /safety-management/exchange (full set): the Exchange agent, how it signs in, and how devices register. */
export function ExchangePage() {
  const { callApi } = useConsole();
  const load = useCallback(() => callApi('/api/v1/manage/safety/exchange'), [callApi]);
  const { data, setData, loading, reload } = useLoad(load);
  if (!data) return <SafetyLoading loading={loading} onRetry={reload} />;
  return <ExchangeForm settings={data} onSaved={setData} />;
}

function ExchangeForm({ settings, onSaved }: { settings: Values; onSaved(settings: Values): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<Values>();
  const enabled = Form.useWatch('enabled', form) ?? settings.enabled;
  const mode = Form.useWatch('credentialMode', form) ?? settings.credentialMode;

  const save = async (values: Values) => {
    const stored = await callApi('/api/v1/manage/safety/exchange/update', {
      enabled: values.enabled,
      exchangeUrl: values.exchangeUrl?.trim() || null,
      credentialMode: values.credentialMode,
      serviceUsername: values.serviceUsername?.trim() || undefined,
      servicePassword: values.servicePassword || undefined,
      activation: values.activation,
      userDeviceLimit: values.userDeviceLimit,
      defaultDevicePermission: values.defaultDevicePermission,
    });
    onSaved(stored);
    return { ...stored, servicePassword: '' };
  };

  const needed = (when: boolean, message: string) => ({ required: when, whitespace: true, message });

  return (
    <SafetyForm form={form} settings={settings} fields={fields} save={save} testId="exchange-settings">
      <SafetySection title={t('devices.exchange.agentTitle')} hint={t('devices.exchange.agentHint')}>
        <Form.Item name="enabled" label={t('devices.exchange.enabled')} valuePropName="checked">
          <Switch aria-label={t('devices.exchange.enabled')} data-testid="exchange-enabled" />
        </Form.Item>
        <Form.Item
          name="exchangeUrl"
          label={t('devices.exchange.exchangeUrl')}
          extra={t('devices.exchange.exchangeUrlHint')}
          rules={[needed(enabled, t('devices.exchange.exchangeUrlRequired'))]}
        >
          <Input maxLength={exchangeLimits.urlMax} placeholder="https://mail.example.com" />
        </Form.Item>
        <Form.Item name="credentialMode" label={t('devices.exchange.credentialMode')}>
          <Radio.Group>
            <Flex vertical gap={8}>
              {exchangeCredentialModes.map((value) => (
                <Radio key={value} value={value}>
                  {t(`devices.exchange.credentialModes.${value}`)}
                </Radio>
              ))}
            </Flex>
          </Radio.Group>
        </Form.Item>
        {mode === 'service' && (
          <>
            <Form.Item
              name="serviceUsername"
              label={t('devices.exchange.serviceUsername')}
              rules={[needed(enabled, t('devices.exchange.serviceUsernameRequired'))]}
            >
              <Input maxLength={exchangeLimits.serviceUsernameMax} autoComplete="off" />
            </Form.Item>
            <Form.Item
              name="servicePassword"
              label={t('devices.exchange.servicePassword')}
              extra={settings.servicePasswordSet ? t('devices.exchange.servicePasswordKept') : undefined}
              rules={[
                {
                  required: enabled && !settings.servicePasswordSet,
                  message: t('devices.exchange.servicePasswordRequired'),
                },
              ]}
            >
              <Input.Password maxLength={exchangeLimits.servicePasswordMax} autoComplete="new-password" />
            </Form.Item>
          </>
        )}
        <Form.Item label={t('devices.exchange.agentUrl')} extra={t('devices.exchange.agentUrlHint')}>
          <Typography.Text copyable code data-testid="agent-url">
            {settings.agentUrl}
          </Typography.Text>
        </Form.Item>
      </SafetySection>

      <SafetySection
        title={t('devices.exchange.registrationTitle')}
        hint={t('devices.exchange.registrationHint')}
      >
        <Form.Item name="activation" label={t('devices.exchange.activation')}>
          <Radio.Group>
            <Flex vertical gap={8}>
              {deviceActivationPolicies.map((value) => (
                <Radio key={value} value={value}>
                  {t(`devices.exchange.activations.${value}`)}
                </Radio>
              ))}
            </Flex>
          </Radio.Group>
        </Form.Item>
        <Form.Item
          name="userDeviceLimit"
          label={t('devices.exchange.userDeviceLimit')}
          extra={t('devices.exchange.userDeviceLimitRange', { min, max })}
          rules={[
            {
              type: 'integer',
              min,
              max,
              required: true,
              message: t('devices.exchange.userDeviceLimitRange', { min, max }),
            },
          ]}
        >
          <InputNumber min={min} max={max} precision={0} />
        </Form.Item>
        <Form.Item
          name="defaultDevicePermission"
          label={t('devices.exchange.defaultDevicePermission')}
          style={{ marginBottom: 0 }}
        >
          <Radio.Group>
            <Flex vertical gap={8}>
              {devicePermissions.map((value) => (
                <Radio key={value} value={value}>
                  {t(`devices.exchange.permissions.${value}`)}
                </Radio>
              ))}
            </Flex>
          </Radio.Group>
        </Form.Item>
      </SafetySection>
    </SafetyForm>
  );
}
