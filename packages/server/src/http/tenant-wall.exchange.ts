import type { TestContext } from '../test/harness.ts';
import { call } from '../test/harness.ts';

/**
 * The tenant wall's probes of the Exchange calls (issue 18): a device of company B's person,
 * and B's registration token, named in A's probes; B's devices and settings must come out as
 * they were, and neither the token nor the device may appear in any answer to A.
 */
export function exchangeWall(
  ctxOf: () => TestContext,
  bOf: () => { token: string; companyId: string },
  bMemberIdOf: () => string,
) {
  let deviceRowId = '';
  let token = '';
  const asB = () => ({ token: bOf().token, companyId: bOf().companyId });

  async function setUp() {
    const ctx = ctxOf();
    token = (await call<{ token: string }>(ctx, '/api/v1/manage/safety/device/token', {}, asB())).data.token;
    deviceRowId = 'beta-secret-device-row';
    await ctx.database.db
      .insertInto('exchange_devices')
      .values({
        id: deviceRowId,
        company_id: bOf().companyId,
        account_id: bMemberIdOf(),
        device_id: 'BETASECRETPHONE01',
        device_type: 'iPhone',
        name: 'Beta Secret Phone',
        activation: 'to_be_activated',
      })
      .execute();
  }

  async function stateOfB() {
    const ctx = ctxOf();
    const devices = await ctx.database.db
      .selectFrom('exchange_devices')
      .selectAll()
      .where('company_id', '=', bOf().companyId)
      .execute();
    const settings = await ctx.database.db
      .selectFrom('exchange_settings')
      .selectAll()
      .where('company_id', '=', bOf().companyId)
      .execute();
    const member = await ctx.database.db
      .selectFrom('company_members')
      .select('device_permission')
      .where('company_id', '=', bOf().companyId)
      .where('account_id', '=', bMemberIdOf())
      .execute();
    return JSON.stringify([devices, settings, member]);
  }

  const ids = () => ({ deviceIds: [deviceRowId] });
  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/safety/device': () => ({ companyId: bOf().companyId }),
    '/api/v1/manage/safety/device/update': () => ({ devicePasswordDigits: 8, rotationDays: 1 }),
    '/api/v1/manage/safety/device/token': () => ({ companyId: bOf().companyId }),
    '/api/v1/manage/safety/device/token/rotate': () => ({ companyId: bOf().companyId }),
    '/api/v1/manage/safety/exchange': () => ({ companyId: bOf().companyId }),
    '/api/v1/manage/safety/exchange/update': () => ({
      enabled: false,
      credentialMode: 'service',
      activation: 'automatic',
      userDeviceLimit: 50,
      defaultDevicePermission: 'admin',
    }),
    '/api/v1/manage/user/exchange/admin/device/list': () => ({ userId: bMemberIdOf(), keyword: 'beta' }),
    '/api/v1/manage/user/exchange/admin/device/del': ids,
    '/api/v1/manage/user/exchange/admin/device/detail': () => ({ deviceId: deviceRowId }),
    '/api/v1/manage/user/exchange/admin/device/approve': ids,
    '/api/v1/manage/user/exchange/admin/device/status': () => ({ ...ids(), status: 'disabled' }),
    '/api/v1/manage/user/exchange/admin/device/update': () => ({
      deviceId: deviceRowId,
      name: 'Renamed by A',
      accessPermission: 'receive_only',
      policy: null,
    }),
    '/api/v1/manage/user/exchange/admin/permission': () => ({ userId: bMemberIdOf() }),
    '/api/v1/manage/user/exchange/admin/permission/update': () => ({
      userId: bMemberIdOf(),
      permission: 'admin',
    }),
  };

  return {
    setUp,
    stateOfB,
    probes,
    secrets: () => [token, deviceRowId, 'BETASECRETPHONE01', 'Beta Secret Phone'],
  };
}
