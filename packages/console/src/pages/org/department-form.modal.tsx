import { departmentLimits } from '@tessera/contract/constants';
import { Button, Flex, Form, Input, Modal } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { DepartmentSelect } from './department-select.tsx';
import type { Department } from './org-types.ts';
import { showFieldErrors } from './server-errors.ts';
import { UserPicker } from './user-picker.tsx';

interface DepartmentValues {
  name: string;
  parentId?: string;
  managerId?: string | null;
}

/**
 * What the dialog does: create under a superior department (shown and changeable in the form;
 * the top level when none is given), or edit a department.
 */
export type DepartmentFormTarget =
  | { mode: 'create'; parentId?: string }
  | { mode: 'edit'; department: Department };

/**
 * Creates a department (spec §5: name and superior department required) or edits one (name and
 * manager; the root department keeps its name).
 */
export function DepartmentFormModal({
  target,
  tree,
  onClose,
  onSaved,
}: {
  target: DepartmentFormTarget | undefined;
  tree: Department | undefined;
  onClose(): void;
  onSaved(departmentId: string): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<DepartmentValues>();
  const editing = target?.mode === 'edit' ? target.department : undefined;
  const isRoot = editing?.parentId === null;
  const parentId = Form.useWatch('parentId', form);

  useEffect(() => {
    if (!target) return;
    form.resetFields();
    form.setFieldsValue(
      target.mode === 'edit'
        ? { name: target.department.name, managerId: target.department.managerId }
        : { parentId: target.parentId ?? tree?.departmentId },
    );
  }, [form, target, tree]);

  const { saving, submit } = useFormSubmit(
    form,
    target &&
      (async (values) => {
        const name = values.name.trim();
        const saved =
          target.mode === 'create'
            ? await callApi('/api/v1/manage/department/create', {
                name,
                parentId: values.parentId ?? '',
                managerId: values.managerId ?? null,
              })
            : await callApi('/api/v1/manage/department/update', {
                departmentId: target.department.departmentId,
                ...(isRoot ? {} : { name }),
                managerId: values.managerId ?? null,
              });
        void message.success(
          t(target.mode === 'create' ? 'org.department.created' : 'org.department.saved', {
            name: saved.name,
          }),
        );
        onSaved(saved.departmentId);
      }),
    // The HTTP client has shown the message; the field it is about is marked too.
    (error) => showFieldErrors(form, error, ['name', 'parentId', 'managerId']),
  );

  const known =
    editing?.managerId && editing.managerName
      ? [{ value: editing.managerId, label: editing.managerName }]
      : [];

  return (
    <Modal
      open={target !== undefined}
      title={editing ? editing.name : t('org.department.create')}
      okText={editing ? t('org.form.save') : t('org.department.create')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      forceRender
    >
      <Form<DepartmentValues>
        form={form}
        layout="vertical"
        disabled={saving}
        onFinish={submit}
        name="department"
      >
        <Form.Item
          name="name"
          label={t('org.department.name')}
          extra={isRoot ? t('org.department.root') : undefined}
          rules={[
            { required: true, whitespace: true, message: t('org.department.nameRequired') },
            {
              max: departmentLimits.nameMax,
              transform: (value?: string) => value?.trim(),
              message: t('org.form.tooLong', { max: departmentLimits.nameMax }),
            },
          ]}
        >
          <Input maxLength={departmentLimits.nameMax} autoComplete="off" disabled={isRoot} />
        </Form.Item>
        {editing ? null : (
          <Form.Item label={t('org.department.parent')} required>
            <Flex gap={8} align="center">
              <Form.Item
                name="parentId"
                noStyle
                rules={[{ required: true, message: t('org.department.parentRequired') }]}
              >
                <DepartmentSelect
                  tree={tree}
                  placeholder={t('org.department.parentRequired')}
                  aria-label={t('org.department.parent')}
                  style={{ flex: 1, minWidth: 0 }}
                />
              </Form.Item>
              {tree ? (
                <Button
                  title={t('org.department.topLevelHint', { root: tree.name })}
                  disabled={parentId === tree.departmentId}
                  onClick={() => form.setFieldsValue({ parentId: tree.departmentId })}
                >
                  {t('org.department.topLevel')}
                </Button>
              ) : null}
            </Flex>
          </Form.Item>
        )}
        <Form.Item name="managerId" label={t('org.department.manager')} style={{ marginBottom: 0 }}>
          {target ? (
            <UserPicker
              key={editing?.departmentId ?? 'new'}
              known={known}
              placeholder={t('org.department.managerPlaceholder')}
            />
          ) : (
            <span />
          )}
        </Form.Item>
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
