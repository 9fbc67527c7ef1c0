import { passwordLength, USERNAME_PATTERN, userLimits } from '@tessera/contract/constants';
import { Form, Input, Modal, Radio, Select, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { PasswordFields } from '../../components/password-fields.tsx';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { useLoad } from '../../lib/use-load.ts';
import { UserPicker } from '../org/user-picker.tsx';
import { adminRoles, memberRoleView, roleOfChoice } from './member-roles.ts';

interface AddValues {
  source: 'existing' | 'new';
  userId?: string;
  username: string;
  /** 'admin', 'external_admin' or 'console:<roleId>' (a custom console role). */
  role: string;
  email?: string;
  password: string;
  confirm: string;
}

/**
 * Makes a person an administrator (issue 35): a person of the company found by search, or a new
 * account (spec §5: user name without special characters, password required, passwords match),
 * given administrator, external administrator or one of the company's custom console roles.
 */
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
  const source = Form.useWatch('source', form) ?? 'existing';
  const loadRoles = useCallback(
    () => (open ? callApi('/api/v1/manage/console-role/list', {}) : Promise.resolve({ list: [] })),
    [callApi, open],
  );
  const consoleRoles = useLoad(loadRoles).data?.list ?? [];
  // A failed call has been shown by the HTTP client (the name is taken, for instance); the form stays.
  const { saving, submit } = useFormSubmit(form, async (values) => {
    const role = roleOfChoice(values.role);
    const added =
      values.source === 'existing' && values.userId
        ? await callApi('/api/v1/manage/company/user/role', { userId: values.userId, ...role })
        : await callApi('/api/v1/manage/company/user/create', {
            username: values.username.trim(),
            ...role,
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
        initialValues={{ source: 'existing', role: 'admin' }}
        disabled={saving}
        onFinish={submit}
      >
        <Form.Item name="source" label={t('settings.sourceLabel')}>
          <Radio.Group
            optionType="button"
            options={[
              { value: 'existing', label: t('settings.sourceExisting') },
              { value: 'new', label: t('settings.sourceNew') },
            ]}
          />
        </Form.Item>
        <Form.Item
          name="role"
          label={t('settings.roleLabel')}
          extra={<RolesHint count={consoleRoles.length} />}
        >
          <Select
            aria-label={t('settings.roleLabel')}
            options={[
              ...adminRoles.map((role) => ({ value: role, label: t(memberRoleView[role].label) })),
              {
                label: t('settings.consoleRolesGroup'),
                title: t('settings.consoleRolesGroup'),
                options: consoleRoles.map((role) => ({ value: `console:${role.roleId}`, label: role.name })),
              },
            ]}
          />
        </Form.Item>
        {source === 'existing' ? (
          <Form.Item
            name="userId"
            label={t('settings.personLabel')}
            rules={[{ required: true, message: t('settings.personRequired') }]}
          >
            <UserPicker
              aria-label={t('settings.personLabel')}
              placeholder={t('settings.personPlaceholder')}
            />
          </Form.Item>
        ) : (
          <NewPersonFields />
        )}
        {/* Enter in a field submits the form. */}
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}

/** What custom console roles are, or that the company has none yet. */
function RolesHint({ count }: { count: number }) {
  const { t } = useTranslation();
  return (
    <Typography.Text type="secondary">
      {count ? t('settings.consoleRolesHint') : t('settings.consoleRolesNone')}
    </Typography.Text>
  );
}

/** The fields of a new account. */
function NewPersonFields() {
  const { t } = useTranslation();
  return (
    <>
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
    </>
  );
}
