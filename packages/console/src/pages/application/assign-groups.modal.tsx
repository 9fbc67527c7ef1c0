import { Form, Modal, Select } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { useLoad } from '../../lib/use-load.ts';
import { DepartmentSelect } from '../org/department-select.tsx';
import { useDepartmentTree } from '../org/use-department-tree.ts';
import { showAppFieldErrors } from './app-field-errors.ts';
import { ExpiryField } from './expiry-input.tsx';

interface AssignGroupsValues {
  departmentIds: string[];
  roleIds: string[];
  expiresAt: number | null;
}

/** Assigns departments (with their sub departments) and permission roles, with an optional expiry. */
export function AssignGroupsModal({
  appId,
  onClose,
  onDone,
}: {
  appId: string;
  onClose(): void;
  onDone(): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<AssignGroupsValues>();
  const { tree, loading: treeLoading } = useDepartmentTree();
  const { saving, submit } = useFormSubmit(
    form,
    async (values) => {
      const { assigned } = await callApi('/api/v1/manage/app/assignment/group/add', {
        appId,
        departmentIds: values.departmentIds ?? [],
        roleIds: values.roleIds ?? [],
        expiresAt: values.expiresAt ?? null,
      });
      void message.success(t('apps.access.groups.assignedDone', { count: assigned }));
      onDone();
    },
    (error) => showAppFieldErrors(form, error, ['departmentIds', 'roleIds', 'expiresAt']),
  );
  // At least one of the two pickers.
  const oneChosen = {
    validator: async () => {
      const { departmentIds = [], roleIds = [] } = form.getFieldsValue();
      if (!departmentIds.length && !roleIds.length) throw new Error(t('apps.access.groups.required'));
    },
  };
  return (
    <Modal
      open
      title={t('apps.access.groups.assign')}
      onCancel={onClose}
      onOk={submit}
      okText={t('apps.access.groups.assignSubmit')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      destroyOnHidden
    >
      <Form<AssignGroupsValues>
        form={form}
        layout="vertical"
        disabled={saving}
        initialValues={{ departmentIds: [], roleIds: [], expiresAt: null }}
      >
        <Form.Item
          name="departmentIds"
          label={t('apps.access.groups.departments')}
          rules={[oneChosen]}
          dependencies={['roleIds']}
        >
          <DepartmentSelect
            multiple
            tree={tree}
            loading={treeLoading}
            placeholder={t('apps.access.groups.departmentsPlaceholder')}
            aria-label={t('apps.access.groups.departments')}
            style={{ width: '100%' }}
          />
        </Form.Item>
        <Form.Item name="roleIds" label={t('apps.access.groups.roles')}>
          <RolePicker placeholder={t('apps.access.groups.rolesPlaceholder')} />
        </Form.Item>
        <ExpiryField />
      </Form>
    </Modal>
  );
}

/** Picks permission roles of the company, searched by name on the server. */
function RolePicker({
  id,
  value,
  onChange,
  placeholder,
}: {
  id?: string;
  value?: string[];
  onChange?(value: string[]): void;
  placeholder: string;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [keyword, setKeyword] = useState('');
  const load = useCallback(
    () =>
      callApi('/api/v1/manage/permission/role/list', {
        page: 1,
        pageSize: 100,
        keyword: keyword || undefined,
      }),
    [callApi, keyword],
  );
  const { data, loading } = useLoad(load);
  return (
    <Select
      id={id}
      mode="multiple"
      aria-label={t('apps.access.groups.roles')}
      value={value}
      onChange={onChange}
      placeholder={placeholder}
      loading={loading}
      showSearch={{ filterOption: false, onSearch: (text) => setKeyword(text.trim()) }}
      options={(data?.list ?? []).map((role) => ({ value: role.roleId, label: role.name }))}
      maxTagCount="responsive"
    />
  );
}
