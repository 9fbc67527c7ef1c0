import { deviceActivations, deviceStatuses } from '@tessera/contract/constants';
import { Button, Card, Flex, Select, Space, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { KeywordSearch } from '../../components/keyword-search.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import {
  actionsOf,
  type Device,
  DeviceStateTag,
  deviceDetailPath,
  OnlineTag,
  useDeviceAction,
} from './device-parts.tsx';

type StateFilter = 'to_be_activated' | 'active' | 'enabled' | 'disabled';
interface Query {
  keyword: string;
  os?: string;
  type?: string;
  state?: StateFilter;
  online?: boolean;
  page: number;
  pageSize: number;
}

const stateFilters: StateFilter[] = [...deviceActivations, ...deviceStatuses];

/** The call's filter of a state: activation (to be activated, active) or status (enabled, disabled). */
const filterOfState = (state?: StateFilter) =>
  state === 'to_be_activated' || state === 'active' ? { activation: state } : state ? { status: state } : {};

/** /safety-management/deviceManage (full set): the company's Exchange devices (spec §3 Device, §4, §7). */
export function DeviceManagePage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const act = useDeviceAction();
  const [query, setQueryState] = useState<Query>({ keyword: '', page: 1, pageSize: 20 });
  const setQuery = (next: Partial<Query>) => setQueryState((old) => ({ ...old, page: 1, ...next }));
  const load = useCallback(
    () =>
      callApi('/api/v1/manage/user/exchange/admin/device/list', {
        keyword: query.keyword || undefined,
        os: query.os,
        type: query.type,
        online: query.online,
        ...filterOfState(query.state),
        page: query.page,
        pageSize: query.pageSize,
      }),
    [callApi, query],
  );
  const { data, loading, reload } = useLoad(load);

  const columns: DataColumn<Device>[] = [
    {
      key: 'device',
      title: t('devices.list.columns.device'),
      render: (device) => (
        <Flex vertical gap={2}>
          <Link to={deviceDetailPath(device.deviceId)}>{device.name}</Link>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {[device.type, device.os].filter(Boolean).join(' · ')}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'person',
      title: t('devices.list.columns.person'),
      render: (device) => device.user.name || device.user.username,
    },
    {
      key: 'state',
      title: t('devices.list.columns.state'),
      render: (device) => (
        <Flex gap={4} wrap>
          <DeviceStateTag device={device} />
          {device.activation === 'active' && <OnlineTag online={device.online} />}
        </Flex>
      ),
    },
    {
      key: 'registeredAt',
      title: t('devices.list.columns.registeredAt'),
      minScreen: 'lg',
      render: (device) => formatDate(device.registeredAt),
    },
    {
      key: 'lastLoginAt',
      title: t('devices.list.columns.lastLoginAt'),
      minScreen: 'md',
      render: (device) => (device.lastLoginAt ? formatDate(device.lastLoginAt) : t('devices.detail.never')),
    },
    {
      key: 'actions',
      title: t('devices.list.columns.actions'),
      render: (device) => (
        <Space size={0} wrap>
          {actionsOf(device).map((action) => (
            <Button
              key={action}
              type="link"
              size="small"
              danger={action === 'remove' || action === 'disable'}
              onClick={() => void act(device, action).then((done) => done && reload())}
            >
              {t(`devices.list.${action}`)}
            </Button>
          ))}
        </Space>
      ),
    },
  ];

  const option = (value: string) => ({ value, label: value });
  return (
    <Card>
      <Flex vertical gap={16}>
        <Flex gap={8} wrap>
          <KeywordSearch
            keyword={query.keyword}
            placeholder={t('devices.list.keyword')}
            onSearch={(keyword) => setQuery({ keyword })}
          />
          <Select
            allowClear
            placeholder={t('devices.list.os')}
            aria-label={t('devices.list.os')}
            style={{ width: 160 }}
            value={query.os}
            options={(data?.osOptions ?? []).map(option)}
            onChange={(os?: string) => setQuery({ os })}
          />
          <Select
            allowClear
            placeholder={t('devices.list.type')}
            aria-label={t('devices.list.type')}
            style={{ width: 160 }}
            value={query.type}
            options={(data?.typeOptions ?? []).map(option)}
            onChange={(type?: string) => setQuery({ type })}
          />
          <Select
            allowClear
            placeholder={t('devices.list.state')}
            aria-label={t('devices.list.state')}
            style={{ width: 160 }}
            value={query.state}
            options={stateFilters.map((value) => ({
              value,
              label: t(`devices.states.${value}`),
            }))}
            onChange={(state?: StateFilter) => setQuery({ state })}
            data-testid="device-state-filter"
          />
          <Select
            allowClear
            placeholder={t('devices.list.online')}
            aria-label={t('devices.list.online')}
            style={{ width: 160 }}
            value={query.online === undefined ? undefined : String(query.online)}
            options={[
              { value: 'true', label: t('devices.onlineState.online') },
              { value: 'false', label: t('devices.onlineState.offline') },
            ]}
            onChange={(online?: string) =>
              setQuery({ online: online === undefined ? undefined : online === 'true' })
            }
          />
        </Flex>
        <DataTable
          columns={columns}
          rowKey={(device) => device.deviceId}
          loading={loading}
          label={t('route.deviceManage')}
          testId="device-list"
          {...pagedList(data, query, {
            showTotal: (count) => t('devices.list.total', { count }),
            onChange: (page, pageSize) => setQueryState((old) => ({ ...old, page, pageSize })),
          })}
        />
      </Flex>
    </Card>
  );
}
