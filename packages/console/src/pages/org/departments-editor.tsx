import { Button, Flex, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { DepartmentSelect } from './department-select.tsx';
import type { OrgUser } from './org-types.ts';
import { useDepartmentTree } from './use-department-tree.ts';

/** Chooses the departments of a user and saves them (`user/update` with `departmentIds`). */
export function DepartmentsEditor({ user, onDone }: { user: OrgUser; onDone(changed?: OrgUser): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const { tree, loading } = useDepartmentTree();
  const [chosen, setChosen] = useState(user.departments.map((department) => department.departmentId));
  const [saving, setSaving] = useState(false);

  const save = async () => {
    setSaving(true);
    try {
      const changed = await callApi('/api/v1/manage/user/update', {
        userId: user.userId,
        departmentIds: chosen,
      });
      void message.success(t('org.detail.departmentsSaved'));
      onDone(changed);
    } catch {
      // Shown by the HTTP client; the choice stays.
    } finally {
      setSaving(false);
    }
  };

  return (
    <Flex vertical gap={12}>
      <DepartmentSelect
        multiple
        tree={tree}
        loading={loading}
        aria-label={t('org.form.departments')}
        placeholder={t('org.form.departmentsPlaceholder')}
        value={chosen}
        onChange={setChosen}
        style={{ width: '100%' }}
      />
      <Space>
        <Button type="primary" loading={saving} onClick={save}>
          {t('org.form.save')}
        </Button>
        <Button disabled={saving} onClick={() => onDone()}>
          {t('common.cancel')}
        </Button>
      </Space>
    </Flex>
  );
}
