import type { DevicePermission, DeviceStatus, exchange, MemberRole } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertMayActOn, roleIn } from '../user/user-authority.ts';
import { type IssuedPassword, issueDevicePassword, passwordDigitsOf } from './device-passwords.ts';
import type { DevicePolicy } from './device-policy.ts';
import * as repo from './devices.repo.ts';

type DeviceFilter = z.output<typeof exchange.listDevices.request>;
type DeviceUpdate = z.output<typeof exchange.updateDevice.request>;
export type DeviceView = z.input<typeof exchange.device>;

export interface DeviceActor {
  accountId: string;
  ip: string;
  role: MemberRole;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function deviceView(row: repo.DeviceRow): DeviceView {
  return {
    deviceId: row.id,
    activeSyncId: row.device_id,
    name: row.name,
    os: row.os,
    type: row.device_type,
    userAgent: row.user_agent,
    user: { userId: row.account_id, username: row.username, name: row.display_name },
    activation: row.activation,
    status: row.status,
    online: row.online,
    accessPermission: row.access_permission,
    policy: (row.policy as DevicePolicy | null) ?? null,
    registeredAt: row.registered_at.toISOString(),
    activatedAt: iso(row.activated_at),
    lastLoginAt: iso(row.last_login_at),
    lastOfflineAt: iso(row.last_offline_at),
    lastSeenAt: iso(row.last_seen_at),
    lastIp: row.last_ip,
    passwordSetAt: iso(row.password_set_at),
    passwordPending: row.password_pending,
  };
}

/**
 * Devices in the console (spec §3 Device, §4, §7 device/list and /del): list and detail for
 * every administrator; approving, enabling, disabling, removing and changing a device act on its
 * person, so they follow the role rules (nobody acts on a person above their own role, external
 * administrators not on each other). Every change is audited in its transaction.
 */
export function createDevicesService(deps: { db: Db; sealer: Sealer }) {
  const { db, sealer } = deps;

  async function list(companyId: string, filter: DeviceFilter) {
    const { userId, page, pageSize, ...rest } = filter;
    const found = await repo.findDevices(db, companyId, { ...rest, accountId: userId, page, pageSize });
    return {
      list: found.rows.map(deviceView),
      total: found.total,
      osOptions: found.osOptions,
      typeOptions: found.typeOptions,
    };
  }

  async function detail(companyId: string, deviceId: string) {
    const row = await repo.findDevice(db, companyId, deviceId);
    if (!row) throw new AppError('device.not_found');
    const [events, permission] = await Promise.all([
      repo.eventsOfDevice(db, companyId, deviceId),
      db
        .selectFrom('company_members')
        .select('device_permission')
        .where('company_id', '=', companyId)
        .where('account_id', '=', row.account_id)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      device: deviceView(row),
      events: events.map((event) => ({
        eventId: String(event.id),
        at: event.created_at.toISOString(),
        result: event.result,
        cause: event.failure_cause,
        ip: event.ip,
      })),
      ownerPermission: permission.device_permission,
    };
  }

  /**
   * The devices of `ids` the company has, locked, after the role check on each one's person;
   * `work` changes them and writes its audit events in the same transaction.
   */
  async function changeDevices<T>(
    actor: DeviceActor,
    companyId: string,
    ids: readonly string[],
    work: (trx: Db, devices: Awaited<ReturnType<typeof repo.findDevicesForChange>>) => Promise<T>,
  ): Promise<T> {
    return db.transaction().execute(async (trx) => {
      const devices = await repo.findDevicesForChange(trx, companyId, ids);
      if (!devices.length) throw new AppError('device.not_found');
      for (const device of devices) assertMayActOn(actor.role, device.role);
      return work(trx, devices);
    });
  }

  const audit = (
    trx: Db,
    actor: DeviceActor,
    companyId: string,
    action: string,
    id: string,
    after?: unknown,
  ) =>
    insertAuditEvent(trx, {
      companyId,
      actorAccountId: actor.accountId,
      action,
      targetType: 'device',
      targetId: id,
      after,
      ip: actor.ip,
    });

  const remove = (actor: DeviceActor, companyId: string, ids: readonly string[]) =>
    changeDevices(actor, companyId, ids, async (trx, devices) => {
      for (const device of devices)
        await audit(trx, actor, companyId, 'exchange.device_delete', device.id, { name: device.name });
      return {
        removed: await repo.deleteDevices(
          trx,
          companyId,
          devices.map((device) => device.id),
        ),
      };
    });

  async function approve(actor: DeviceActor, companyId: string, ids: readonly string[]) {
    const digits = await passwordDigitsOf(db, companyId);
    // The passwords are hashed before the transaction, so that no row stays locked meanwhile.
    const waiting = (await repo.findDevicesForChange(db, companyId, ids)).filter(
      (device) => device.activation === 'to_be_activated',
    );
    const issued = new Map<string, IssuedPassword>();
    for (const device of waiting) issued.set(device.id, await issueDevicePassword(sealer, digits));
    return changeDevices(actor, companyId, ids, async (trx, devices) => {
      let approved = 0;
      for (const device of devices) {
        const password = issued.get(device.id);
        if (device.activation !== 'to_be_activated' || !password) continue;
        // One password per device; its person sees it once in the user centre.
        approved += await repo.updateDevices(trx, companyId, [device.id], {
          activation: 'active',
          activated_at: new Date(),
          ...password,
        });
        await audit(trx, actor, companyId, 'exchange.device_approve', device.id);
      }
      return { approved };
    });
  }

  const setStatus = (actor: DeviceActor, companyId: string, ids: readonly string[], status: DeviceStatus) =>
    changeDevices(actor, companyId, ids, async (trx, devices) => {
      const changing = devices.filter((device) => device.status !== status).map((device) => device.id);
      for (const id of changing) await audit(trx, actor, companyId, `exchange.device_${status}`, id);
      return { changed: await repo.updateDevices(trx, companyId, changing, { status }) };
    });

  async function update(actor: DeviceActor, companyId: string, input: DeviceUpdate) {
    await changeDevices(actor, companyId, [input.deviceId], async (trx) => {
      await repo.updateDevices(trx, companyId, [input.deviceId], {
        name: input.name,
        access_permission: input.accessPermission,
        policy: input.policy ? JSON.stringify(input.policy) : null,
      });
      await audit(trx, actor, companyId, 'exchange.device_update', input.deviceId, {
        name: input.name,
        accessPermission: input.accessPermission,
        policy: input.policy,
      });
    });
    return deviceView((await repo.findDevice(db, companyId, input.deviceId)) as repo.DeviceRow);
  }

  async function permissionOf(companyId: string, userId: string) {
    const row = await db
      .selectFrom('company_members as m')
      .leftJoin('exchange_settings as s', 's.company_id', 'm.company_id')
      .select(['m.device_permission', 's.user_device_limit'])
      .where('m.company_id', '=', companyId)
      .where('m.account_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw new AppError('user.not_found');
    return {
      permission: row.device_permission,
      devices: await repo.countDevicesOf(db, companyId, userId),
      limit: row.user_device_limit ?? 3,
    };
  }

  async function setPermission(
    actor: DeviceActor,
    companyId: string,
    userId: string,
    permission: DevicePermission,
  ) {
    return db.transaction().execute(async (trx) => {
      const role = await roleIn(trx, companyId, userId);
      if (!role) throw new AppError('user.not_found');
      assertMayActOn(actor.role, role);
      await trx
        .updateTable('company_members')
        .set({ device_permission: permission })
        .where('company_id', '=', companyId)
        .where('account_id', '=', userId)
        .execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'exchange.device_permission_update',
        targetType: 'user',
        targetId: userId,
        after: { permission },
        ip: actor.ip,
      });
      return { permission };
    });
  }

  return { list, detail, remove, approve, setStatus, update, permissionOf, setPermission };
}

export type DevicesService = ReturnType<typeof createDevicesService>;
