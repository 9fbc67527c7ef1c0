import { Alert, Button, Flex, Form, Radio, Tooltip, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { PasswordFields } from '../../components/password-fields.tsx';
import type { PasswordRulesView } from './generate-password.ts';
import { confirmPasswordRules, passwordRules } from './user-form-rules.ts';

export type PasswordWay = 'type' | 'generate' | 'invite';

/** The company's rules as a short list, shown before the form is sent. */
export function PasswordRulesList({ rules }: { rules: PasswordRulesView | undefined }) {
  const { t } = useTranslation();
  if (!rules) return <span>{t('org.form.passwordHint')}</span>;
  const items = [
    t('org.form.rules.minLength', { count: rules.minLength }),
    rules.classes.length
      ? t('org.form.rules.classes', {
          classes: rules.classes
            .map((kind) => t(`org.form.rules.class.${kind}`))
            .join(t('org.form.rules.classSeparator')),
        })
      : null,
    rules.forbidUsername ? t('org.form.rules.forbidUsername') : null,
    rules.forbidCommon ? t('org.form.rules.forbidCommon') : null,
  ].filter((item): item is string => item !== null);
  return (
    <div data-testid="password-rules">
      {t('org.form.rules.line', { items: items.join(t('org.form.rules.separator')) })}
    </div>
  );
}

/** The password is at least as long as the rules say: refused before sending, with the rule. */
const lengthRule = (t: TFunction, rules: PasswordRulesView | undefined) => ({
  validator: async (_: unknown, value: string | undefined) => {
    if (rules && value && [...value].length < rules.minLength)
      throw new Error(t('org.form.rules.minLength', { count: rules.minLength }));
  },
});

/**
 * How a new person gets a password: typed twice, generated (shown once, with copy), or chosen
 * by the person through an emailed sign-in link (only while mail is on).
 */
export function PasswordWayFields({
  way,
  onWay,
  generated,
  onGenerate,
  rules,
  mailOff,
}: {
  way: PasswordWay;
  onWay(way: PasswordWay): void;
  generated: string | undefined;
  onGenerate(): void;
  rules: PasswordRulesView | undefined;
  mailOff: boolean;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item label={t('org.form.passwordWay')}>
        <Radio.Group value={way} onChange={(event) => onWay(event.target.value as PasswordWay)}>
          <Radio.Button value="type">{t('org.form.way.type')}</Radio.Button>
          <Radio.Button value="generate">{t('org.form.way.generate')}</Radio.Button>
          {mailOff ? (
            <Tooltip title={t('org.users.mailOff')}>
              <Radio.Button value="invite" disabled>
                {t('org.form.way.invite')}
              </Radio.Button>
            </Tooltip>
          ) : (
            <Radio.Button value="invite">{t('org.form.way.invite')}</Radio.Button>
          )}
        </Radio.Group>
      </Form.Item>
      {way === 'type' ? (
        <PasswordFields
          passwordLabel={t('org.form.password')}
          passwordExtra={<PasswordRulesList rules={rules} />}
          passwordRules={[...passwordRules(t), lengthRule(t, rules)]}
          confirmLabel={t('org.form.confirmPassword')}
          confirmRules={confirmPasswordRules(t)}
        />
      ) : null}
      {way === 'generate' && generated ? (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          title={
            <Flex wrap gap={8} align="center" justify="space-between">
              <Typography.Text code copyable data-testid="generated-password" style={{ fontSize: 15 }}>
                {generated}
              </Typography.Text>
              <Button size="small" onClick={onGenerate}>
                {t('org.form.generateAgain')}
              </Button>
            </Flex>
          }
          description={
            <>
              {t('org.form.generatedOnce')}
              <br />
              <PasswordRulesList rules={rules} />
            </>
          }
        />
      ) : null}
      {way === 'invite' ? (
        <Alert type="info" showIcon style={{ marginBottom: 16 }} title={t('org.form.inviteHint')} />
      ) : null}
    </>
  );
}
