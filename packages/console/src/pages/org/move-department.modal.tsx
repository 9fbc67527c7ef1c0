import { Form, Modal, Typography } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { DepartmentSelect } from './department-select.tsx';
import { moveTargets } from './department-tree.ts';
import type { Department } from './org-types.ts';

/**
 * Puts a department under another superior department. The department itself and everything
 * below it cannot be picked (the server would refuse with `department.cycle`).
 */
export function MoveDepartmentModal({
  department,
  tree,
  onClose,
  onMoved,
}: {
  department: Department | undefined;
  tree: Department | undefined;
  onClose(): void;
  onMoved(departmentId: string): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<{ parentId?: string }>();
  const options = useMemo(
    () => (tree && department ? moveTargets(tree, department.departmentId) : []),
    [tree, department],
  );

  useEffect(() => {
    if (department) form.resetFields();
  }, [form, department]);

  // A failed call has been shown by the HTTP client.
  const { saving, submit } = useFormSubmit(
    form,
    department &&
      (async ({ parentId }) => {
        if (!parentId) return;
        await callApi('/api/v1/manage/department/move', { departmentId: department.departmentId, parentId });
        void message.success(t('org.department.moved', { name: department.name }));
        onMoved(department.departmentId);
      }),
  );

  return (
    <Modal
      open={department !== undefined}
      title={department ? t('org.department.moveTitle', { name: department.name }) : null}
      okText={t('org.department.move')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      forceRender
    >
      <Typography.Paragraph type="secondary">{t('org.department.moveHint')}</Typography.Paragraph>
      <Form form={form} layout="vertical" disabled={saving} name="move-department">
        <Form.Item
          name="parentId"
          label={t('org.department.parent')}
          rules={[{ required: true, message: t('org.department.parentRequired') }]}
          style={{ marginBottom: 0 }}
        >
          <DepartmentSelect tree={tree} options={options} placeholder={t('org.department.parentRequired')} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
