import { mfaModes, mfaTypes } from '@tessera/contract/constants';
import { Checkbox, Flex, Form, Radio, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useLoad } from '../../lib/use-load.ts';
import { LockoutFields } from './lockout-fields.tsx';
import { SafetyForm, SafetyLoading, SafetySection } from './safety-form.tsx';
import { mfaTypeKey } from './safety-rules.ts';

type MfaSafety = ApiResponse<'/api/v1/manage/safety/mfa'>;

const fields = ['mode', 'types', 'lockout.maxFailures', 'lockout.lockMinutes'] as const;

/** /safety-management/mfa: when a second factor is asked for, which kinds, and the MFA lock-out. */
export function MfaSafetyPage() {
  const { callApi } = useConsole();
  const load = useCallback(() => callApi('/api/v1/manage/safety/mfa'), [callApi]);
  const { data, setData, loading, reload } = useLoad(load);
  if (!data) return <SafetyLoading loading={loading} onRetry={reload} />;
  return <MfaSafetyForm settings={data} onSaved={setData} />;
}

function MfaSafetyForm({ settings, onSaved }: { settings: MfaSafety; onSaved(settings: MfaSafety): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<MfaSafety>();

  const save = async (values: MfaSafety) => {
    const stored = await callApi('/api/v1/manage/safety/mfa/update', {
      mode: values.mode,
      types: mfaTypes.filter((type) => values.types.includes(type)),
      lockout: { maxFailures: values.lockout.maxFailures, lockMinutes: values.lockout.lockMinutes },
    });
    onSaved(stored);
    return stored;
  };

  return (
    <SafetyForm form={form} settings={settings} fields={fields} save={save} testId="mfa-safety">
      <SafetySection title={t('safety.mfa.modeTitle')} hint={t('safety.mfa.modeHint')}>
        <Form.Item name="mode" label={t('safety.mfa.mode')} style={{ marginBottom: 0 }}>
          <Radio.Group>
            <Flex vertical gap={10}>
              {mfaModes.map((mode) => (
                <Radio key={mode} value={mode}>
                  <span>{t(`safety.mfa.modes.${mode}`)}</span>
                  <Typography.Text type="secondary" style={{ display: 'block', fontSize: 13 }}>
                    {t(`safety.mfa.modeHelp.${mode}`)}
                  </Typography.Text>
                </Radio>
              ))}
            </Flex>
          </Radio.Group>
        </Form.Item>
      </SafetySection>

      <SafetySection title={t('safety.mfa.typesTitle')} hint={t('safety.mfa.typesHint')}>
        <Form.Item
          name="types"
          label={t('safety.mfa.types')}
          dependencies={['mode']}
          rules={[
            ({ getFieldValue }) => ({
              validator: async (_rule, value?: string[]) => {
                if (getFieldValue('mode') !== 'off' && !value?.length) {
                  throw new Error(t('safety.mfa.typesRequired'));
                }
              },
            }),
          ]}
          style={{ marginBottom: 0 }}
        >
          <Checkbox.Group style={{ display: 'block' }}>
            <Flex vertical gap={10}>
              {mfaTypes.map((type) => {
                const key = mfaTypeKey[type];
                return (
                  <Checkbox key={type} value={type} data-testid={`mfa-type-${type}`}>
                    <span>{t(`safety.mfa.type.${key}` as 'safety.mfa.type.otp')}</span>
                    <Typography.Text type="secondary" style={{ display: 'block', fontSize: 13 }}>
                      {t(`safety.mfa.typeHelp.${key}` as 'safety.mfa.typeHelp.otp')}
                    </Typography.Text>
                  </Checkbox>
                );
              })}
            </Flex>
          </Checkbox.Group>
        </Form.Item>
      </SafetySection>

      <SafetySection title={t('safety.mfa.lockoutTitle')} hint={t('safety.mfa.lockoutHint')}>
        <LockoutFields />
      </SafetySection>
    </SafetyForm>
  );
}
