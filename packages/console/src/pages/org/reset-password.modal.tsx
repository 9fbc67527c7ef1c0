import { Checkbox, Form, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { PasswordFields } from '../../components/password-fields.tsx';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import type { OrgUser } from './org-types.ts';
import { showFieldErrors } from './server-errors.ts';
import { confirmPasswordRules, passwordRules } from './user-form-rules.ts';
import { displayName } from './user-status.ts';

interface ResetValues {
  password: string;
  confirmPassword: string;
  mustChangePassword: boolean;
}

/** Sets a managed user's password, by default forcing a change at the next sign-in. */
export function ResetPasswordModal({
  user,
  onClose,
  onDone,
}: {
  /** The user whose password is reset; the dialog is open while there is one. */
  user: OrgUser | undefined;
  onClose(): void;
  onDone(user: OrgUser): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<ResetValues>();
  const { saving, submit } = useFormSubmit(
    form,
    user &&
      (async (values) => {
        const changed = await callApi('/api/v1/manage/user/password/reset', {
          userId: user.userId,
          ...values,
        });
        void message.success(t('org.reset.done', { name: displayName(user) }));
        form.resetFields();
        onDone(changed);
      }),
    // The HTTP client has shown the message; the field it is about is marked too.
    (error) => showFieldErrors(form, error, ['password', 'confirmPassword']),
  );

  return (
    <Modal
      open={user !== undefined}
      title={user ? t('org.reset.title', { name: displayName(user) }) : null}
      okText={t('org.reset.ok')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={() => {
        form.resetFields();
        onClose();
      }}
      forceRender
    >
      <Form<ResetValues>
        form={form}
        layout="vertical"
        initialValues={{ mustChangePassword: true }}
        disabled={saving}
        onFinish={submit}
        name="reset-password"
      >
        {/* Lets password managers tie the new password to the account. */}
        <input type="text" hidden readOnly autoComplete="username" value={user?.username ?? ''} />
        <PasswordFields
          passwordLabel={t('org.form.password')}
          passwordExtra={t('org.form.passwordHint')}
          passwordRules={passwordRules(t)}
          confirmLabel={t('org.form.confirmPassword')}
          confirmRules={confirmPasswordRules(t)}
        />
        <Form.Item name="mustChangePassword" valuePropName="checked" style={{ marginBottom: 0 }}>
          <Checkbox>{t('org.form.mustChangePassword')}</Checkbox>
        </Form.Item>
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
