import { PlusOutlined } from '@ant-design/icons';
import { appLimits } from '@tessera/contract/constants';
import { Button, Card, Flex, Form, Input, Modal, Space, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { useLoad } from '../../lib/use-load.ts';
import { showAppFieldErrors } from './app-field-errors.ts';
import type { AppDetail } from './app-view.ts';
import { ExpiryField, expiryColumn } from './expiry-input.tsx';
import { SecretOnceModal } from './secret-once.modal.tsx';

type ApiAccount = ApiResponse<'/api/v1/manage/app/api-account/list'>['list'][number];

/** The client credentials grant, as a script would make it. */
export const curlExample = (tokenEndpoint: string, clientId: string) =>
  [
    `curl -s -X POST '${tokenEndpoint}' \\`,
    `  -u '${clientId}:<secret>' \\`,
    `  -d 'grant_type=client_credentials'`,
  ].join('\n');

/** The Programmatic access tab: accounts that get tokens by client credentials for the management API. */
export function AppApiAccountsCard({ app }: { app: AppDetail }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const load = useCallback(
    () => callApi('/api/v1/manage/app/api-account/list', { appId: app.appId }),
    [callApi, app.appId],
  );
  const { data, loading, reload } = useLoad(load);
  const [editing, setEditing] = useState<ApiAccount | 'new'>();
  const [secret, setSecret] = useState<{ clientId: string; secret: string }>();

  const resetSecret = (account: ApiAccount) =>
    void confirm({
      title: t('apps.api.resetTitle', { name: account.name }),
      content: t('apps.api.resetContent'),
      okText: t('apps.api.resetSecret'),
      onOk: async () => {
        const answer = await callApi('/api/v1/manage/app/api-account/secret/reset', {
          appId: app.appId,
          accountId: account.accountId,
        });
        setSecret({ clientId: account.clientId, secret: answer.secret });
      },
    });

  const remove = (account: ApiAccount) =>
    void confirm({
      title: t('apps.api.deleteTitle', { name: account.name }),
      content: t('apps.api.deleteContent'),
      okText: t('apps.api.delete'),
      onOk: async () => {
        await callApi('/api/v1/manage/app/api-account/del', {
          appId: app.appId,
          accountId: account.accountId,
        });
        void message.success(t('apps.api.deleted', { name: account.name }));
        reload();
      },
    });

  const columns: DataColumn<ApiAccount>[] = [
    { key: 'name', title: t('apps.api.column.name'), render: (row) => row.name },
    {
      key: 'clientId',
      title: t('apps.api.column.clientId'),
      render: (row) => (
        <Typography.Text copyable style={{ fontFamily: 'monospace', fontSize: 12, wordBreak: 'break-all' }}>
          {row.clientId}
        </Typography.Text>
      ),
    },
    expiryColumn(t('apps.api.column.expiresAt')),
    {
      key: 'lastUsedAt',
      title: t('apps.api.column.lastUsedAt'),
      minScreen: 'md',
      render: (row) => (
        <span style={{ whiteSpace: 'nowrap' }}>
          {row.lastUsedAt ? formatDate(row.lastUsedAt, 'YYYY-MM-DD HH:mm') : t('apps.api.never')}
        </span>
      ),
    },
    {
      key: 'actions',
      title: t('apps.api.column.actions'),
      render: (row) => (
        <Space size={4} style={{ whiteSpace: 'nowrap' }}>
          <Button type="link" size="small" style={{ paddingInline: 0 }} onClick={() => setEditing(row)}>
            {t('apps.api.edit')}
          </Button>
          <Button type="link" size="small" style={{ paddingInline: 4 }} onClick={() => resetSecret(row)}>
            {t('apps.api.resetSecret')}
          </Button>
          <Button type="link" size="small" danger style={{ paddingInline: 4 }} onClick={() => remove(row)}>
            {t('apps.api.delete')}
          </Button>
        </Space>
      ),
    },
  ];

  const exampleClientId = data?.list[0]?.clientId ?? '<client id>';
  return (
    <Card
      size="small"
      title={t('apps.api.title')}
      extra={
        <Button
          type="primary"
          size="small"
          icon={<PlusOutlined />}
          disabled={(data?.list.length ?? 0) >= appLimits.apiAccountsPerApp}
          onClick={() => setEditing('new')}
        >
          {t('apps.api.create')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t('apps.api.intro')}</Typography.Paragraph>
      <DataTable<ApiAccount>
        label={t('apps.api.title')}
        testId="api-accounts"
        rowKey={(row) => row.accountId}
        loading={loading}
        columns={columns}
        rows={data?.list ?? []}
      />
      {data ? (
        <Flex vertical gap={8} style={{ marginTop: 16 }}>
          <div>
            <Typography.Text type="secondary">{t('apps.api.tokenEndpoint')}: </Typography.Text>
            <Typography.Text copyable code style={{ wordBreak: 'break-all' }}>
              {data.tokenEndpoint}
            </Typography.Text>
          </div>
          <Typography.Text type="secondary">{t('apps.api.example')}</Typography.Text>
          <Typography.Paragraph
            copyable={{ text: curlExample(data.tokenEndpoint, exampleClientId) }}
            style={{ marginBottom: 0 }}
          >
            <pre
              data-testid="curl-example"
              style={{ margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
            >
              {curlExample(data.tokenEndpoint, exampleClientId)}
            </pre>
          </Typography.Paragraph>
        </Flex>
      ) : null}
      {editing ? (
        <ApiAccountModal
          app={app}
          account={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(undefined)}
          onSaved={(created) => {
            setEditing(undefined);
            if (created) setSecret(created);
            reload();
          }}
        />
      ) : null}
      {secret ? (
        <SecretOnceModal
          title={t('apps.secret.apiTitle')}
          clientId={secret.clientId}
          secret={secret.secret}
          onClose={() => setSecret(undefined)}
        />
      ) : null}
    </Card>
  );
}

interface AccountValues {
  name: string;
  expiresAt: number | null;
}

/** Create an account (its secret is shown once afterwards) or rename one and change its expiry. */
function ApiAccountModal({
  app,
  account,
  onClose,
  onSaved,
}: {
  app: AppDetail;
  account?: ApiAccount;
  onClose(): void;
  onSaved(created?: { clientId: string; secret: string }): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<AccountValues>();
  const { saving, submit } = useFormSubmit(
    form,
    async (values) => {
      if (account) {
        await callApi('/api/v1/manage/app/api-account/update', {
          appId: app.appId,
          accountId: account.accountId,
          name: values.name.trim(),
          expiresAt: values.expiresAt ?? null,
        });
        void message.success(t('apps.api.saved'));
        onSaved();
      } else {
        const created = await callApi('/api/v1/manage/app/api-account/create', {
          appId: app.appId,
          name: values.name.trim(),
          expiresAt: values.expiresAt ?? null,
        });
        onSaved({ clientId: created.account.clientId, secret: created.secret });
      }
    },
    (error) => showAppFieldErrors(form, error, ['name', 'expiresAt']),
  );
  return (
    <Modal
      open
      title={account ? t('apps.api.editTitle', { name: account.name }) : t('apps.api.createTitle')}
      onCancel={onClose}
      onOk={submit}
      okText={account ? t('apps.detail.save') : t('apps.api.create')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      destroyOnHidden
    >
      <Form<AccountValues>
        form={form}
        layout="vertical"
        disabled={saving}
        initialValues={{ name: account?.name ?? '', expiresAt: account?.expiresAt ?? null }}
        onFinish={submit}
      >
        <Form.Item
          name="name"
          label={t('apps.api.name')}
          validateFirst
          rules={[
            { required: true, whitespace: true, message: t('apps.api.nameRequired') },
            { max: appLimits.apiAccountNameMax },
          ]}
        >
          <Input autoFocus count={{ show: true, max: appLimits.apiAccountNameMax }} />
        </Form.Item>
        <ExpiryField />
      </Form>
    </Modal>
  );
}
