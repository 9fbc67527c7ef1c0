import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Form, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { KeywordSearch } from '../../components/keyword-search.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { UserPicker } from '../org/user-picker.tsx';
import { ImpactPreview } from './impact-preview.tsx';
import { usePagedList } from './paged-list.tsx';
import type { AccessImpact, Role, RoleMember } from './permission-types.ts';

const who = (m: RoleMember) => (m.name ? `${m.name} (${m.username})` : m.username);

/** The people of a role: searched, added and removed, each change shown with its effect first. */
export function RoleMembersCard({ role, onChanged }: { role: Role; onChanged(): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message, modal } = useFeedback();
  const [adding, setAdding] = useState(false);
  const [impact, setImpact] = useState<{ userIds: string[]; impact: AccessImpact }>();
  const [busy, setBusy] = useState(false);
  const [form] = Form.useForm<{ userIds: string[] }>();

  const { query, filter, rows, loading, reload, paging } = usePagedList(
    { page: 1, pageSize: 10, keyword: '' },
    (q) =>
      callApi('/api/v1/manage/permission/role/member/list', {
        ...q,
        roleId: role.roleId,
        keyword: q.keyword || undefined,
      }),
  );
  const changed = () => {
    reload();
    onChanged();
  };

  const close = () => {
    setAdding(false);
    setImpact(undefined);
    form.resetFields();
  };

  const busyWith = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch {
      // Shown by the HTTP client.
    } finally {
      setBusy(false);
    }
  };

  const previewAdd = async () => {
    let userIds: string[];
    try {
      ({ userIds } = await form.validateFields());
    } catch {
      return;
    }
    await busyWith(async () => {
      const answer = await callApi('/api/v1/manage/permission/role/member/preview', {
        roleId: role.roleId,
        add: userIds,
      });
      setImpact({ userIds, impact: answer });
    });
  };

  const add = () =>
    busyWith(async () => {
      if (!impact) return;
      const { added } = await callApi('/api/v1/manage/permission/role/member/add', {
        roleId: role.roleId,
        userIds: impact.userIds,
      });
      void message.success(t('permission.members.added', { count: added }));
      close();
      changed();
    });

  const remove = async (member: RoleMember) => {
    const preview = await callApi('/api/v1/manage/permission/role/member/preview', {
      roleId: role.roleId,
      remove: [member.userId],
    });
    modal.confirm({
      title: t('permission.members.removeTitle', { name: who(member) }),
      content: <ImpactPreview impact={preview} />,
      width: 600,
      okText: t('permission.members.confirmRemove'),
      okButtonProps: { danger: true },
      cancelText: t('common.cancel'),
      onOk: async () => {
        await callApi('/api/v1/manage/permission/role/member/remove', {
          roleId: role.roleId,
          userIds: [member.userId],
        });
        void message.success(t('permission.members.removed', { name: who(member) }));
        changed();
      },
    });
  };

  const columns: DataColumn<RoleMember>[] = [
    { key: 'user', title: t('permission.members.user'), render: (row) => <strong>{who(row)}</strong> },
    { key: 'email', title: t('permission.members.email'), render: (row) => row.email ?? '', minScreen: 'md' },
    {
      key: 'addedAt',
      title: t('permission.members.addedAt'),
      render: (row) => formatDate(row.addedAt, 'YYYY-MM-DD HH:mm'),
      minScreen: 'lg',
    },
    {
      key: 'actions',
      title: t('permission.common.actions'),
      width: 90,
      render: (row) => (
        <Button type="link" size="small" danger onClick={() => void remove(row).catch(() => undefined)}>
          {t('permission.members.remove')}
        </Button>
      ),
    },
  ];

  return (
    <Card
      title={t('permission.members.title')}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setAdding(true)}>
          {t('permission.members.add')}
        </Button>
      }
    >
      <Flex style={{ marginBottom: 12 }}>
        <KeywordSearch
          keyword={query.keyword}
          placeholder={t('permission.members.searchPlaceholder')}
          onSearch={(keyword) => filter({ keyword })}
        />
      </Flex>
      <DataTable
        label={t('permission.members.title')}
        testId="role-members"
        columns={columns}
        rows={rows}
        rowKey={(row) => row.userId}
        loading={loading}
        paging={paging}
      />
      <Modal
        open={adding}
        title={t('permission.members.addTitle', { name: role.name })}
        onCancel={close}
        width={600}
        forceRender
        footer={
          impact
            ? [
                <Button key="back" onClick={() => setImpact(undefined)} disabled={busy}>
                  {t('permission.authorization.back')}
                </Button>,
                <Button key="add" type="primary" loading={busy} onClick={() => void add()}>
                  {t('permission.members.confirm')}
                </Button>,
              ]
            : [
                <Button key="cancel" onClick={close} disabled={busy}>
                  {t('common.cancel')}
                </Button>,
                <Button key="preview" type="primary" loading={busy} onClick={() => void previewAdd()}>
                  {t('permission.members.preview')}
                </Button>,
              ]
        }
      >
        {impact ? <ImpactPreview impact={impact.impact} /> : null}
        <Form
          form={form}
          layout="vertical"
          name="role-members"
          style={{ display: impact ? 'none' : undefined }}
        >
          <Form.Item
            name="userIds"
            label={t('permission.members.people')}
            rules={[
              { required: true, type: 'array', min: 1, message: t('permission.members.peopleRequired') },
            ]}
            style={{ marginBottom: 0 }}
          >
            {adding ? <UserPicker multiple /> : <span />}
          </Form.Item>
        </Form>
      </Modal>
    </Card>
  );
}
