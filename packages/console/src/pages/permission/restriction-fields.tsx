import { MinusCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { permissionLimits } from '@tessera/contract/constants';
import { Button, Checkbox, Flex, Form, Input, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Authorization } from './permission-types.ts';

/** The restrictions as the form holds them (dates as the browser's `datetime-local` values). */
export interface RestrictionValues {
  validFrom?: string;
  validUntil?: string;
  timeWindows: { days: number[]; from: string; to: string }[];
  timeZone: string;
  ipRanges: string[];
}

const DAYS = [1, 2, 3, 4, 5, 6, 7] as const;

const pad = (n: number) => String(n).padStart(2, '0');
/** An instant as the browser's `datetime-local` value, in the browser's time zone. */
const localValue = (iso: string | null) => {
  if (!iso) return undefined;
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};
const instant = (local: string | undefined) => (local ? new Date(local).toISOString() : null);

export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export const restrictionValuesOf = (r: Authorization['restrictions'] | undefined): RestrictionValues =>
  r
    ? {
        validFrom: localValue(r.validFrom),
        validUntil: localValue(r.validUntil),
        timeWindows: r.timeWindows,
        timeZone: r.timeZone,
        ipRanges: r.ipRanges,
      }
    : { timeWindows: [], timeZone: browserTimeZone(), ipRanges: [] };

export const restrictionsOf = (values: RestrictionValues) => ({
  validFrom: instant(values.validFrom),
  validUntil: instant(values.validUntil),
  timeWindows: values.timeWindows ?? [],
  timeZone: values.timeZone || 'UTC',
  ipRanges: values.ipRanges ?? [],
});

/** The restriction fields of the authorization form (`restrictions.*`). */
export function RestrictionFields() {
  const { t } = useTranslation();
  return (
    <>
      <Flex gap={12} wrap>
        <Form.Item name={['restrictions', 'validFrom']} label={t('permission.authorization.validFrom')}>
          <Input type="datetime-local" />
        </Form.Item>
        <Form.Item
          name={['restrictions', 'validUntil']}
          label={t('permission.authorization.validUntil')}
          dependencies={[['restrictions', 'validFrom']]}
          rules={[
            ({ getFieldValue }) => ({
              validator: async (_rule, value?: string) => {
                const from = getFieldValue(['restrictions', 'validFrom']) as string | undefined;
                if (value && from && new Date(value) <= new Date(from))
                  throw new Error(t('permission.authorization.validityOrder'));
              },
            }),
          ]}
        >
          <Input type="datetime-local" />
        </Form.Item>
      </Flex>
      <Form.Item label={t('permission.authorization.timeWindows')} style={{ marginBottom: 8 }}>
        <Form.List name={['restrictions', 'timeWindows']}>
          {(fields, { add, remove }) => (
            <Flex vertical gap={8}>
              {fields.map((field) => (
                <Flex key={field.key} gap={8} align="baseline" wrap>
                  <Form.Item
                    name={[field.name, 'days']}
                    rules={[
                      {
                        required: true,
                        type: 'array',
                        min: 1,
                        message: t('permission.authorization.daysRequired'),
                      },
                    ]}
                    style={{ marginBottom: 0 }}
                  >
                    <Checkbox.Group
                      options={DAYS.map((day) => ({
                        value: day,
                        label: t(`permission.authorization.days.d${day}`),
                      }))}
                    />
                  </Form.Item>
                  <Form.Item
                    name={[field.name, 'from']}
                    rules={[{ required: true, message: ' ' }]}
                    style={{ marginBottom: 0 }}
                  >
                    <Input type="time" style={{ width: 110 }} />
                  </Form.Item>
                  <Form.Item
                    name={[field.name, 'to']}
                    dependencies={[['restrictions', 'timeWindows', field.name, 'from']]}
                    rules={[
                      { required: true, message: ' ' },
                      ({ getFieldValue }) => ({
                        validator: async (_rule, value?: string) => {
                          const from = getFieldValue([
                            'restrictions',
                            'timeWindows',
                            field.name,
                            'from',
                          ]) as string;
                          if (value && from && value <= from)
                            throw new Error(t('permission.authorization.windowOrder'));
                        },
                      }),
                    ]}
                    style={{ marginBottom: 0 }}
                  >
                    <Input type="time" style={{ width: 110 }} />
                  </Form.Item>
                  <Button
                    type="text"
                    icon={<MinusCircleOutlined />}
                    aria-label={t('permission.authorization.removeWindow')}
                    onClick={() => remove(field.name)}
                  />
                </Flex>
              ))}
              {fields.length < permissionLimits.windowsMax ? (
                <Button
                  type="dashed"
                  icon={<PlusOutlined />}
                  onClick={() => add({ days: [1, 2, 3, 4, 5], from: '09:00', to: '18:00' })}
                  style={{ alignSelf: 'flex-start' }}
                >
                  {t('permission.authorization.addWindow')}
                </Button>
              ) : null}
            </Flex>
          )}
        </Form.List>
      </Form.Item>
      <Form.Item name={['restrictions', 'timeZone']} label={t('permission.authorization.timeZone')}>
        <Input maxLength={64} style={{ maxWidth: 240 }} />
      </Form.Item>
      <Form.Item
        name={['restrictions', 'ipRanges']}
        label={t('permission.authorization.ipRanges')}
        extra={t('permission.authorization.ipRangesHint')}
      >
        <Select mode="tags" tokenSeparators={[',', ' ']} open={false} suffixIcon={null} />
      </Form.Item>
    </>
  );
}
