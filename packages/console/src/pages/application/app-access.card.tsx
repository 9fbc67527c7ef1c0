import { PlusOutlined } from '@ant-design/icons';
import type { AppDefaultAccess } from '@tessera/contract/constants';
import { Button, Card, Flex, Form, Input, Modal, Radio, Switch, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { useLoad } from '../../lib/use-load.ts';
import { UserPicker } from '../org/user-picker.tsx';
import { showAppFieldErrors } from './app-field-errors.ts';
import { AppGroupAccessCard } from './app-group-access.card.tsx';
import type { AppDetail } from './app-view.ts';
import { ExpiryField, expiryColumn } from './expiry-input.tsx';

type Assignment = ApiResponse<'/api/v1/manage/app/assignment/list'>['list'][number];

const PAGE_SIZES = [10, 20, 50] as const;

/**
 * The Access tab: default access (allow all or prohibit all), whether each person is asked for
 * consent, and the users, departments and roles assigned with their expiry.
 */
export function AppAccessCard({ app, onChange }: { app: AppDetail; onChange(app: AppDetail): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [saving, setSaving] = useState(false);

  const save = async (change: { defaultAccess: AppDefaultAccess } | { askConsent: boolean }) => {
    setSaving(true);
    try {
      onChange(await callApi('/api/v1/manage/app/update', { appId: app.appId, ...change }));
      void message.success(t('apps.detail.saved'));
    } catch {
      // Shown by the HTTP client; the choice stays as stored.
    } finally {
      setSaving(false);
    }
  };

  return (
    <Flex vertical gap={16}>
      <Card size="small" title={t('apps.access.defaultAccess')}>
        <Radio.Group
          value={app.defaultAccess}
          disabled={saving}
          onChange={(event) => void save({ defaultAccess: event.target.value })}
          aria-label={t('apps.access.defaultAccess')}
        >
          <Flex vertical gap={8}>
            <Radio value="allow_all">
              {t('apps.access.allowAll')}
              <br />
              <Typography.Text type="secondary">{t('apps.access.allowAllHint')}</Typography.Text>
            </Radio>
            <Radio value="prohibit_all">
              {t('apps.access.prohibitAll')}
              <br />
              <Typography.Text type="secondary">{t('apps.access.prohibitAllHint')}</Typography.Text>
            </Radio>
          </Flex>
        </Radio.Group>
      </Card>
      <Card size="small" title={t('apps.access.consent')}>
        <Flex gap={12} align="start">
          <Switch
            checked={app.askConsent}
            disabled={saving}
            onChange={(askConsent) => void save({ askConsent })}
            aria-label={t('apps.access.askConsent')}
          />
          <div>
            <Typography.Text>{t('apps.access.askConsent')}</Typography.Text>
            <br />
            <Typography.Text type="secondary">{t('apps.access.askConsentHint')}</Typography.Text>
          </div>
        </Flex>
      </Card>
      <Assignments app={app} />
      <AppGroupAccessCard app={app} />
    </Flex>
  );
}

function Assignments({ app }: { app: AppDetail }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const [query, setQuery] = useState({ page: 1, pageSize: 10, keyword: '' });
  const [assigning, setAssigning] = useState(false);
  const load = useCallback(
    () =>
      callApi('/api/v1/manage/app/assignment/list', {
        appId: app.appId,
        page: query.page,
        pageSize: query.pageSize,
        keyword: query.keyword || undefined,
      }),
    [callApi, app.appId, query],
  );
  const { data, loading, reload } = useLoad(load);

  const remove = (row: Assignment) => {
    const name = row.name ?? row.username;
    void confirm({
      title: t('apps.access.removeTitle', { name }),
      content: t('apps.access.removeContent'),
      okText: t('apps.access.remove'),
      onOk: async () => {
        await callApi('/api/v1/manage/app/assignment/del', { appId: app.appId, userIds: [row.userId] });
        void message.success(t('apps.access.removed', { name }));
        if (data?.list.length === 1 && query.page > 1) setQuery({ ...query, page: query.page - 1 });
        else reload();
      },
    });
  };

  const columns: DataColumn<Assignment>[] = [
    {
      key: 'user',
      title: t('apps.access.column.user'),
      render: (row) => (
        <Flex vertical>
          <span>{row.name ?? row.username}</span>
          {row.name ? <Typography.Text type="secondary">{row.username}</Typography.Text> : null}
        </Flex>
      ),
    },
    expiryColumn(t('apps.access.column.expiresAt')),
    {
      key: 'createdAt',
      title: t('apps.access.column.createdAt'),
      minScreen: 'md',
      render: (row) => (
        <span style={{ whiteSpace: 'nowrap' }}>{formatDate(row.createdAt, 'YYYY-MM-DD HH:mm')}</span>
      ),
    },
    {
      key: 'actions',
      title: t('apps.access.column.actions'),
      render: (row) => (
        <Button type="link" size="small" danger style={{ paddingInline: 0 }} onClick={() => remove(row)}>
          {t('apps.access.remove')}
        </Button>
      ),
    },
  ];

  return (
    <Card
      size="small"
      title={t('apps.access.assigned')}
      extra={
        <Button type="primary" size="small" icon={<PlusOutlined />} onClick={() => setAssigning(true)}>
          {t('apps.access.assign')}
        </Button>
      }
    >
      <Input.Search
        allowClear
        placeholder={t('apps.access.searchPlaceholder')}
        aria-label={t('apps.access.searchPlaceholder')}
        style={{ width: 260, maxWidth: '100%', marginBottom: 12 }}
        onSearch={(value) => setQuery({ ...query, page: 1, keyword: value.trim() })}
      />
      <DataTable<Assignment>
        label={t('apps.access.assigned')}
        testId="assignments"
        rowKey={(row) => row.userId}
        loading={loading}
        columns={columns}
        {...pagedList(data, query, {
          pageSizes: PAGE_SIZES,
          showTotal: (total) => t('apps.access.total', { total }),
          onChange: (page, pageSize) => setQuery({ ...query, page, pageSize }),
        })}
      />
      {assigning ? (
        <AssignModal
          app={app}
          onClose={() => setAssigning(false)}
          onDone={() => {
            setAssigning(false);
            reload();
          }}
        />
      ) : null}
    </Card>
  );
}

interface AssignValues {
  userIds: string[];
  expiresAt: number | null;
}

function AssignModal({ app, onClose, onDone }: { app: AppDetail; onClose(): void; onDone(): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<AssignValues>();
  const { saving, submit } = useFormSubmit(
    form,
    async (values) => {
      const { assigned } = await callApi('/api/v1/manage/app/assignment/add', {
        appId: app.appId,
        userIds: values.userIds,
        expiresAt: values.expiresAt ?? null,
      });
      void message.success(t('apps.access.assignedDone', { count: assigned }));
      onDone();
    },
    (error) => showAppFieldErrors(form, error, ['userIds', 'expiresAt']),
  );
  return (
    <Modal
      open
      title={t('apps.access.assignTitle')}
      onCancel={onClose}
      onOk={submit}
      okText={t('apps.access.assignSubmit')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      destroyOnHidden
    >
      <Form<AssignValues>
        form={form}
        layout="vertical"
        disabled={saving}
        initialValues={{ userIds: [], expiresAt: null }}
      >
        <Form.Item
          name="userIds"
          label={t('apps.access.users')}
          rules={[{ required: true, type: 'array', min: 1, message: t('apps.access.usersRequired') }]}
        >
          <UserPicker multiple placeholder={t('apps.access.searchPlaceholder')} />
        </Form.Item>
        <ExpiryField />
      </Form>
    </Modal>
  );
}
