import { EditOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Skeleton, Tag, Typography } from 'antd';
import { Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DepartmentsEditor } from './lazy-parts.ts';
import type { OrgUser } from './org-types.ts';

/** The departments the user is in; the company changes them for anyone (managed or not). */
export function UserDepartmentsCard({ user, onChange }: { user: OrgUser; onChange(user: OrgUser): void }) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  return (
    <Card
      title={t('org.detail.departmentsTitle')}
      extra={
        editing ? null : (
          <Button size="small" icon={<EditOutlined />} onClick={() => setEditing(true)}>
            {t('org.detail.editDepartments')}
          </Button>
        )
      }
    >
      {editing ? (
        <Suspense fallback={<Skeleton.Input active block />}>
          <DepartmentsEditor
            user={user}
            onDone={(changed) => {
              setEditing(false);
              if (changed) onChange(changed);
            }}
          />
        </Suspense>
      ) : user.departments.length ? (
        <Flex wrap gap={8}>
          {user.departments.map((department) => (
            <Tag key={department.departmentId} color="blue" bordered={false}>
              {department.name}
            </Tag>
          ))}
        </Flex>
      ) : (
        <Typography.Text type="secondary">{t('org.detail.noDepartments')}</Typography.Text>
      )}
    </Card>
  );
}
