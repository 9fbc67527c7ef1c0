import { Flex, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { type DataColumn, type DataPaging, DataTable } from '../../components/data-table.tsx';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { editDeleteColumn } from './paged-list.tsx';
import type { Authorization } from './permission-types.ts';

/** The restrictions of an authorization in a few words. */
function RestrictionSummary({ r }: { r: Authorization['restrictions'] }) {
  const { t } = useTranslation();
  const parts: string[] = [];
  if (r.validFrom || r.validUntil)
    parts.push(
      `${r.validFrom?.slice(0, 16).replace('T', ' ') ?? '…'} → ${r.validUntil?.slice(0, 16).replace('T', ' ') ?? '…'}`,
    );
  for (const w of r.timeWindows)
    parts.push(
      `${w.days.map((d) => t(`permission.authorization.days.d${d as 1}`)).join(' ')} ${w.from}–${w.to} (${r.timeZone})`,
    );
  if (r.ipRanges.length) parts.push(r.ipRanges.join(', '));
  if (parts.length === 0)
    return <Typography.Text type="secondary">{t('permission.authorization.noRestrictions')}</Typography.Text>;
  return (
    <Flex vertical gap={2}>
      {parts.map((part) => (
        <span key={part}>{part}</span>
      ))}
    </Flex>
  );
}

/** A list of authorizations, with edit and delete (the Authorizations tab, a role's detail). */
export function AuthorizationList({
  rows,
  loading,
  paging,
  onEdit,
  onDeleted,
}: {
  rows: readonly Authorization[];
  loading: boolean;
  paging?: DataPaging;
  onEdit(authorization: Authorization): void;
  onDeleted(): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();

  const remove = (authorization: Authorization) =>
    confirm({
      title: t('permission.authorization.deleteTitle'),
      content: t('permission.authorization.deleteContent'),
      okText: t('permission.common.delete'),
      onOk: async () => {
        await callApi('/api/v1/manage/permission/authorization/del', {
          authorizationId: authorization.authorizationId,
        });
        void message.success(t('permission.authorization.deleted'));
        onDeleted();
      },
    });

  const columns: DataColumn<Authorization>[] = [
    {
      key: 'subject',
      title: t('permission.authorization.subject'),
      render: (row) => (
        <Space size={4} wrap>
          <Tag>{t(`permission.authorization.subjectTypes.${row.subject.type}`)}</Tag>
          <strong>{row.subject.name}</strong>
        </Space>
      ),
    },
    {
      key: 'effect',
      title: t('permission.authorization.effect'),
      render: (row) => (
        <Tag color={row.effect === 'allow' ? 'green' : 'red'}>
          {t(`permission.authorization.effects.${row.effect}`)}
        </Tag>
      ),
    },
    { key: 'app', title: t('permission.common.app'), render: (row) => row.appName, minScreen: 'md' },
    {
      key: 'resources',
      title: t('permission.authorization.resources'),
      render: (row) =>
        row.resourceScope === 'all'
          ? t('permission.authorization.allResources')
          : row.resources.map((r) => r.name).join(', '),
    },
    {
      key: 'operations',
      title: t('permission.authorization.operationScope'),
      render: (row) =>
        row.actionScope === 'all' ? t('permission.authorization.allActions') : row.actions.join(', '),
    },
    {
      key: 'restrictions',
      title: t('permission.authorization.restrictions'),
      render: (row) => <RestrictionSummary r={row.restrictions} />,
      minScreen: 'lg',
    },
    editDeleteColumn(t, onEdit, (row) => void remove(row)),
  ];

  return (
    <DataTable
      label={t('permission.tabs.authorizations')}
      testId="authorizations"
      columns={columns}
      rows={rows}
      rowKey={(row) => row.authorizationId}
      loading={loading}
      paging={paging}
    />
  );
}
