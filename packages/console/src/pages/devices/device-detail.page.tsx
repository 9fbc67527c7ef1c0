import { Button, Card, Col, Descriptions, Empty, Flex, Row, Space, Tag, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { BackButton, DetailMissing } from '../../components/detail-nav.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { DeviceAccessForm } from './device-access.form.tsx';
import { actionsOf, DeviceStateTag, OnlineTag, useDeviceAction } from './device-parts.tsx';

type Detail = ApiResponse<'/api/v1/manage/user/exchange/admin/device/detail'>;
const LIST_PATH = '/safety-management/deviceManage';

/** /safety-management/deviceManageDetail?id=… (hidden, full set): one device, its access and the agent's decisions. */
export function DeviceDetailPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const deviceId = params.get('id')?.trim() ?? '';
  const { callApi } = useConsole();
  const load = useCallback(
    () =>
      deviceId
        ? callApi('/api/v1/manage/user/exchange/admin/device/detail', { deviceId }, { silent: true })
        : Promise.reject(new Error('no device')),
    [callApi, deviceId],
  );
  const { data, setData, loading, reload } = useLoad(load);
  if (!data)
    return (
      <DetailMissing
        loading={loading}
        status={deviceId ? '404' : 'info'}
        title={t('devices.detail.missing')}
        backTo={LIST_PATH}
        backLabel={t('devices.detail.back')}
      />
    );
  return <DeviceDetail detail={data} onChange={(device) => setData({ ...data, device })} reload={reload} />;
}

function DeviceDetail({
  detail,
  onChange,
  reload,
}: {
  detail: Detail;
  onChange(device: Detail['device']): void;
  reload(): void;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const act = useDeviceAction();
  const { device, events } = detail;
  const when = (time: string | null) => (time ? formatDate(time) : t('devices.detail.never'));
  const facts = [
    ['person', device.user.name ? `${device.user.name} (${device.user.username})` : device.user.username],
    ['type', device.type],
    ['os', device.os ?? '—'],
    ['activeSyncId', device.activeSyncId],
    ['userAgent', device.userAgent ?? '—'],
    ['registeredAt', when(device.registeredAt)],
    ['activatedAt', when(device.activatedAt)],
    ['lastLoginAt', when(device.lastLoginAt)],
    ['lastOfflineAt', when(device.lastOfflineAt)],
    ['lastIp', device.lastIp ?? '—'],
    [
      'passwordSetAt',
      device.passwordSetAt
        ? `${formatDate(device.passwordSetAt)}${device.passwordPending ? ` · ${t('devices.detail.passwordPending')}` : ''}`
        : '—',
    ],
  ] as const;

  return (
    <Flex vertical gap={16} style={{ maxWidth: 1400 }}>
      <BackButton to={LIST_PATH}>{t('devices.detail.back')}</BackButton>
      <Card data-testid="device-detail">
        <Flex justify="space-between" align="center" gap={12} wrap>
          <Flex gap={8} align="center" wrap>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {device.name}
            </Typography.Title>
            <DeviceStateTag device={device} />
            {device.activation === 'active' && <OnlineTag online={device.online} />}
          </Flex>
          <Space wrap>
            {actionsOf(device).map((action) => (
              <Button
                key={action}
                danger={action === 'remove' || action === 'disable'}
                type={action === 'approve' ? 'primary' : 'default'}
                onClick={() =>
                  void act(device, action).then((done) => {
                    if (!done) return;
                    if (action === 'remove') navigate(LIST_PATH, { replace: true });
                    else reload();
                  })
                }
              >
                {t(`devices.list.${action}`)}
              </Button>
            ))}
          </Space>
        </Flex>
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={12}>
          <Card title={t('devices.detail.facts')} size="small">
            <Descriptions column={1} size="small">
              {facts.map(([key, value]) => (
                <Descriptions.Item key={key} label={t(`devices.detail.${key}`)}>
                  <span style={{ overflowWrap: 'anywhere' }}>{value}</span>
                </Descriptions.Item>
              ))}
            </Descriptions>
            <Typography.Text type="secondary" style={{ display: 'block', marginTop: 8 }}>
              {t('devices.detail.ownerPermission', {
                permission: t(`devices.exchange.permissions.${detail.ownerPermission}`),
              })}
            </Typography.Text>
          </Card>
        </Col>
        <Col xs={24} xl={12}>
          <DeviceAccessForm device={device} onSaved={onChange} />
        </Col>
      </Row>
      <Card title={t('devices.detail.eventsTitle')} size="small" data-testid="device-events">
        {events.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('devices.detail.eventsEmpty')} />
        ) : (
          <Flex vertical gap={6}>
            {events.map((event) => (
              <Flex key={event.eventId} gap={8} wrap align="center">
                <Typography.Text type="secondary" style={{ minWidth: 150 }}>
                  {formatDate(event.at)}
                </Typography.Text>
                <Tag variant="filled" color={event.result === 'success' ? 'green' : 'red'}>
                  {t(`devices.causes.${event.cause ?? 'success'}` as 'devices.causes.success', {
                    defaultValue: event.cause ?? '',
                  })}
                </Tag>
                {event.ip && <Typography.Text type="secondary">{event.ip}</Typography.Text>}
              </Flex>
            ))}
          </Flex>
        )}
      </Card>
    </Flex>
  );
}
