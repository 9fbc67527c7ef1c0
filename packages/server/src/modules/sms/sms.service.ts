import type { sms } from '@tessera/contract';

type SmsProvider = sms.SmsProvider;

import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { type OutboundPolicy, refusalMessage } from '../../lib/outbound-address.ts';
import { createTaggedCache } from '../../lib/tagged-cache.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { sendAliyun } from './aliyun.ts';
import type { ProviderAccount, ProviderResult, Transport } from './provider.ts';
import * as repo from './sms.repo.ts';
import type { SmsSender } from './sms.ts';
import { sendTencent } from './tencent.ts';

const SECRET_PURPOSE = 'sms.provider.access_key_secret';
/** A person waits for the code: a provider that has not answered by then has failed. */
export const SMS_TIMEOUT_MS = 5000;

export interface PlatformActor {
  accountId: string;
  isPlatformAdmin: boolean;
  ip: string;
}

/** The settings as the platform administrator types them: no provider turns SMS off. */
export type ProviderInput = Omit<ProviderAccount, 'provider'> & { provider: SmsProvider | null };

const senders = { aliyun: sendAliyun, tencent: sendTencent };

/** What the console shows of the stored row: never the secret. */
const shown = (row: repo.SmsProviderRow | undefined) => ({
  provider: row?.provider ?? null,
  accessKeyId: row?.access_key_id ?? '',
  secretSet: Boolean(row),
  region: row?.region ?? '',
  appId: row?.app_id ?? '',
  signName: row?.sign_name ?? '',
  templateId: row?.template_id ?? '',
  templateMinutes: row?.template_minutes ?? false,
  baseUrl: row?.base_url ?? null,
  updatedAt: row?.updated_at.toISOString() ?? null,
});

/** A base address is a scheme and a host (and port): the API path is the provider's. */
function assertBaseUrl(value: string | null) {
  if (value === null) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('sms.base_url_invalid');
  }
  if (!['https:', 'http:'].includes(url.protocol) || url.pathname !== '/' || url.search || url.username)
    throw new AppError('sms.base_url_invalid');
}

function assertComplete(input: ProviderInput) {
  const required = [input.accessKeyId, input.signName, input.templateId];
  if (input.provider === 'tencent') required.push(input.appId);
  if (required.some((value) => value === '')) throw new AppError('sms.field_required');
}

/**
 * A provider's error message as it may be logged and shown: Alibaba Cloud's signature error
 * quotes the string it signed, which holds the request's parameters (the code among them).
 */
export const loggable = (providerMessage: string, code: string) =>
  providerMessage
    .replace(/\s*server string to sign is:[\s\S]*$/i, '')
    .split(code)
    .join('******')
    .slice(0, 200);

/** The last digits of a number, for logs. */
const maskedPhone = (phone: string) => `***${phone.slice(-4)}`;

/**
 * The SMS provider of the installation: its settings (platform administrators), a company's own
 * sign name and template (the company's administrators), and the sender of codes. Each send
 * reads the stored settings, so a change applies to the next message on every instance.
 */
export function createSmsService(deps: {
  db: Db;
  sealer: Sealer;
  outbound: Pick<OutboundPolicy, 'fetch' | 'refusalOf'>;
  log: Pick<FastifyBaseLogger, 'warn'>;
  timeoutMs?: number;
}) {
  const { db, sealer, log } = deps;
  const transport: Transport = {
    fetch: (url, init) => deps.outbound.fetch(url, init),
    timeoutMs: deps.timeoutMs ?? SMS_TIMEOUT_MS,
  };
  const assertPlatformAdmin = (actor: PlatformActor) => {
    if (!actor.isPlatformAdmin) throw new AppError('platform.platform_admin_only');
  };

  async function accountFor(companyId: string | null): Promise<ProviderAccount | undefined> {
    const row = await repo.providerRow(db);
    if (!row) return undefined;
    const own = companyId ? await repo.companyRow(db, companyId) : undefined;
    return {
      provider: row.provider,
      accessKeyId: row.access_key_id,
      accessKeySecret: sealer.open(row.access_key_secret_sealed, SECRET_PURPOSE),
      region: row.region,
      appId: row.app_id,
      signName: own?.sign_name ?? row.sign_name,
      templateId: own?.template_id ?? row.template_id,
      templateMinutes: row.template_minutes,
      baseUrl: row.base_url,
    };
  }

  /** One message, one request: a refusal is logged with the provider's code (never the code sent, never a secret). */
  async function send(
    companyId: string | null,
    message: { phone: string; code: string; minutes: number },
  ): Promise<ProviderResult> {
    const account = await accountFor(companyId);
    if (!account) throw new AppError('sms.not_configured');
    const answer = await senders[account.provider](account, message, transport);
    if (answer.ok) return answer;
    const result = { ...answer, providerMessage: loggable(answer.providerMessage, message.code) };
    const event = {
      provider: account.provider,
      providerCode: result.providerCode,
      providerMessage: result.providerMessage,
      requestId: result.requestId,
      signName: account.signName,
      templateId: account.templateId,
    };
    log.warn(
      { event: 'sms.send_failed', companyId, phone: maskedPhone(message.phone), ...event },
      'SMS provider did not send a message',
    );
    if (companyId)
      await insertAuditEvent(db, {
        companyId,
        actorAccountId: null,
        action: 'sms.send_failed',
        targetType: 'sms',
        targetId: null,
        after: event,
      });
    return result;
  }

  // Every sign-in page asks whether SMS is offered: the answer is kept until a change of the
  // provider is announced (SMS_CHANNEL), or a minute passes.
  const configured = createTaggedCache<boolean>({ maxAgeMs: 60_000, max: 1, tagsOf: () => ['provider'] });
  const sender: SmsSender = {
    available: async () =>
      configured.read('provider', async () => (await repo.providerRow(db)) !== undefined),
    async sendCode(message) {
      const result = await send(message.companyId, message);
      if (!result.ok) throw new AppError('sms.send_failed');
    },
  };

  async function companySettings(companyId: string) {
    const [row, own] = await Promise.all([repo.providerRow(db), repo.companyRow(db, companyId)]);
    return {
      platformConfigured: Boolean(row),
      provider: row?.provider ?? null,
      signName: own?.sign_name ?? null,
      templateId: own?.template_id ?? null,
      platformSignName: row?.sign_name ?? '',
      platformTemplateId: row?.template_id ?? '',
    };
  }

  return {
    sender,
    /** A notice of SMS_CHANNEL: the provider changed on some instance. */
    onNotice: (payload: string) => configured.forget(payload),

    async platformSettings(actor: PlatformActor) {
      assertPlatformAdmin(actor);
      return shown(await repo.providerRow(db));
    },

    async updatePlatformSettings(actor: PlatformActor, input: ProviderInput) {
      assertPlatformAdmin(actor);
      if (input.provider) {
        assertComplete(input);
        assertBaseUrl(input.baseUrl);
        const refusal = input.baseUrl ? await deps.outbound.refusalOf(input.baseUrl) : undefined;
        if (refusal) {
          const { reason, params } = refusalMessage(refusal);
          throw new AppError(reason, params);
        }
      }
      return db.transaction().execute(async (trx) => {
        const before = await repo.providerRow(trx);
        const provider = input.provider;
        if (provider === null) {
          if (before) await repo.removeProvider(trx);
        } else {
          // A secret belongs to the provider account it was typed for.
          const keepSecret = input.accessKeySecret === '' && before?.provider === provider;
          if (input.accessKeySecret === '' && !keepSecret) throw new AppError('sms.secret_required');
          await repo.saveProvider(trx, {
            provider,
            access_key_id: input.accessKeyId,
            access_key_secret_sealed: keepSecret
              ? (before?.access_key_secret_sealed as string)
              : sealer.seal(input.accessKeySecret, SECRET_PURPOSE),
            region: input.region,
            app_id: provider === 'tencent' ? input.appId : '',
            sign_name: input.signName,
            template_id: input.templateId,
            template_minutes: input.templateMinutes,
            base_url: input.baseUrl,
          });
        }
        const after = await repo.providerRow(trx);
        const { updatedAt: _b, ...beforeShown } = shown(before);
        const { updatedAt: _a, ...afterShown } = shown(after);
        await insertAuditEvent(trx, {
          companyId: null,
          actorAccountId: actor.accountId,
          action: 'platform.sms.update',
          targetType: 'platform',
          targetId: null,
          before: beforeShown,
          after: { ...afterShown, secretChanged: input.accessKeySecret !== '' },
          ip: actor.ip,
        });
        return shown(after);
      });
    },

    /** A code-shaped test message with the platform's sign name and template: the provider's refusal is shown as it is. */
    async sendTest(actor: PlatformActor, phone: string) {
      assertPlatformAdmin(actor);
      const result = await send(null, { phone, code: '123456', minutes: 5 });
      if (!result.ok)
        throw new AppError('sms.test_failed', {
          providerCode: result.providerCode,
          providerMessage: result.providerMessage,
        });
      return { messageId: result.messageId };
    },

    companySettings,

    async updateCompanySettings(
      actor: { accountId: string; ip: string },
      companyId: string,
      input: { signName: string | null; templateId: string | null },
    ) {
      await db.transaction().execute(async (trx) => {
        const before = await repo.companyRow(trx, companyId);
        const unchanged =
          (before?.sign_name ?? null) === input.signName &&
          (before?.template_id ?? null) === input.templateId;
        if (unchanged) return;
        await repo.saveCompany(trx, companyId, { sign_name: input.signName, template_id: input.templateId });
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'company.sms.update',
          targetType: 'company',
          targetId: companyId,
          before: { signName: before?.sign_name ?? null, templateId: before?.template_id ?? null },
          after: input,
          ip: actor.ip,
        });
      });
      return companySettings(companyId);
    },
  };
}

export type SmsService = ReturnType<typeof createSmsService>;
