import { userLimits } from '@tessera/contract/constants';
import { Checkbox, Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { PasswordFields } from '../../components/password-fields.tsx';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { DepartmentSelect } from './department-select.tsx';
import type { Department, OrgUser } from './org-types.ts';
import { showFieldErrors } from './server-errors.ts';
import {
  confirmPasswordRules,
  emailRules,
  normalisePhone,
  optional,
  passwordRules,
  phoneRules,
  textRules,
  usernameRules,
} from './user-form-rules.ts';

export interface CreateUserValues {
  username: string;
  name?: string;
  nickname?: string;
  email?: string;
  phone?: string;
  password: string;
  confirmPassword: string;
  departmentIds?: string[];
  mustChangePassword: boolean;
}

const formFields = [
  'username',
  'name',
  'nickname',
  'email',
  'phone',
  'password',
  'confirmPassword',
  'departmentIds',
];

/** Creates a user the company manages (spec §5: user name, password and its confirmation). */
export function CreateUserModal({
  open,
  tree,
  onClose,
  onCreated,
}: {
  open: boolean;
  tree: Department | undefined;
  onClose(): void;
  onCreated(user: OrgUser): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<CreateUserValues>();
  const { saving, submit } = useFormSubmit(
    form,
    async (values) => {
      const created = await callApi('/api/v1/manage/user/create', {
        username: values.username.trim(),
        name: optional(values.name),
        nickname: optional(values.nickname),
        email: optional(values.email),
        phone: optional(normalisePhone(values.phone ?? '')),
        password: values.password,
        confirmPassword: values.confirmPassword,
        departmentIds: values.departmentIds?.length ? values.departmentIds : undefined,
        mustChangePassword: values.mustChangePassword,
      });
      void message.success(t('org.form.created', { name: created.username }));
      form.resetFields();
      onCreated(created);
    },
    // The HTTP client has shown the message; the field it is about is marked too.
    (error) => showFieldErrors(form, error, formFields),
  );

  return (
    <Modal
      open={open}
      title={t('org.users.create')}
      okText={t('org.users.create')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={() => {
        form.resetFields();
        onClose();
      }}
      width={560}
      forceRender
    >
      <Form<CreateUserValues>
        form={form}
        layout="vertical"
        requiredMark
        initialValues={{ mustChangePassword: true }}
        disabled={saving}
        onFinish={submit}
        name="create-user"
      >
        <Form.Item name="username" label={t('org.form.username')} validateFirst rules={usernameRules(t)}>
          <Input autoComplete="off" maxLength={userLimits.usernameMax} />
        </Form.Item>
        <Form.Item name="name" label={t('org.form.name')} rules={textRules(t, userLimits.nameMax)}>
          <Input autoComplete="off" maxLength={userLimits.nameMax} />
        </Form.Item>
        <Form.Item
          name="nickname"
          label={t('org.form.nickname')}
          rules={textRules(t, userLimits.nicknameMax)}
        >
          <Input autoComplete="off" maxLength={userLimits.nicknameMax} />
        </Form.Item>
        <Form.Item name="email" label={t('org.form.email')} rules={emailRules(t)}>
          <Input type="email" autoComplete="off" maxLength={userLimits.emailMax} />
        </Form.Item>
        <Form.Item name="phone" label={t('org.form.phone')} rules={phoneRules(t)}>
          <Input type="tel" autoComplete="off" maxLength={userLimits.phoneMax + 10} />
        </Form.Item>
        <PasswordFields
          passwordLabel={t('org.form.password')}
          passwordExtra={t('org.form.passwordHint')}
          passwordRules={passwordRules(t)}
          confirmLabel={t('org.form.confirmPassword')}
          confirmRules={confirmPasswordRules(t)}
        />
        <Form.Item name="departmentIds" label={t('org.form.departments')}>
          <DepartmentSelect multiple tree={tree} placeholder={t('org.form.departmentsPlaceholder')} />
        </Form.Item>
        <Form.Item name="mustChangePassword" valuePropName="checked" style={{ marginBottom: 0 }}>
          <Checkbox>{t('org.form.mustChangePassword')}</Checkbox>
        </Form.Item>
        {/* Enter in a field submits the form. */}
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
