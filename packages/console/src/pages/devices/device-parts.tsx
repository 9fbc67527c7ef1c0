import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';

export type Device = ApiResponse<'/api/v1/manage/user/exchange/admin/device/list'>['list'][number];
export type DeviceAction = 'approve' | 'enable' | 'disable' | 'remove';

export const deviceDetailPath = (deviceId: string) =>
  `/safety-management/deviceManageDetail?id=${encodeURIComponent(deviceId)}`;

/** Spec §4: to be activated or active, and enabled or disabled, as one state. */
export const stateOf = (device: Pick<Device, 'status' | 'activation'>) =>
  device.status === 'disabled' ? 'disabled' : device.activation;

export function DeviceStateTag({ device }: { device: Pick<Device, 'status' | 'activation'> }) {
  const { t } = useTranslation();
  const state = stateOf(device);
  const color = state === 'active' ? 'green' : state === 'disabled' ? 'red' : 'orange';
  return (
    <Tag variant="filled" color={color} style={{ marginInlineEnd: 0 }}>
      {t(`devices.states.${state}`)}
    </Tag>
  );
}

export function OnlineTag({ online }: { online: boolean }) {
  const { t } = useTranslation();
  return (
    <Tag variant="filled" color={online ? 'blue' : 'default'} style={{ marginInlineEnd: 0 }}>
      {t(online ? 'devices.onlineState.online' : 'devices.onlineState.offline')}
    </Tag>
  );
}

/** The actions a device offers now: approve while waiting, enable or disable, remove. */
export const actionsOf = (device: Pick<Device, 'status' | 'activation'>): DeviceAction[] => [
  ...(device.activation === 'to_be_activated' ? (['approve'] as const) : []),
  device.status === 'enabled' ? 'disable' : 'enable',
  'remove',
];

/** Runs a device action through its call (removal after a confirmation); answers whether it was done. */
export function useDeviceAction() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  return async (device: Pick<Device, 'deviceId' | 'name'>, action: DeviceAction): Promise<boolean> => {
    const deviceIds = [device.deviceId];
    try {
      if (action === 'remove') {
        return await confirm({
          title: t('devices.list.removeTitle', { name: device.name }),
          content: t('devices.list.removeContent'),
          okText: t('devices.list.remove'),
          onOk: async () => {
            await callApi('/api/v1/manage/user/exchange/admin/device/del', { deviceIds });
            void message.success(t('devices.list.removed'));
          },
        });
      }
      if (action === 'approve') {
        await callApi('/api/v1/manage/user/exchange/admin/device/approve', { deviceIds });
        void message.success(t('devices.list.approved'));
        return true;
      }
      const status = action === 'enable' ? 'enabled' : 'disabled';
      await callApi('/api/v1/manage/user/exchange/admin/device/status', { deviceIds, status });
      void message.success(t(`devices.list.${status}`));
      return true;
    } catch {
      // Shown by the HTTP client.
      return false;
    }
  };
}
