import {
  type ErrorReason,
  type FieldError,
  type Language,
  type QuantityModule,
  quantityModules,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import type { LicenseService } from './license.service.ts';
import * as repo from './quota.repo.ts';

export interface PlatformActor {
  accountId: string;
  isPlatformAdmin: boolean;
  ip: string;
}

type Quotas = Record<QuantityModule, number | null>;

/** The refusals of each counted function, so that a message says "users" or "applications". */
const reasons: Record<QuantityModule, { exceeded: ErrorReason; belowUsage: ErrorReason }> = {
  user: { exceeded: 'quota.user_quota_exceeded', belowUsage: 'quota.user_below_usage' },
  app: { exceeded: 'quota.app_quota_exceeded', belowUsage: 'quota.app_below_usage' },
};

/**
 * Company quotas: how many users and applications each company may have, within the
 * installation licence. `takePlaces` is the one check every creation goes through.
 */
export function createQuotaService(deps: {
  db: Db;
  licenses: Pick<LicenseService, 'assertLicensedQuantity'>;
  /** What a new company gets (configuration). */
  defaults: Quotas;
}) {
  const { db, licenses } = deps;

  /**
   * Takes `adding` places of a counted function for a company (null: an account of no company,
   * such as a developer account), inside the caller's transaction and before it inserts: the
   * company's quota first, then the installation licence. Holds the function's lock until the
   * transaction ends, so parallel creations wait for each other and cannot exceed either limit.
   */
  async function takePlaces(trx: Db, companyId: string | null, module: QuantityModule, adding = 1) {
    await repo.lockQuantity(trx, module);
    if (companyId !== null) {
      const quota = (await repo.findQuotas(trx, [companyId])).get(companyId)?.[module] ?? null;
      if (quota !== null) {
        const used = await repo.countCompanyUsage(trx, companyId, module);
        if (used + adding > quota) throw new AppError(reasons[module].exceeded, { quota, used, adding });
      }
    }
    await licenses.assertLicensedQuantity(module, adding, trx);
  }

  /** Gives a new company the configured quotas (in the transaction that creates it). */
  async function assignDefaults(trx: Db, companyId: string) {
    for (const module of quantityModules)
      await repo.upsertQuota(trx, companyId, module, deps.defaults[module]);
  }

  const assertPlatformAdmin = (actor: PlatformActor) => {
    if (!actor.isPlatformAdmin) throw new AppError('quota.platform_admin_only');
  };

  async function rowsOf(from: Db, companies: repo.QuotaCompanyRow[]) {
    const ids = companies.map((c) => c.id);
    const quotas = await repo.findQuotas(from, ids);
    const usage = await repo.findUsage(from, ids);
    return companies.map((company) => ({
      companyId: company.id,
      name: company.name,
      ownerUsername: company.owner_username,
      createdAt: company.created_at.toISOString(),
      quotas: quantityModules.map((module) => ({
        module,
        quota: quotas.get(company.id)?.[module] ?? null,
        used: usage.get(company.id)?.[module] ?? 0,
      })),
    }));
  }

  async function list(actor: PlatformActor, query: { keyword?: string; page: number; pageSize: number }) {
    assertPlatformAdmin(actor);
    const { rows, total } = await repo.findCompanies(db, query);
    return { list: await rowsOf(db, rows), total };
  }

  /**
   * Sets some of a company's quotas. A quota below what the company already uses is refused
   * unless confirmed: then nothing is removed, and new ones are refused until usage is below it.
   */
  async function setQuotas(
    actor: PlatformActor,
    lang: Language,
    input: { companyId: string; quotas: Partial<Quotas>; confirmBelowUsage: boolean },
  ) {
    assertPlatformAdmin(actor);
    const changing = quantityModules.filter((module) => input.quotas[module] !== undefined);
    return db.transaction().execute(async (trx) => {
      // The same locks as creations: the usage read below cannot change before the commit.
      for (const module of changing) await repo.lockQuantity(trx, module);
      const company = await repo.findCompany(trx, input.companyId);
      if (!company) throw new AppError('company.not_found');
      const [before] = await rowsOf(trx, [company]);
      if (!before) throw new AppError('company.not_found');
      const below = before.quotas.flatMap(({ module, used }) => {
        const quota = input.quotas[module];
        return quota !== undefined && quota !== null && quota < used ? [{ module, quota, used }] : [];
      });
      const [first] = below;
      if (first && !input.confirmBelowUsage) {
        const fields: FieldError[] = below.map(({ module, quota, used }) => ({
          field: `quotas.${module}`,
          message: translateError(lang, reasons[module].belowUsage, { quota, used }),
        }));
        throw new AppError(
          reasons[first.module].belowUsage,
          { quota: first.quota, used: first.used },
          fields,
        );
      }
      for (const module of changing)
        await repo.upsertQuota(trx, company.id, module, input.quotas[module] as number | null);
      const [after] = await rowsOf(trx, [company]);
      const view = (row: typeof before) =>
        Object.fromEntries(row.quotas.map((q) => [q.module, { quota: q.quota, used: q.used }]));
      await insertAuditEvent(trx, {
        companyId: company.id,
        actorAccountId: actor.accountId,
        action: 'company.quota.update',
        targetType: 'company',
        targetId: company.id,
        before: view(before),
        after: { ...view(after ?? before), ...(below.length ? { belowUsageConfirmed: true } : {}) },
        ip: actor.ip,
      });
      return after ?? before;
    });
  }

  return { takePlaces, assignDefaults, list, setQuotas };
}

export type QuotaService = ReturnType<typeof createQuotaService>;
