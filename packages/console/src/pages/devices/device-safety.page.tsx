import { exchangeLimits } from '@tessera/contract/constants';
import { Button, Flex, Form, InputNumber, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatDate } from '../../lib/format/date.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import { SafetyForm, SafetyLoading, SafetySection } from '../safety/safety-form.tsx';

type DeviceSettings = ApiResponse<'/api/v1/manage/safety/device'>;

const fields = ['devicePasswordDigits', 'rotationDays'] as const;
const digits = exchangeLimits.devicePasswordDigits;
const rotation = exchangeLimits.rotationDays;

/** /safety-management/device (full set): device password length and rotation (spec §5), the registration token (§4). */
export function DeviceSafetyPage() {
  const { callApi } = useConsole();
  const load = useCallback(() => callApi('/api/v1/manage/safety/device'), [callApi]);
  const { data, setData, loading, reload } = useLoad(load);
  if (!data) return <SafetyLoading loading={loading} onRetry={reload} />;
  return <DeviceSafetyForm settings={data} onSaved={setData} />;
}

function DeviceSafetyForm({
  settings,
  onSaved,
}: {
  settings: DeviceSettings;
  onSaved(s: DeviceSettings): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<DeviceSettings>();
  const save = async (values: DeviceSettings) => {
    const stored = await callApi('/api/v1/manage/safety/device/update', {
      devicePasswordDigits: values.devicePasswordDigits,
      rotationDays: values.rotationDays,
    });
    onSaved(stored);
    return stored;
  };
  const range = (limits: { min: number; max: number }, key: 'digitsRange' | 'rotationRange') => ({
    type: 'integer' as const,
    required: true,
    ...limits,
    message: t(`devices.device.${key}`, limits),
  });
  return (
    <SafetyForm form={form} settings={settings} fields={fields} save={save} testId="device-safety">
      <SafetySection title={t('devices.device.passwordsTitle')} hint={t('devices.device.passwordsHint')}>
        <Form.Item
          name="devicePasswordDigits"
          label={t('devices.device.digits')}
          extra={t('devices.device.digitsRange', digits)}
          rules={[range(digits, 'digitsRange')]}
        >
          <InputNumber
            min={digits.min}
            max={digits.max}
            precision={0}
            suffix={t('devices.device.characters')}
          />
        </Form.Item>
        <Form.Item
          name="rotationDays"
          label={t('devices.device.rotationDays')}
          extra={t('devices.device.rotationRange', rotation)}
          rules={[range(rotation, 'rotationRange')]}
          style={{ marginBottom: 0 }}
        >
          <InputNumber
            min={rotation.min}
            max={rotation.max}
            precision={0}
            suffix={t('devices.device.days')}
          />
        </Form.Item>
      </SafetySection>
      <RegistrationToken />
    </SafetyForm>
  );
}

/** The token, hidden until asked for, and its replacement (after a confirmation). */
function RegistrationToken() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const [token, setToken] = useState<{ token: string; rotatedAt: string }>();
  const [shown, setShown] = useState(false);

  const show = async () => {
    if (!token) setToken(await callApi('/api/v1/manage/safety/device/token'));
    setShown((now) => !now);
  };
  const rotate = () =>
    confirm({
      title: t('devices.device.rotateTitle'),
      content: t('devices.device.rotateContent'),
      okText: t('devices.device.rotate'),
      onOk: async () => {
        setToken(await callApi('/api/v1/manage/safety/device/token/rotate'));
        setShown(true);
        void message.success(t('devices.device.rotated'));
      },
    });

  return (
    <SafetySection title={t('devices.device.tokenTitle')} hint={t('devices.device.tokenHint')}>
      <Form.Item label={t('devices.device.token')} style={{ marginBottom: 0 }}>
        <Flex vertical gap={8} align="flex-start">
          <Flex gap={8} wrap align="center">
            {shown && token ? (
              <Typography.Text code copyable data-testid="registration-token">
                {token.token}
              </Typography.Text>
            ) : (
              <Typography.Text code aria-hidden="true">
                ••••-••••-••••-••••
              </Typography.Text>
            )}
            <Button htmlType="button" size="small" onClick={() => void show()}>
              {shown ? t('devices.device.hide') : t('devices.device.show')}
            </Button>
            <Button htmlType="button" size="small" danger onClick={() => void rotate()}>
              {t('devices.device.rotate')}
            </Button>
          </Flex>
          {token && (
            <Typography.Text type="secondary">
              {t('devices.device.rotatedAt', { time: formatDate(token.rotatedAt) })}
            </Typography.Text>
          )}
        </Flex>
      </Form.Item>
    </SafetySection>
  );
}
