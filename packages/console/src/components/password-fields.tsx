import { Form, type FormRule, Input } from 'antd';
import type { ReactNode } from 'react';

/**
 * A new password and its confirmation (spec §5: the two must match), as the forms that set a
 * password show them: `password` and a confirmation field that is checked again when the
 * password changes. Labels, hint and rules come from the form, in its own phrases.
 */
export function PasswordFields({
  passwordLabel,
  passwordExtra,
  passwordRules,
  confirmName = 'confirmPassword',
  confirmLabel,
  confirmRules,
}: {
  passwordLabel: ReactNode;
  passwordExtra?: ReactNode;
  passwordRules: FormRule[];
  confirmName?: string;
  confirmLabel: ReactNode;
  confirmRules: FormRule[];
}) {
  return (
    <>
      <Form.Item
        name="password"
        label={passwordLabel}
        extra={passwordExtra}
        validateFirst
        rules={passwordRules}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Form.Item
        name={confirmName}
        label={confirmLabel}
        dependencies={['password']}
        validateFirst
        rules={confirmRules}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
    </>
  );
}
