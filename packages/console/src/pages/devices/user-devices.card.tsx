import { devicePermissions } from '@tessera/contract/constants';
import { Button, Card, Divider, Empty, Flex, Select, Skeleton, Typography } from 'antd';
import { Fragment, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { actionsOf, DeviceStateTag, deviceDetailPath, OnlineTag, useDeviceAction } from './device-parts.tsx';

/**
 * The user page's devices (spec §7 user/exchange/admin/device/list and /del): the person's
 * Exchange devices with their state, approve / enable / disable / remove, and the person's
 * permission on device management (spec §6).
 */
export function UserDevicesCard({ userId }: { userId: string }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const act = useDeviceAction();
  const load = useCallback(
    () =>
      Promise.all([
        callApi('/api/v1/manage/user/exchange/admin/device/list', { userId, page: 1, pageSize: 50 }),
        callApi('/api/v1/manage/user/exchange/admin/permission', { userId }),
      ]),
    [callApi, userId],
  );
  const { data, loading, reload } = useLoad(load);
  const [saving, setSaving] = useState(false);
  const [devices, permission] = data ?? [];

  const changePermission = async (value: (typeof devicePermissions)[number]) => {
    setSaving(true);
    try {
      await callApi('/api/v1/manage/user/exchange/admin/permission/update', { userId, permission: value });
      void message.success(t('devices.user.permissionSaved'));
    } catch {
      // Shown by the HTTP client.
    } finally {
      setSaving(false);
      reload();
    }
  };

  return (
    <Card
      title={t('devices.user.title')}
      size="small"
      data-testid="user-devices"
      extra={<Link to="/safety-management/deviceManage">{t('devices.user.all')}</Link>}
    >
      {!devices || !permission ? (
        <Skeleton active loading={loading} paragraph={{ rows: 2 }} />
      ) : (
        <Flex vertical gap={8}>
          <Flex gap={8} align="center" wrap>
            <Typography.Text>{t('devices.user.permission')}</Typography.Text>
            <Select
              size="small"
              value={permission.permission}
              disabled={saving}
              aria-label={t('devices.user.permission')}
              style={{ minWidth: 220, maxWidth: '100%' }}
              options={devicePermissions.map((value) => ({
                value,
                label: t(`devices.exchange.permissions.${value}`),
              }))}
              onChange={(value) => void changePermission(value)}
              data-testid="device-permission"
            />
          </Flex>
          {devices.list.length === 0 ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('devices.user.empty')} />
          ) : (
            devices.list.map((device, index) => (
              <Fragment key={device.deviceId}>
                {index > 0 && <Divider style={{ margin: 0 }} />}
                <Flex
                  justify="space-between"
                  align="flex-start"
                  gap={8}
                  wrap
                  data-testid={`device-${device.deviceId}`}
                >
                  <Flex vertical gap={2} style={{ minWidth: 0 }}>
                    <Flex gap={6} wrap align="center">
                      <Link to={deviceDetailPath(device.deviceId)}>{device.name}</Link>
                      <DeviceStateTag device={device} />
                      {device.activation === 'active' && <OnlineTag online={device.online} />}
                    </Flex>
                    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                      {[device.type, device.os, formatDate(device.registeredAt)].filter(Boolean).join(' · ')}
                    </Typography.Text>
                  </Flex>
                  <Flex gap={0} wrap>
                    {actionsOf(device).map((action) => (
                      <Button
                        key={action}
                        size="small"
                        type="link"
                        danger={action === 'remove' || action === 'disable'}
                        onClick={() => void act(device, action).then((done) => done && reload())}
                      >
                        {t(`devices.list.${action}`)}
                      </Button>
                    ))}
                  </Flex>
                </Flex>
              </Fragment>
            ))
          )}
          <Typography.Text type="secondary">
            {t('devices.user.count', { count: permission.devices, limit: permission.limit })}
          </Typography.Text>
        </Flex>
      )}
    </Card>
  );
}
