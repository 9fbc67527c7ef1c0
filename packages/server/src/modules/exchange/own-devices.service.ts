import type { DeviceStatus } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { issueDevicePassword, passwordDigitsOf, takePendingPassword } from './device-passwords.ts';
import { openToken, PENDING_PASSWORD_PURPOSE } from './device-secrets.ts';
import { deleteOwnCredentials, openOwnPassword, saveOwnCredentials } from './own-credentials.ts';

/**
 * A person's own devices in the user centre: what the account page shows, passwords shown
 * once, a new password on demand, and (with the device-management permission `admin`, spec §6)
 * approving, disabling and removing their own devices. Each change is audited with the person
 * as actor.
 */
export type OwnDeviceRefusal = 'not_found' | 'not_allowed';

interface OwnDevice {
  id: string;
  company_id: string;
  name: string;
  activation: 'to_be_activated' | 'active';
  status: 'enabled' | 'disabled';
  device_permission: 'user' | 'admin';
  member_status: 'enabled' | 'disabled' | 'locked';
}

export function createOwnDevicesService(deps: { db: Db; sealer: Sealer; publicUrl: string }) {
  const { db, sealer } = deps;
  const server = new URL(deps.publicUrl).host;

  /** The companies of the person whose agent is on or where they have devices, with those devices. */
  async function overview(account: { id: string; username: string; email: string | null }) {
    const companies = await db
      .selectFrom('company_members as m')
      .innerJoin('companies as c', 'c.id', 'm.company_id')
      .leftJoin('exchange_settings as s', 's.company_id', 'm.company_id')
      .leftJoin('exchange_credentials as own', (join) =>
        join.onRef('own.company_id', '=', 'm.company_id').onRef('own.account_id', '=', 'm.account_id'),
      )
      .select([
        'c.id',
        'c.name',
        'm.device_permission',
        'm.status as member_status',
        's.enabled',
        's.user_device_limit',
        's.credential_mode',
        's.registration_token_sealed',
        'own.username as own_username',
      ])
      .where('m.account_id', '=', account.id)
      .where((eb) =>
        eb.or([
          eb('s.enabled', '=', true),
          eb.exists(
            eb
              .selectFrom('exchange_devices as d')
              .select('d.id')
              .whereRef('d.company_id', '=', 'm.company_id')
              .whereRef('d.account_id', '=', 'm.account_id'),
          ),
        ]),
      )
      .orderBy('m.created_at')
      .execute();
    const devices = await db
      .selectFrom('exchange_devices')
      .select([
        'id',
        'company_id',
        'name',
        'device_type',
        'os',
        'activation',
        'status',
        'registered_at',
        'last_login_at',
        sql<boolean>`coalesce(online_until > now(), false)`.as('online'),
        sql<boolean>`password_pending_sealed is not null`.as('password_pending'),
      ])
      .where('account_id', '=', account.id)
      .orderBy('registered_at')
      .execute();
    return companies.map((company) => {
      const agentOn = company.enabled === true && company.member_status === 'enabled';
      return {
        companyId: company.id,
        name: company.name,
        permission: company.device_permission,
        limit: company.user_device_limit ?? 3,
        server,
        username: account.email ?? account.username,
        token:
          agentOn && company.registration_token_sealed
            ? openToken(sealer, company.registration_token_sealed)
            : null,
        personal: company.credential_mode === 'personal',
        ownUsername: company.own_username,
        devices: devices
          .filter((device) => device.company_id === company.id)
          .map((device) => ({
            deviceId: device.id,
            name: device.name,
            type: device.device_type,
            os: device.os,
            activation: device.activation,
            status: device.status,
            online: device.online,
            registeredAt: device.registered_at,
            lastLoginAt: device.last_login_at,
            passwordPending: device.password_pending,
          })),
      };
    });
  }

  async function ownDevice(accountId: string, deviceRowId: string): Promise<OwnDevice | undefined> {
    return db
      .selectFrom('exchange_devices as d')
      .innerJoin('company_members as m', (join) =>
        join.onRef('m.company_id', '=', 'd.company_id').onRef('m.account_id', '=', 'd.account_id'),
      )
      .select([
        'd.id',
        'd.company_id',
        'd.name',
        'd.activation',
        'd.status',
        'm.device_permission',
        'm.status as member_status',
      ])
      .where('d.account_id', '=', accountId)
      .where('d.id', '=', deviceRowId)
      .executeTakeFirst();
  }

  const audit = (trx: Db, accountId: string, device: OwnDevice, action: string, ip: string) =>
    insertAuditEvent(trx, {
      companyId: device.company_id,
      actorAccountId: accountId,
      action,
      targetType: 'device',
      targetId: device.id,
      ip,
    });

  /** The pending password of the person's device, taken (shown once). */
  async function reveal(accountId: string, deviceRowId: string) {
    const device = await ownDevice(accountId, deviceRowId);
    if (!device) return { refused: 'not_found' as const };
    return {
      name: device.name,
      password: (await takePendingPassword(db, sealer, accountId, deviceRowId)) ?? null,
    };
  }

  /**
   * A new password for an active device (lost, or never entered), or for a waiting one the person
   * approves: shown at once and never again. Answers the password, or why not.
   */
  async function issue(accountId: string, deviceRowId: string, ip: string, approving: boolean) {
    const device = await ownDevice(accountId, deviceRowId);
    if (device?.member_status !== 'enabled') return { refused: 'not_found' as const };
    if (approving ? device.device_permission !== 'admin' : device.status !== 'enabled')
      return { refused: 'not_allowed' as const };
    if ((device.activation === 'to_be_activated') !== approving) return { refused: 'not_allowed' as const };
    const issued = await issueDevicePassword(sealer, await passwordDigitsOf(db, device.company_id));
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('exchange_devices')
        .set({
          ...issued,
          password_pending_sealed: null,
          ...(approving ? { activation: 'active' as const, activated_at: new Date() } : {}),
        })
        .where('id', '=', device.id)
        .execute();
      await audit(
        trx,
        accountId,
        device,
        approving ? 'exchange.device_approve' : 'exchange.device_password_reset',
        ip,
      );
    });
    return {
      name: device.name,
      password: sealer.open(issued.password_pending_sealed, PENDING_PASSWORD_PURPOSE),
    };
  }

  /** Disables, enables or removes the person's own device (device-management permission `admin`). */
  async function manage(
    accountId: string,
    deviceRowId: string,
    ip: string,
    change: { status: DeviceStatus } | 'remove',
  ): Promise<OwnDeviceRefusal | null> {
    const device = await ownDevice(accountId, deviceRowId);
    if (device?.member_status !== 'enabled') return 'not_found';
    if (device.device_permission !== 'admin') return 'not_allowed';
    await db.transaction().execute(async (trx) => {
      if (change === 'remove') {
        await audit(trx, accountId, device, 'exchange.device_delete', ip);
        await trx.deleteFrom('exchange_devices').where('id', '=', device.id).execute();
        return;
      }
      await trx
        .updateTable('exchange_devices')
        .set({ status: change.status })
        .where('id', '=', device.id)
        .execute();
      await audit(trx, accountId, device, `exchange.device_${change.status}`, ip);
    });
    return null;
  }

  /** The company where the person's own Exchange sign-in is used (credential mode personal), with what is saved. */
  async function signInTarget(accountId: string, companyId: string) {
    return db
      .selectFrom('company_members as m')
      .innerJoin('companies as c', 'c.id', 'm.company_id')
      .innerJoin('exchange_settings as s', 's.company_id', 'm.company_id')
      .leftJoin('exchange_credentials as own', (join) =>
        join.onRef('own.company_id', '=', 'm.company_id').onRef('own.account_id', '=', 'm.account_id'),
      )
      .select(['c.id', 'c.name', 'own.username'])
      .where('m.account_id', '=', accountId)
      .where('m.company_id', '=', companyId)
      .where('s.credential_mode', '=', 'personal')
      .executeTakeFirst();
  }

  async function saveSignIn(
    actor: { accountId: string; ip: string },
    companyId: string,
    credentials: { username: string; password: string | null },
  ) {
    await db.transaction().execute(async (trx) => {
      const stored = await trx
        .selectFrom('exchange_credentials')
        .select('password_sealed')
        .where('company_id', '=', companyId)
        .where('account_id', '=', actor.accountId)
        .executeTakeFirst();
      const password =
        credentials.password ?? (stored ? openOwnPassword(sealer, stored.password_sealed) : '');
      await saveOwnCredentials(
        trx,
        sealer,
        { companyId, accountId: actor.accountId },
        { username: credentials.username, password },
      );
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'exchange.own_sign_in_save',
        targetType: 'user',
        targetId: actor.accountId,
        after: { username: credentials.username, passwordChanged: credentials.password !== null },
        ip: actor.ip,
      });
    });
  }

  async function removeSignIn(actor: { accountId: string; ip: string }, companyId: string) {
    await db.transaction().execute(async (trx) => {
      await deleteOwnCredentials(trx, { companyId, accountId: actor.accountId });
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'exchange.own_sign_in_remove',
        targetType: 'user',
        targetId: actor.accountId,
        ip: actor.ip,
      });
    });
  }

  return { overview, reveal, issue, manage, signInTarget, saveSignIn, removeSignIn };
}

export type OwnDevicesService = ReturnType<typeof createOwnDevicesService>;
