import { loginMethods, passwordClasses, safetyLimits } from '@tessera/contract/constants';
import { Checkbox, Form, InputNumber, Switch } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useLoad } from '../../lib/use-load.ts';
import { LockoutFields } from './lockout-fields.tsx';
import { SafetyForm, SafetyLoading, SafetySection } from './safety-form.tsx';
import { changeCycleProblem, loginMethodKey, minLengthProblem, ruleOf } from './safety-rules.ts';

type GeneralSafety = ApiResponse<'/api/v1/manage/safety/general'>;

/** The fields a refused save may name (see server-fields.ts). */
const fields = [
  'loginMethods',
  'password.classes',
  'password.minLength',
  'password.forbidUsername',
  'password.forbidCommon',
  'password.changeCycleDays',
  'lockout.maxFailures',
  'lockout.lockMinutes',
  'selfServiceReset',
] as const;

/** /safety-management/general: login methods, password rules and lock-out of the company. */
export function GeneralSafetyPage() {
  const { callApi } = useConsole();
  const load = useCallback(() => callApi('/api/v1/manage/safety/general'), [callApi]);
  const { data, setData, loading, reload } = useLoad(load);
  if (!data) return <SafetyLoading loading={loading} onRetry={reload} />;
  return <GeneralSafetyForm settings={data} onSaved={setData} />;
}

function GeneralSafetyForm({
  settings,
  onSaved,
}: {
  settings: GeneralSafety;
  onSaved(settings: GeneralSafety): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<GeneralSafety>();

  const save = async (values: GeneralSafety) => {
    const stored = await callApi('/api/v1/manage/safety/general/update', {
      // Password sign-in cannot be turned off (its box is fixed; the server refuses it too).
      loginMethods: loginMethods.filter(
        (method) => method === 'password' || values.loginMethods.includes(method),
      ),
      password: {
        minLength: values.password.minLength,
        classes: passwordClasses.filter((kind) => values.password.classes.includes(kind)),
        forbidUsername: values.password.forbidUsername,
        forbidCommon: values.password.forbidCommon,
        changeCycleDays: values.password.changeCycleDays,
      },
      lockout: { maxFailures: values.lockout.maxFailures, lockMinutes: values.lockout.lockMinutes },
      selfServiceReset: values.selfServiceReset,
    });
    onSaved(stored);
    return stored;
  };

  return (
    <SafetyForm form={form} settings={settings} fields={fields} save={save} testId="general-safety">
      <SafetySection title={t('safety.general.methodsTitle')} hint={t('safety.general.methodsHint')}>
        <Form.Item
          name="loginMethods"
          label={t('safety.general.methods')}
          extra={t('safety.general.methodsExtra')}
          style={{ marginBottom: 0 }}
        >
          <Checkbox.Group
            options={loginMethods.map((method) => ({
              value: method,
              label: t(`safety.general.method.${loginMethodKey[method]}` as 'safety.general.method.password'),
              disabled: method === 'password',
            }))}
          />
        </Form.Item>
      </SafetySection>

      <SafetySection title={t('safety.general.passwordTitle')} hint={t('safety.general.passwordHint')}>
        <Form.Item
          name={['password', 'classes']}
          label={t('safety.general.classes')}
          extra={t('safety.general.classesHint')}
        >
          <Checkbox.Group
            options={passwordClasses.map((kind) => ({
              value: kind,
              label: t(`safety.general.passwordClass.${kind}`),
            }))}
          />
        </Form.Item>
        <Form.Item
          name={['password', 'minLength']}
          label={t('safety.general.minLength')}
          rules={[ruleOf(t, minLengthProblem)]}
          extra={t('safety.general.minLengthHint', safetyLimits.passwordMinLength)}
        >
          <InputNumber
            precision={0}
            suffix={t('safety.general.characters')}
            style={{ width: 200 }}
            data-testid="min-length"
          />
        </Form.Item>
        <Form.Item
          name={['password', 'forbidUsername']}
          label={t('safety.general.forbidUsername')}
          extra={t('safety.general.forbidUsernameHint')}
          valuePropName="checked"
        >
          <Switch />
        </Form.Item>
        <Form.Item
          name={['password', 'forbidCommon']}
          label={t('safety.general.forbidCommon')}
          extra={t('safety.general.forbidCommonHint')}
          valuePropName="checked"
        >
          <Switch />
        </Form.Item>
        <Form.Item
          name={['password', 'changeCycleDays']}
          label={t('safety.general.changeCycle')}
          extra={t('safety.general.changeCycleHint')}
          rules={[ruleOf(t, changeCycleProblem)]}
          style={{ marginBottom: 0 }}
        >
          <InputNumber
            precision={0}
            suffix={t('safety.general.days')}
            style={{ width: 200 }}
            data-testid="change-cycle"
          />
        </Form.Item>
      </SafetySection>

      <SafetySection title={t('safety.general.lockoutTitle')} hint={t('safety.general.lockoutHint')}>
        <LockoutFields />
      </SafetySection>

      <SafetySection title={t('safety.general.resetTitle')} hint={t('safety.general.resetHint')}>
        <Form.Item
          name="selfServiceReset"
          label={t('safety.general.selfServiceReset')}
          extra={t('safety.general.selfServiceResetHint')}
          valuePropName="checked"
          style={{ marginBottom: 0 }}
        >
          <Switch data-testid="self-service-reset" />
        </Form.Item>
      </SafetySection>
    </SafetyForm>
  );
}
