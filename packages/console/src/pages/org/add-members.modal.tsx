import { userLimits } from '@tessera/contract/constants';
import { Form, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import type { Department } from './org-types.ts';
import { UserPicker } from './user-picker.tsx';

/** Puts people of the company into a department (searched by name, username, email or phone). */
export function AddMembersModal({
  department,
  onClose,
  onAdded,
}: {
  department: Department;
  onClose(): void;
  onAdded(): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<{ userIds: string[] }>();
  // A failed call has been shown by the HTTP client.
  const { saving, submit } = useFormSubmit(form, async ({ userIds }) => {
    const { added } = await callApi('/api/v1/manage/department/member/add', {
      departmentId: department.departmentId,
      userIds: userIds.slice(0, userLimits.batchMax),
    });
    void message.success(t('org.department.added', { count: added }));
    onAdded();
  });

  return (
    <Modal
      open
      title={t('org.department.addMembersTitle', { name: department.name })}
      okText={t('org.department.addMembers')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
    >
      <Form form={form} layout="vertical" disabled={saving} name="add-members">
        <Form.Item
          name="userIds"
          label={t('org.users.title')}
          rules={[
            { required: true, type: 'array', min: 1, message: t('org.department.addMembersPlaceholder') },
          ]}
          style={{ marginBottom: 0 }}
        >
          <UserPicker multiple placeholder={t('org.department.addMembersPlaceholder')} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
