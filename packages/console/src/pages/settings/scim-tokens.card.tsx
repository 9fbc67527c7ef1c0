import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import type { ScimGroupKind } from '@tessera/contract';
import {
  Alert,
  Button,
  Card,
  Flex,
  Form,
  Input,
  Modal,
  Popconfirm,
  Radio,
  Select,
  Switch,
  Typography,
} from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { useLoad } from '../../lib/use-load.ts';

type Overview = ApiResponse<'/api/v1/manage/company/scim/tokens'>;
type Token = Overview['list'][number];
type Created = ApiResponse<'/api/v1/manage/company/scim/token/create'>;

interface Values {
  name: string;
  /** Days, or 0 for no expiry. */
  expiry: number;
  groupsAs: ScimGroupKind;
}

/** The phrase keys of each kind of group: its name and what it means. */
const groupKindPhrases = {
  departments: { label: 'settings.scim.groupsAsDepartments', hint: 'settings.scim.groupsAsDepartmentsHint' },
  roles: { label: 'settings.scim.groupsAsRoles', hint: 'settings.scim.groupsAsRolesHint' },
} as const satisfies Record<ScimGroupKind, { label: string; hint: string }>;
const groupKinds = Object.keys(groupKindPhrases) as ScimGroupKind[];

const expiryChoices = [30, 90, 365, 0] as const;

/**
 * Company settings: SCIM provisioning (issue 31). The company's SCIM address, the tokens Entra ID,
 * Okta or an HR system push people and groups (departments or permission roles, per token) with (name, expiry, last use; the secret is
 * shown once, when it is made), revocation, and whether SCIM may set passwords.
 */
export function ScimTokensCard() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const load = useCallback(() => callApi('/api/v1/manage/company/scim/tokens', {}), [callApi]);
  const { data, loading, reload, setData } = useLoad(load);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  const [switching, setSwitching] = useState(false);

  const revoke = async (token: Token) => {
    try {
      await callApi('/api/v1/manage/company/scim/token/revoke', { tokenId: token.tokenId });
      void message.success(t('settings.scim.revoked', { name: token.name }));
      reload();
    } catch {
      // The HTTP client has shown why.
    }
  };

  const setPasswords = async (allowPasswords: boolean) => {
    setSwitching(true);
    try {
      const saved = await callApi('/api/v1/manage/company/scim/settings/update', { allowPasswords });
      if (data) setData({ ...data, allowPasswords: saved.allowPasswords });
    } catch {
      // The HTTP client has shown why.
    } finally {
      setSwitching(false);
    }
  };

  const time = (value: string | null, empty: string) => (value ? formatDate(value) : empty);
  const columns: DataColumn<Token>[] = [
    {
      key: 'name',
      title: t('settings.scim.name'),
      render: (token) => <Typography.Text strong>{token.name}</Typography.Text>,
    },
    {
      key: 'groupsAs',
      title: t('settings.scim.groupsAs'),
      render: (token) => t(groupKindPhrases[token.groupsAs].label),
    },
    {
      key: 'expiresAt',
      title: t('settings.scim.expiresAt'),
      render: (token) => time(token.expiresAt, t('settings.scim.noExpiry')),
    },
    {
      key: 'lastUsedAt',
      title: t('settings.scim.lastUsed'),
      render: (token) =>
        token.lastUsedAt
          ? `${formatDate(token.lastUsedAt)} · ${token.lastUsedIp ?? ''}`
          : t('settings.scim.neverUsed'),
    },
    {
      key: 'actions',
      title: t('settings.column.actions'),
      width: 110,
      render: (token) => (
        <Popconfirm
          title={t('settings.scim.revokeTitle', { name: token.name })}
          description={t('settings.scim.revokeHint')}
          okText={t('settings.scim.revoke')}
          okButtonProps={{ danger: true }}
          cancelText={t('common.cancel')}
          onConfirm={() => revoke(token)}
        >
          <Button type="link" danger size="small" icon={<DeleteOutlined />} style={{ paddingInline: 0 }}>
            {t('settings.scim.revoke')}
          </Button>
        </Popconfirm>
      ),
    },
  ];

  return (
    <Card
      title={t('settings.scim.title')}
      data-testid="scim-card"
      extra={
        <Button icon={<PlusOutlined />} onClick={() => setCreating(true)}>
          {t('settings.scim.add')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t('settings.scim.intro')}</Typography.Paragraph>
      {data ? (
        <Flex vertical gap={12} style={{ marginBottom: 16 }}>
          <Typography.Text>
            {t('settings.scim.baseUrl')}:{' '}
            <Typography.Text code copyable data-testid="scim-base-url">
              {data.baseUrl}
            </Typography.Text>
          </Typography.Text>
          <Flex gap={8} align="center">
            <Switch
              checked={data.allowPasswords}
              loading={switching}
              onChange={setPasswords}
              aria-label={t('settings.scim.allowPasswords')}
            />
            <Typography.Text>{t('settings.scim.allowPasswords')}</Typography.Text>
          </Flex>
          <Typography.Text type="secondary">{t('settings.scim.allowPasswordsHint')}</Typography.Text>
        </Flex>
      ) : null}
      <DataTable<Token>
        label={t('settings.scim.title')}
        testId="scim-token-list"
        rowKey={(token) => token.tokenId}
        loading={loading}
        columns={columns}
        rows={data?.list ?? []}
      />
      <CreateTokenModal
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(token) => {
          setCreating(false);
          setCreated(token);
          reload();
        }}
      />
      <Modal
        open={created !== null}
        title={t('settings.scim.createdTitle', { name: created?.name ?? '' })}
        onCancel={() => setCreated(null)}
        footer={
          <Button type="primary" onClick={() => setCreated(null)}>
            {t('settings.scim.done')}
          </Button>
        }
        destroyOnHidden
      >
        <Alert type="warning" showIcon message={t('settings.scim.secretOnce')} style={{ marginBottom: 12 }} />
        <Typography.Paragraph code copyable data-testid="scim-secret" style={{ wordBreak: 'break-all' }}>
          {created?.secret}
        </Typography.Paragraph>
      </Modal>
    </Card>
  );
}

function CreateTokenModal({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose(): void;
  onCreated(token: Created): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<Values>();
  const groupsAs = Form.useWatch('groupsAs', form) ?? 'departments';
  const { saving, submit } = useFormSubmit(form, async (values: Values) => {
    const token = await callApi('/api/v1/manage/company/scim/token/create', {
      name: values.name.trim(),
      expiresInDays: values.expiry === 0 ? null : values.expiry,
      groupsAs: values.groupsAs,
    });
    form.resetFields();
    onCreated(token);
  });
  return (
    <Modal
      open={open}
      title={t('settings.scim.add')}
      okText={t('settings.scim.create')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      destroyOnHidden
    >
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={{ name: '', expiry: 365, groupsAs: 'departments' }}
        disabled={saving}
      >
        <Form.Item
          name="name"
          label={t('settings.scim.name')}
          extra={t('settings.scim.nameHint')}
          rules={[{ required: true, whitespace: true, message: t('settings.scim.nameRequired') }]}
        >
          <Input maxLength={64} autoComplete="off" />
        </Form.Item>
        <Form.Item name="expiry" label={t('settings.scim.expiry')}>
          <Select
            options={expiryChoices.map((days) => ({
              value: days,
              label: days ? t('settings.scim.days', { count: days }) : t('settings.scim.noExpiry'),
            }))}
          />
        </Form.Item>
        <Form.Item
          name="groupsAs"
          label={t('settings.scim.groupsAs')}
          extra={t(groupKindPhrases[groupsAs].hint)}
        >
          <Radio.Group
            options={groupKinds.map((kind) => ({ value: kind, label: t(groupKindPhrases[kind].label) }))}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
