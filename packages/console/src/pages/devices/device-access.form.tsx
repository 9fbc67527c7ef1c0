import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  deviceAccessPermissions,
  exchangeLimits,
  TIME_OF_DAY_PATTERN,
  weekdays,
} from '@tessera/contract/constants';
import { Button, Card, Checkbox, Flex, Form, Input, Radio, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import type { Device } from './device-parts.tsx';

type Policy = NonNullable<Device['policy']>;
interface Values {
  name: string;
  accessPermission: Device['accessPermission'];
  policyMode: 'none' | Policy['mode'];
  timeZone: string;
  windows: Policy['windows'];
}

/** ISO weekday 1 (Monday) … 7 (Sunday) as phrase keys. */
const weekdayKeys = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const zones = (): string[] => {
  const supported = (Intl as { supportedValuesOf?(key: string): string[] }).supportedValuesOf;
  return supported ? supported('timeZone') : [localZone()];
};
const valuesOf = (device: Device): Values => ({
  name: device.name,
  accessPermission: device.accessPermission,
  policyMode: device.policy?.mode ?? 'none',
  timeZone: device.policy?.timeZone ?? localZone(),
  windows: device.policy?.windows ?? [{ days: [1, 2, 3, 4, 5], start: '08:00', end: '20:00' }],
});

/** A device's name, access permission and custom policy (spec §3): allowed or blocked within time windows. */
export function DeviceAccessForm({ device, onSaved }: { device: Device; onSaved(device: Device): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<Values>();
  const mode = Form.useWatch('policyMode', form) ?? valuesOf(device).policyMode;
  const { saving, submit } = useFormSubmit(
    form,
    async (values: Values) => {
      const saved = await callApi('/api/v1/manage/user/exchange/admin/device/update', {
        deviceId: device.deviceId,
        name: values.name.trim(),
        accessPermission: values.accessPermission,
        policy:
          values.policyMode === 'none'
            ? null
            : { mode: values.policyMode, timeZone: values.timeZone, windows: values.windows },
      });
      form.setFieldsValue(valuesOf(saved));
      onSaved(saved);
      void message.success(t('devices.detail.saved'));
    },
    (error) => {
      if (error instanceof ApiError && error.fields?.length) {
        form.setFields(
          error.fields.map(({ field, message: text }) => ({
            name: field.replace(/^policy\./, '').split('.') as never,
            errors: [text],
          })),
        );
      }
    },
  );

  const time = [{ required: true, pattern: TIME_OF_DAY_PATTERN, message: t('devices.detail.timeInvalid') }];
  return (
    <Card title={t('devices.detail.settingsTitle')} size="small">
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={valuesOf(device)}
        disabled={saving}
        onFinish={() => void submit()}
        data-testid="device-access"
      >
        <Form.Item
          name="name"
          label={t('devices.detail.name')}
          rules={[{ required: true, whitespace: true, message: t('devices.detail.nameRequired') }]}
        >
          <Input maxLength={exchangeLimits.deviceNameMax} />
        </Form.Item>
        <Form.Item name="accessPermission" label={t('devices.detail.accessPermission')}>
          <Radio.Group
            options={deviceAccessPermissions.map((value) => ({ value, label: t(`devices.access.${value}`) }))}
          />
        </Form.Item>
        <Form.Item name="policyMode" label={t('devices.detail.policy')}>
          <Radio.Group>
            <Flex vertical gap={6}>
              <Radio value="none">{t('devices.detail.policyNone')}</Radio>
              <Radio value="allow">{t('devices.detail.policyModes.allow')}</Radio>
              <Radio value="block">{t('devices.detail.policyModes.block')}</Radio>
            </Flex>
          </Radio.Group>
        </Form.Item>
        {mode !== 'none' && (
          <>
            <Form.Item name="timeZone" label={t('devices.detail.timeZone')}>
              <Select showSearch options={zones().map((zone) => ({ value: zone, label: zone }))} />
            </Form.Item>
            <Form.List name="windows">
              {(items, { add, remove }) => (
                <Flex vertical gap={8} style={{ marginBottom: 16 }}>
                  {items.map((item) => (
                    <Card key={item.key} size="small" styles={{ body: { paddingBottom: 0 } }}>
                      <Form.Item
                        name={[item.name, 'days']}
                        label={t('devices.detail.days')}
                        rules={[
                          {
                            required: true,
                            type: 'array',
                            min: 1,
                            message: t('devices.detail.daysRequired'),
                          },
                        ]}
                      >
                        <Checkbox.Group
                          options={weekdays.map((day) => ({
                            value: day,
                            label: t(`devices.weekdays.${weekdayKeys[day - 1] ?? 'mon'}`),
                          }))}
                        />
                      </Form.Item>
                      <Flex gap={8} wrap align="flex-start">
                        <Form.Item name={[item.name, 'start']} label={t('devices.detail.from')} rules={time}>
                          <Input placeholder="08:00" style={{ width: 100 }} />
                        </Form.Item>
                        <Form.Item name={[item.name, 'end']} label={t('devices.detail.to')} rules={time}>
                          <Input placeholder="20:00" style={{ width: 100 }} />
                        </Form.Item>
                        {items.length > 1 && (
                          <Button
                            type="text"
                            danger
                            icon={<DeleteOutlined />}
                            style={{ marginTop: 30 }}
                            onClick={() => remove(item.name)}
                          >
                            {t('devices.detail.removeWindow')}
                          </Button>
                        )}
                      </Flex>
                    </Card>
                  ))}
                  {items.length < exchangeLimits.policyWindowsMax && (
                    <Button
                      icon={<PlusOutlined />}
                      onClick={() => add({ days: [1, 2, 3, 4, 5], start: '08:00', end: '20:00' })}
                      style={{ alignSelf: 'flex-start' }}
                    >
                      {t('devices.detail.addWindow')}
                    </Button>
                  )}
                </Flex>
              )}
            </Form.List>
          </>
        )}
        <Button type="primary" htmlType="submit" loading={saving}>
          {t('devices.detail.save')}
        </Button>
      </Form>
    </Card>
  );
}
