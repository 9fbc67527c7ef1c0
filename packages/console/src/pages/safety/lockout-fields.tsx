import { Form, InputNumber } from 'antd';
import { useTranslation } from 'react-i18next';
import { lockMinutesProblem, maxFailuresProblem, ruleOf } from './safety-rules.ts';

/** Failed attempts before a lock-out and its length (`lockout` of both safety forms). */
export function LockoutFields() {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item
        name={['lockout', 'maxFailures']}
        label={t('safety.lockout.maxFailures')}
        rules={[ruleOf(t, maxFailuresProblem)]}
      >
        <InputNumber precision={0} suffix={t('safety.lockout.times')} style={{ width: 200 }} />
      </Form.Item>
      <Form.Item
        name={['lockout', 'lockMinutes']}
        label={t('safety.lockout.lockMinutes')}
        rules={[ruleOf(t, lockMinutesProblem)]}
        style={{ marginBottom: 0 }}
      >
        <InputNumber precision={0} suffix={t('safety.lockout.minutes')} style={{ width: 200 }} />
      </Form.Item>
    </>
  );
}
