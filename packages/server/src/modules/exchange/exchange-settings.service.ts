import { ACTIVESYNC_PATH, type exchange, type MemberRole } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { ExchangeSettingsRow } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { type OutboundPolicy, refusalMessage } from '../../lib/outbound-address.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { openToken } from './device-secrets.ts';
import { ensureSettings, findSettings, replaceToken, updateSettings } from './exchange-settings.repo.ts';

type DevicePasswordSettings = z.output<typeof exchange.devicePasswordSettings>;
type ExchangeInput = z.output<typeof exchange.updateExchangeSettings.request>;

export interface SettingsActor {
  accountId: string;
  ip: string;
  role: MemberRole;
}

const SERVICE_PASSWORD_PURPOSE = 'exchange-service-password';

/** Only the owner and administrators change the agent and see the token; external administrators read the rest. */
const assertMayChange = (role: MemberRole) => {
  if (role !== 'owner' && role !== 'admin') throw new AppError('auth.forbidden');
};

export const openServicePassword = (sealer: Sealer, sealed: string) =>
  sealer.open(sealed, SERVICE_PASSWORD_PURPOSE);

const devicePasswordView = (row: ExchangeSettingsRow) => ({
  devicePasswordDigits: row.device_password_digits,
  rotationDays: row.rotation_days,
  tokenRotatedAt: row.token_rotated_at.toISOString(),
});

/** The settings of the general screen's device section and of /safety-management/exchange (spec §3, §5, §6). */
export function createExchangeSettingsService(deps: {
  db: Db;
  sealer: Sealer;
  guard: OutboundPolicy;
  publicUrl: string;
}) {
  const { db, sealer } = deps;
  const agentUrl = `${deps.publicUrl}${ACTIVESYNC_PATH}`;

  const exchangeView = (row: ExchangeSettingsRow) => ({
    enabled: row.enabled,
    exchangeUrl: row.exchange_url,
    credentialMode: row.credential_mode,
    serviceUsername: row.service_username,
    servicePasswordSet: row.service_password_sealed !== null,
    activation: row.activation,
    userDeviceLimit: row.user_device_limit,
    defaultDevicePermission: row.default_device_permission,
    agentUrl,
  });

  /** A change with its audit event (the stored view before and after), in one transaction. */
  async function change<V>(
    actor: SettingsActor,
    companyId: string,
    action: string,
    view: (row: ExchangeSettingsRow) => V,
    apply: (trx: Db, row: ExchangeSettingsRow) => Promise<ExchangeSettingsRow>,
    auditExtra: Record<string, unknown> = {},
  ): Promise<V> {
    assertMayChange(actor.role);
    await ensureSettings(db, sealer, companyId);
    return db.transaction().execute(async (trx) => {
      const before = await trx
        .selectFrom('exchange_settings')
        .selectAll()
        .where('company_id', '=', companyId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const after = await apply(trx, before);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action,
        targetType: 'company',
        targetId: companyId,
        before: view(before),
        after: { ...view(after), ...auditExtra },
        ip: actor.ip,
      });
      return view(after);
    });
  }

  async function deviceSettings(companyId: string) {
    return devicePasswordView(await ensureSettings(db, sealer, companyId));
  }

  const updateDeviceSettings = (actor: SettingsActor, companyId: string, input: DevicePasswordSettings) =>
    change(actor, companyId, 'exchange.device_settings_update', devicePasswordView, (trx) =>
      updateSettings(trx, companyId, {
        device_password_digits: input.devicePasswordDigits,
        rotation_days: input.rotationDays,
      }),
    );

  async function registrationToken(actor: SettingsActor, companyId: string) {
    assertMayChange(actor.role);
    const row = await ensureSettings(db, sealer, companyId);
    return {
      token: openToken(sealer, row.registration_token_sealed),
      rotatedAt: row.token_rotated_at.toISOString(),
    };
  }

  /** The audit event says when, never the token. */
  async function rotateToken(actor: SettingsActor, companyId: string) {
    const view = (row: ExchangeSettingsRow) => ({ tokenRotatedAt: row.token_rotated_at.toISOString() });
    await change(actor, companyId, 'exchange.token_rotate', view, (trx) =>
      replaceToken(trx, sealer, companyId),
    );
    return registrationToken(actor, companyId);
  }

  async function exchangeSettings(companyId: string) {
    return exchangeView(await ensureSettings(db, sealer, companyId));
  }

  /** The rules the contract cannot check alone: what `enabled` needs, the stored password, the address's network. */
  async function checkExchange(input: ExchangeInput, row: ExchangeSettingsRow | undefined) {
    const password = input.servicePassword ?? '';
    if (input.enabled && !input.exchangeUrl) throw new AppError('exchange.url_required');
    if (input.enabled && input.credentialMode === 'service') {
      if (!input.serviceUsername) throw new AppError('exchange.service_username_required');
      if (!password && !row?.service_password_sealed)
        throw new AppError('exchange.service_password_required');
    }
    const refusal = input.exchangeUrl ? await deps.guard.refusalOf(input.exchangeUrl) : undefined;
    if (refusal) {
      const { reason, params } = refusalMessage(refusal);
      throw new AppError(reason, params);
    }
  }

  const updateExchange = async (actor: SettingsActor, companyId: string, input: ExchangeInput) => {
    assertMayChange(actor.role);
    // Checked before anything is stored: a refused change leaves no trace.
    await checkExchange(input, await findSettings(db, companyId));
    const password = input.servicePassword ?? '';
    return change(
      actor,
      companyId,
      'exchange.settings_update',
      exchangeView,
      (trx) =>
        updateSettings(trx, companyId, {
          enabled: input.enabled,
          exchange_url: input.exchangeUrl ?? null,
          credential_mode: input.credentialMode,
          service_username: input.serviceUsername ?? null,
          ...(password ? { service_password_sealed: sealer.seal(password, SERVICE_PASSWORD_PURPOSE) } : {}),
          activation: input.activation,
          user_device_limit: input.userDeviceLimit,
          default_device_permission: input.defaultDevicePermission,
        }),
      { servicePasswordChanged: Boolean(password) },
    );
  };

  return {
    deviceSettings,
    updateDeviceSettings,
    registrationToken,
    rotateToken,
    exchangeSettings,
    updateExchange,
  };
}

export type ExchangeSettingsService = ReturnType<typeof createExchangeSettingsService>;
