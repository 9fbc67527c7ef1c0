import { exchange as calls } from '@tessera/contract';
import type { Bind, CallContext } from '../../http/bind.ts';
import type { DevicesService } from './devices.service.ts';
import type { ExchangeSettingsService } from './exchange-settings.service.ts';

export function exchangeRoutes(bind: Bind, settings: ExchangeSettingsService, devices: DevicesService) {
  const actorOf = (ctx: Pick<CallContext<unknown>, 'session' | 'ip' | 'tenant'>) => ({
    accountId: ctx.session.accountId,
    ip: ctx.ip,
    role: ctx.tenant.role,
  });
  bind(calls.getDeviceSettings, async ({ tenant }) => settings.deviceSettings(tenant.companyId));
  bind(calls.updateDeviceSettings, async (ctx) =>
    settings.updateDeviceSettings(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.getRegistrationToken, async (ctx) =>
    settings.registrationToken(actorOf(ctx), ctx.tenant.companyId),
  );
  bind(calls.rotateRegistrationToken, async (ctx) =>
    settings.rotateToken(actorOf(ctx), ctx.tenant.companyId),
  );
  bind(calls.getExchangeSettings, async ({ tenant }) => settings.exchangeSettings(tenant.companyId));
  bind(calls.updateExchangeSettings, async (ctx) =>
    settings.updateExchange(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );

  bind(calls.listDevices, async ({ tenant, body }) => devices.list(tenant.companyId, body));
  bind(calls.deleteDevices, async (ctx) =>
    devices.remove(actorOf(ctx), ctx.tenant.companyId, ctx.body.deviceIds),
  );
  bind(calls.deviceDetail, async ({ tenant, body }) => devices.detail(tenant.companyId, body.deviceId));
  bind(calls.approveDevices, async (ctx) =>
    devices.approve(actorOf(ctx), ctx.tenant.companyId, ctx.body.deviceIds),
  );
  bind(calls.setDeviceStatus, async (ctx) =>
    devices.setStatus(actorOf(ctx), ctx.tenant.companyId, ctx.body.deviceIds, ctx.body.status),
  );
  bind(calls.updateDevice, async (ctx) => devices.update(actorOf(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.devicePermissionOf, async ({ tenant, body }) =>
    devices.permissionOf(tenant.companyId, body.userId),
  );
  bind(calls.setDevicePermission, async (ctx) =>
    devices.setPermission(actorOf(ctx), ctx.tenant.companyId, ctx.body.userId, ctx.body.permission),
  );
}
