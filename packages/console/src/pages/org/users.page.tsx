import { DownloadOutlined, DownOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons';
import { type UserSortField, userStatuses } from '@tessera/contract/constants';
import {
  Avatar,
  Button,
  Card,
  Checkbox,
  Dropdown,
  Flex,
  Grid,
  type MenuProps,
  Select,
  Space,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { Suspense, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useConsole, useMailEnabled, useSession } from '../../app/console-context.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { KeywordSearch } from '../../components/keyword-search.tsx';
import { currentLanguage } from '../../i18n/i18n.ts';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { DepartmentSelect } from './department-select.tsx';
import { useDownload } from './download.ts';
import { CreateUserModal, ImportUsersModal, ResetPasswordModal } from './lazy-parts.ts';
import { fromList, type OrgUser, userDetailPath } from './org-types.ts';
import { SortHeader } from './sort-header.tsx';
import { useDepartmentTree } from './use-department-tree.ts';
import { useUserActions } from './use-user-actions.tsx';
import { displayName, statusActions } from './user-status.ts';
import { UserStatusTag } from './user-status-tag.tsx';
import {
  PAGE_SIZES,
  parseUsersQuery,
  type UsersQuery,
  userFilterOf,
  usersQueryParams,
} from './users-query.ts';

/** /org/user (both route sets): the company's users, searched, filtered, sorted and paged on the server. */
export function UsersPage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { username: me } = useSession();
  const navigate = useNavigate();
  const screens = Grid.useBreakpoint();
  const [params, setParams] = useSearchParams();
  const query = parseUsersQuery(params);
  const queryKey = usersQueryParams(query).toString();
  const setQuery = (next: Partial<UsersQuery>) =>
    setParams(usersQueryParams({ ...query, page: 1, ...next }), { replace: true });
  const { tree, loading: treeLoading } = useDepartmentTree();
  const download = useDownload();
  const actions = useUserActions();
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [importOpened, setImportOpened] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [resetting, setResetting] = useState<OrgUser>();

  // biome-ignore lint/correctness/useExhaustiveDependencies: the query is rebuilt on every render; its address form says when it changed.
  const load = useCallback(
    () =>
      callApi('/api/v1/manage/user/list', {
        ...userFilterOf(query),
        page: query.page,
        pageSize: query.pageSize,
        sortBy: query.sortBy,
        sortOrder: query.sortOrder,
      }),
    [callApi, queryKey],
  );
  const { data, setData, loading, reload } = useLoad(load);

  const replaceRow = (changed: OrgUser) =>
    setData((old) =>
      old ? { ...old, list: old.list.map((row) => (row.userId === changed.userId ? changed : row)) } : old,
    );

  const sortable = (field: UserSortField, title: string) => (
    <SortHeader
      title={title}
      sorted={query.sortBy === field ? query.sortOrder : undefined}
      onSort={(sortOrder) => setQuery({ sortBy: field, sortOrder })}
    />
  );
  /** A column of two sortable fields: "first / second". */
  const sortablePair = (
    first: UserSortField,
    firstTitle: string,
    second: UserSortField,
    secondTitle: string,
  ) => (
    <Flex gap={4} align="center" wrap>
      {sortable(first, firstTitle)}
      <span aria-hidden="true">/</span>
      {sortable(second, secondTitle)}
    </Flex>
  );

  const exportList = async () => {
    setExporting(true);
    await download(
      '/api/v1/manage/user/export',
      { ...userFilterOf(query), language: currentLanguage() },
      t('org.users.exportName'),
    );
    setExporting(false);
  };

  const mailEnabled = useMailEnabled();
  const menuOf = (user: OrgUser): MenuProps['items'] => {
    const isSelf = user.username === me;
    const items: NonNullable<MenuProps['items']> = statusActions(user, isSelf).map((action) => ({
      key: action,
      label: t(`org.statusAction.${action}`),
    }));
    if (user.managed) {
      items.push({ key: 'reset', label: t('org.users.resetPassword') });
      if (user.email)
        items.push(
          mailEnabled === false
            ? {
                key: 'link',
                disabled: true,
                label: (
                  <Tooltip title={t('org.users.mailOff')} placement="left">
                    <span>{t('org.users.sendLink')}</span>
                  </Tooltip>
                ),
              }
            : { key: 'link', label: t('org.users.sendLink') },
        );
    }
    if (!user.isOwner && !isSelf) {
      if (items.length) items.push({ type: 'divider' });
      items.push({ key: 'delete', label: t('org.users.delete'), danger: true });
    }
    return items;
  };

  const onMenu = async (user: OrgUser, key: string) => {
    if (key === 'reset') setResetting(user);
    else if (key === 'link') await actions.sendSignInLink(user);
    else if (key === 'delete') {
      if (await actions.remove(user)) {
        if (data?.list.length === 1 && query.page > 1) setQuery({ page: query.page - 1 });
        else reload();
      }
    } else if (key === 'enable' || key === 'disable' || key === 'lock' || key === 'unlock') {
      const changed = await actions.changeStatus(user, key);
      if (changed) replaceRow(changed);
    }
  };

  const columns: DataColumn<OrgUser>[] = [
    {
      key: 'user',
      title: sortablePair('username', t('org.users.column.username'), 'name', t('org.users.column.name')),
      render: (user) => (
        <Flex align="center" gap={8} style={{ minWidth: 160 }}>
          <Avatar size={32} src={user.photo ?? undefined} style={{ flex: 'none' }}>
            {displayName(user).slice(0, 1).toUpperCase()}
          </Avatar>
          <Flex vertical style={{ minWidth: 0 }}>
            <Flex align="center" gap={6} wrap>
              <Link
                to={userDetailPath(user.userId)}
                state={fromList(params)}
                style={{ wordBreak: 'break-all' }}
              >
                {user.username}
              </Link>
              {user.isOwner ? (
                <Tag color="gold" bordered={false} style={{ marginInlineEnd: 0 }}>
                  {t('org.users.owner')}
                </Tag>
              ) : null}
              {user.username === me ? (
                <Tag bordered={false} style={{ marginInlineEnd: 0 }}>
                  {t('org.users.you')}
                </Tag>
              ) : null}
            </Flex>
            {user.name || user.nickname ? (
              <Typography.Text type="secondary">{user.name ?? user.nickname}</Typography.Text>
            ) : null}
          </Flex>
        </Flex>
      ),
    },
    {
      key: 'contact',
      title: `${t('org.users.column.email')} / ${t('org.users.column.phone')}`,
      minScreen: 'lg',
      render: (user) =>
        user.email || user.phone ? (
          <Flex vertical style={{ maxWidth: 200 }}>
            {user.email ? (
              <Typography.Text ellipsis={{ tooltip: user.email }} style={{ display: 'block', maxWidth: 200 }}>
                {user.email}
              </Typography.Text>
            ) : null}
            {user.phone ? <Typography.Text type="secondary">{user.phone}</Typography.Text> : null}
          </Flex>
        ) : (
          '—'
        ),
    },
    {
      key: 'departments',
      title: t('org.users.column.departments'),
      minScreen: 'lg',
      render: (user) =>
        user.departments.length ? (
          <span style={{ display: 'inline-block', minWidth: 80, maxWidth: 160 }}>
            {user.departments.map((d) => d.name).join(', ')}
          </span>
        ) : (
          '—'
        ),
    },
    {
      key: 'status',
      title: t('org.users.column.status'),
      render: (user) => <UserStatusTag user={user} />,
    },
    {
      key: 'lastLoginAt',
      title: sortablePair(
        'lastLoginAt',
        t('org.users.column.lastLoginAt'),
        'loginCount',
        t('org.users.column.loginCount'),
      ),
      minScreen: 'md',
      render: (user) => (
        <Flex vertical style={{ whiteSpace: 'nowrap' }}>
          <span>
            {user.lastLoginAt ? formatDate(user.lastLoginAt, 'YYYY-MM-DD HH:mm') : t('org.users.never')}
          </span>
          {user.loginCount > 0 ? (
            <Typography.Text type="secondary">
              {t('org.users.signInCount', { count: user.loginCount })}
            </Typography.Text>
          ) : null}
        </Flex>
      ),
    },
    // The default order; as a column only on wide screens (the detail shows it too).
    ...(screens.xxl
      ? [
          {
            key: 'createdAt',
            title: sortable('createdAt', t('org.users.column.createdAt')),
            render: (user: OrgUser) => (
              <span style={{ whiteSpace: 'nowrap' }}>{formatDate(user.createdAt, 'YYYY-MM-DD')}</span>
            ),
          },
        ]
      : []),
    {
      key: 'actions',
      title: t('org.users.column.actions'),
      render: (user) => {
        const items = menuOf(user);
        return (
          <Space size={4} style={{ whiteSpace: 'nowrap' }}>
            <Button
              type="link"
              size="small"
              style={{ paddingInline: 0 }}
              onClick={() => navigate(userDetailPath(user.userId), { state: fromList(params) })}
            >
              {t('org.users.details')}
            </Button>
            {items?.length ? (
              <Dropdown trigger={['click']} menu={{ items, onClick: ({ key }) => void onMenu(user, key) }}>
                <Button
                  type="link"
                  size="small"
                  aria-label={t('org.users.moreFor', { name: user.username })}
                  style={{ paddingInline: 4 }}
                >
                  {t('org.users.more')} <DownOutlined style={{ fontSize: 10 }} />
                </Button>
              </Dropdown>
            ) : null}
          </Space>
        );
      },
    },
  ];

  return (
    <Card
      title={t('org.users.title')}
      extra={
        <Space wrap size={8}>
          <Button
            icon={<UploadOutlined />}
            onClick={() => {
              setImporting(true);
              setImportOpened(true);
            }}
          >
            {t('org.users.import')}
          </Button>
          <Button icon={<DownloadOutlined />} loading={exporting} onClick={exportList}>
            {t('org.users.export')}
          </Button>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
            {t('org.users.create')}
          </Button>
        </Space>
      }
      styles={{ header: { flexWrap: 'wrap', rowGap: 8, paddingBlock: 12 } }}
      style={{ maxWidth: 1600 }}
    >
      <Flex wrap gap={12} align="center" style={{ marginBottom: 16 }}>
        <KeywordSearch
          keyword={query.keyword}
          placeholder={t('org.users.searchPlaceholder')}
          onSearch={(keyword) => setQuery({ keyword })}
        />
        <Select
          allowClear
          aria-label={t('org.users.statusFilter')}
          placeholder={t('org.users.allStatuses')}
          style={{ width: 150 }}
          value={query.status}
          onChange={(status) => setQuery({ status })}
          options={userStatuses.map((status) => ({ value: status, label: t(`org.status.${status}`) }))}
        />
        <DepartmentSelect
          tree={tree}
          loading={treeLoading}
          aria-label={t('org.users.departmentFilter')}
          placeholder={t('org.users.allDepartments')}
          style={{ width: 220, maxWidth: '100%' }}
          value={query.departmentId}
          onChange={(departmentId) => setQuery({ departmentId })}
        />
        {query.departmentId ? (
          <Checkbox
            checked={query.includeSubDepartments}
            onChange={(event) => setQuery({ includeSubDepartments: event.target.checked })}
          >
            {t('org.users.includeSub')}
          </Checkbox>
        ) : null}
      </Flex>
      <DataTable<OrgUser>
        label={t('org.users.title')}
        testId="users"
        rowKey={(user) => user.userId}
        loading={loading}
        columns={columns}
        {...pagedList(data, query, {
          pageSizes: PAGE_SIZES,
          showTotal: (total) => t('org.users.total', { total }),
          onChange: (page, pageSize) => setQuery({ page, pageSize }),
        })}
      />
      <Suspense fallback={null}>
        {creating ? (
          <CreateUserModal
            open
            tree={tree}
            onClose={() => setCreating(false)}
            onCreated={() => {
              setCreating(false);
              if (query.page === 1) reload();
              else setQuery({ page: 1 });
            }}
          />
        ) : null}
        {resetting ? (
          <ResetPasswordModal
            user={resetting}
            onClose={() => setResetting(undefined)}
            onDone={(changed) => {
              setResetting(undefined);
              replaceRow(changed);
            }}
          />
        ) : null}
        {/* Stays mounted once opened: an import goes on while the dialog is closed. */}
        {importOpened ? (
          <ImportUsersModal open={importing} onClose={() => setImporting(false)} onImported={reload} />
        ) : null}
      </Suspense>
    </Card>
  );
}
