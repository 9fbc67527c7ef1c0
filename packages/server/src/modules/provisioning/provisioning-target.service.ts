import type { appProvisioning as contract, Language } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { ProvisioningStoredError, ProvisioningTarget } from '../../db/schema-provisioning.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { type OutboundPolicy, refusalMessage } from '../../lib/outbound-address.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import * as repo from './provisioning.repo.ts';
import { createScimClient, ScimFailure } from './scim-client.ts';

type Body<C> = z.output<C extends { request: infer R extends z.ZodType } ? R : never>;
type TargetView = z.output<typeof contract.provisioningTarget>;

/** The purpose the bearer token is sealed under (a sealed value cannot move to another column). */
export const TOKEN_PURPOSE = 'app-provisioning-token';

export interface ProvisioningActor {
  accountId: string | null;
  ip: string | null;
}

/** The stored error that a target-wide failure (or anything unexpected) means, for a run's record. */
export function targetError(error: unknown): ProvisioningStoredError {
  if (error instanceof ScimFailure) {
    if (error.kind === 'refused') return { ...refusalMessage(error.cause), username: null };
    if (error.kind === 'unauthorized')
      return {
        reason: 'provisioning.target_unauthorized',
        params: { status: error.status ?? 0 },
        username: null,
      };
    if (error.status === null)
      return { reason: 'provisioning.target_unreachable', params: { detail: error.detail }, username: null };
    return {
      reason: 'provisioning.target_failed',
      params: { status: error.status, detail: error.detail },
      username: null,
    };
  }
  if (error instanceof AppError) return { reason: error.reason, params: error.params, username: null };
  return {
    reason: 'provisioning.target_failed',
    params: { status: 0, detail: 'internal error' },
    username: null,
  };
}

export const viewOfTarget = (row: ProvisioningTarget): TargetView => ({
  baseUrl: row.base_url,
  tokenSet: Boolean(row.token_sealed),
  userNameFrom: row.user_name_from,
  attributes: row.attributes,
  lifecycle: row.lifecycle,
  onLoss: row.on_loss,
  enabled: row.enabled,
  updatedAt: row.updated_at.toISOString(),
});

/** An application's SCIM target: read (never the token), saved, removed, tested. */
export function createProvisioningTargets(deps: { db: Db; sealer: Sealer; outbound: OutboundPolicy }) {
  const { db, sealer, outbound } = deps;

  async function appOf(trx: Db, companyId: string, appId: string) {
    const app = await trx
      .selectFrom('apps')
      .select(['id', 'company_id', 'status', 'default_access', 'name'])
      .where('company_id', '=', companyId)
      .where('id', '=', appId)
      .executeTakeFirst();
    if (!app) throw new AppError('app.not_found');
    return app;
  }

  async function targetOf(companyId: string, appId: string) {
    await appOf(db, companyId, appId);
    const target = await repo.findTarget(db, companyId, appId);
    if (!target) throw new AppError('provisioning.not_found');
    return target;
  }

  /** The client of a stored target (its token opened here, never anywhere it could be shown). */
  const clientOf = (target: ProvisioningTarget) =>
    createScimClient(outbound, {
      baseUrl: target.base_url,
      token: sealer.open(target.token_sealed, TOKEN_PURPOSE),
    });

  async function update(
    actor: ProvisioningActor,
    companyId: string,
    body: Body<typeof contract.updateProvisioning>,
  ) {
    // Refused addresses are told at once, with what to ask the platform administrator for.
    const refusal = await outbound.refusalOf(body.baseUrl);
    if (refusal) {
      const { reason, params } = refusalMessage(refusal);
      throw new AppError(reason, params);
    }
    return db.transaction().execute(async (trx) => {
      await appOf(trx, companyId, body.appId);
      const before = await repo.findTarget(trx, companyId, body.appId);
      if (!before && !body.token) throw new AppError('provisioning.token_required');
      const saved = await repo.saveTarget(trx, {
        app_id: body.appId,
        company_id: companyId,
        base_url: body.baseUrl,
        token_sealed: body.token ? sealer.seal(body.token, TOKEN_PURPOSE) : (before?.token_sealed as string),
        user_name_from: body.userNameFrom,
        attributes: [...new Set(body.attributes)],
        lifecycle: body.lifecycle,
        on_loss: body.onLoss,
        enabled: body.enabled,
      });
      // Another service: the remote ids of the old one mean nothing there.
      if (before && before.base_url !== body.baseUrl) await repo.forgetPeople(trx, body.appId);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'app.provisioning.update',
        targetType: 'app',
        targetId: body.appId,
        before: before ? viewOfTarget(before) : null,
        after: { ...viewOfTarget(saved), tokenReplaced: Boolean(body.token) },
        ip: actor.ip,
      });
      return viewOfTarget(saved);
    });
  }

  async function remove(actor: ProvisioningActor, companyId: string, appId: string) {
    const before = await targetOf(companyId, appId);
    await db.transaction().execute(async (trx) => {
      await repo.deleteTarget(trx, companyId, appId);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'app.provisioning.remove',
        targetType: 'app',
        targetId: appId,
        before: viewOfTarget(before),
        ip: actor.ip,
      });
    });
    return null;
  }

  /** Reads ServiceProviderConfig and one page of Users with the saved token. */
  async function test(companyId: string, lang: Language, appId: string) {
    const client = clientOf(await targetOf(companyId, appId));
    try {
      const capabilities = await client.capabilities();
      await client.probeUsers();
      return { ok: true, status: 200, ...capabilities, message: null };
    } catch (error) {
      const stored = targetError(error);
      return {
        ok: false,
        status: error instanceof ScimFailure ? error.status : null,
        patchSupported: false,
        filterSupported: false,
        message: translateError(lang, stored.reason as never, stored.params),
      };
    }
  }

  return { appOf, targetOf, clientOf, update, remove, test };
}

export type ProvisioningTargets = ReturnType<typeof createProvisioningTargets>;
