import { passwordLength, USERNAME_PATTERN, userLimits } from '@tessera/contract/constants';
import { Form, Input, Modal, Radio } from 'antd';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { PasswordFields } from '../../components/password-fields.tsx';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { type AssignableRole, assignableRoles, memberRoleView } from './member-roles.ts';

interface AddValues {
  username: string;
  role: AssignableRole;
  email?: string;
  password: string;
  confirm: string;
}

/** Spec §5: user name required without special characters, password required, passwords match. */
export function AddAdministratorModal({
  open,
  onClose,
  onAdded,
}: {
  open: boolean;
  onClose(): void;
  onAdded(): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<AddValues>();
  // A failed call has been shown by the HTTP client (the name is taken, for instance); the form stays.
  const { saving, submit } = useFormSubmit(form, async (values) => {
    const added = await callApi('/api/v1/manage/company/user/create', {
      username: values.username.trim(),
      role: values.role,
      password: values.password,
      email: values.email?.trim() || undefined,
    });
    void message.success(t('settings.added', { name: added.username }));
    form.resetFields();
    onAdded();
  });

  return (
    <Modal
      open={open}
      title={t('settings.addAdmin')}
      okText={t('settings.addAdmin')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={() => {
        form.resetFields();
        onClose();
      }}
      forceRender
    >
      <Form<AddValues>
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ role: 'admin' }}
        disabled={saving}
        onFinish={submit}
      >
        <Form.Item
          name="username"
          label={t('settings.usernameLabel')}
          validateFirst
          rules={[
            { required: true, whitespace: true, message: t('settings.usernameRequired') },
            {
              pattern: USERNAME_PATTERN,
              max: userLimits.usernameMax,
              transform: (value?: string) => value?.trim(),
              message: t('settings.usernameInvalid'),
            },
          ]}
        >
          <Input autoComplete="off" maxLength={userLimits.usernameMax} />
        </Form.Item>
        <Form.Item name="role" label={t('settings.roleLabel')}>
          <Radio.Group
            options={assignableRoles.map((role) => ({ value: role, label: t(memberRoleView[role].label) }))}
          />
        </Form.Item>
        <Form.Item
          name="email"
          label={t('settings.emailLabel')}
          rules={[{ type: 'email', message: t('settings.emailInvalid') }]}
        >
          <Input type="email" autoComplete="off" maxLength={userLimits.emailMax} />
        </Form.Item>
        <PasswordFields
          passwordLabel={t('settings.passwordLabel')}
          passwordRules={[
            { required: true, message: t('settings.passwordRequired') },
            {
              min: passwordLength.min,
              max: passwordLength.max,
              message: t('settings.passwordLength', passwordLength),
            },
          ]}
          confirmName="confirm"
          confirmLabel={t('settings.confirmLabel')}
          confirmRules={[
            { required: true, message: t('settings.confirmRequired') },
            ({ getFieldValue }) => ({
              validator: async (_rule, value: string | undefined) => {
                if (value !== getFieldValue('password')) throw new Error(t('settings.passwordsDiffer'));
              },
            }),
          ]}
        />
        {/* Enter in a field submits the form. */}
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
