import { userLimits } from '@tessera/contract/constants';
import { Checkbox, Form, Input, Modal } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole, useMailEnabled } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { DepartmentSelect } from './department-select.tsx';
import { generatePassword, type PasswordRulesView } from './generate-password.ts';
import type { Department, OrgUser } from './org-types.ts';
import { type PasswordWay, PasswordWayFields } from './password-way.tsx';
import { showFieldErrors } from './server-errors.ts';
import {
  emailRules,
  normalisePhone,
  optional,
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
  const mailOff = useMailEnabled() === false;
  const [way, setWay] = useState<PasswordWay>('type');
  const [generated, setGenerated] = useState<string>();
  const [rules, setRules] = useState<PasswordRulesView>();
  useEffect(() => {
    if (!open) return;
    let current = true;
    callApi('/api/v1/manage/user/password-rules', undefined, { silent: true })
      .then((answer) => current && setRules(answer))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [open, callApi]);
  const chooseWay = (next: PasswordWay) => {
    setWay(next);
    setGenerated(next === 'generate' ? generatePassword(rules) : undefined);
  };
  const reset = () => {
    form.resetFields();
    setWay('type');
    setGenerated(undefined);
  };
  const { saving, submit } = useFormSubmit(
    form,
    async (values) => {
      const password = way === 'invite' ? '' : way === 'generate' ? (generated ?? '') : values.password;
      const created = await callApi('/api/v1/manage/user/create', {
        username: values.username.trim(),
        name: optional(values.name),
        nickname: optional(values.nickname),
        email: optional(values.email),
        phone: optional(normalisePhone(values.phone ?? '')),
        password,
        confirmPassword: way === 'type' ? values.confirmPassword : password,
        ...(way === 'invite' ? { invite: true } : {}),
        departmentIds: values.departmentIds?.length ? values.departmentIds : undefined,
        mustChangePassword: way === 'invite' || values.mustChangePassword,
      });
      const { invitedTo, ...user } = created;
      if (way !== 'invite') void message.success(t('org.form.created', { name: user.username }));
      else if (invitedTo)
        void message.success(t('org.form.invited', { name: user.username, email: invitedTo }));
      else void message.warning(t('org.form.inviteFailed', { name: user.username }));
      reset();
      onCreated(user);
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
        reset();
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
        <Form.Item
          name="email"
          label={t('org.form.email')}
          rules={[
            ...emailRules(t),
            ...(way === 'invite' ? [{ required: true, message: t('org.form.inviteNeedsEmail') }] : []),
          ]}
        >
          <Input type="email" autoComplete="off" maxLength={userLimits.emailMax} />
        </Form.Item>
        <Form.Item name="phone" label={t('org.form.phone')} rules={phoneRules(t)}>
          <Input type="tel" autoComplete="off" maxLength={userLimits.phoneMax + 10} />
        </Form.Item>
        <PasswordWayFields
          way={way}
          onWay={chooseWay}
          generated={generated}
          onGenerate={() => setGenerated(generatePassword(rules))}
          rules={rules}
          mailOff={mailOff}
        />
        <Form.Item name="departmentIds" label={t('org.form.departments')}>
          <DepartmentSelect multiple tree={tree} placeholder={t('org.form.departmentsPlaceholder')} />
        </Form.Item>
        <Form.Item
          name="mustChangePassword"
          valuePropName="checked"
          hidden={way === 'invite'}
          style={{ marginBottom: 0 }}
        >
          <Checkbox>{t('org.form.mustChangePassword')}</Checkbox>
        </Form.Item>
        {/* Enter in a field submits the form. */}
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
