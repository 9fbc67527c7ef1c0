import { permissionLimits } from '@tessera/contract/constants';
import { Form, Input, Modal } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showFieldErrors } from '../org/server-errors.ts';
import type { Role } from './permission-types.ts';

interface RoleValues {
  name: string;
  description: string;
}

/** Creates a role (spec §5: name and description are required) or edits one. */
export function RoleFormModal({
  target,
  onClose,
  onSaved,
}: {
  /** `null`: a new role; a role: edit it; undefined: closed. */
  target: Role | null | undefined;
  onClose(): void;
  onSaved(role: Role): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<RoleValues>();

  useEffect(() => {
    if (target === undefined) return;
    form.resetFields();
    if (target) form.setFieldsValue({ name: target.name, description: target.description });
  }, [form, target]);

  const { saving, submit } = useFormSubmit(
    form,
    target !== undefined
      ? async (values) => {
          const fields = { name: values.name.trim(), description: values.description.trim() };
          const saved = target
            ? await callApi('/api/v1/manage/permission/role/update', { roleId: target.roleId, ...fields })
            : await callApi('/api/v1/manage/permission/role/create', fields);
          void message.success(
            t(target ? 'permission.role.saved' : 'permission.role.created', { name: saved.name }),
          );
          onSaved(saved);
        }
      : undefined,
    (error) => showFieldErrors(form, error, ['name', 'description']),
  );

  const rules = (requiredMessage: string, max: number) => [
    { required: true, whitespace: true, message: requiredMessage },
    {
      max,
      transform: (value?: string) => value?.trim(),
      message: t('permission.common.tooLong', { max }),
    },
  ];

  return (
    <Modal
      open={target !== undefined}
      title={target ? target.name : t('permission.role.create')}
      okText={target ? t('permission.common.save') : t('permission.common.create')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      forceRender
    >
      <Form<RoleValues> form={form} layout="vertical" disabled={saving} onFinish={submit} name="role">
        <Form.Item
          name="name"
          label={t('permission.role.name')}
          rules={rules(t('permission.role.nameRequired'), permissionLimits.nameMax)}
        >
          <Input maxLength={permissionLimits.nameMax} autoComplete="off" />
        </Form.Item>
        <Form.Item
          name="description"
          label={t('permission.role.description')}
          rules={rules(t('permission.role.descriptionRequired'), permissionLimits.descriptionMax)}
          style={{ marginBottom: 0 }}
        >
          <Input.TextArea rows={2} maxLength={permissionLimits.descriptionMax} />
        </Form.Item>
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
