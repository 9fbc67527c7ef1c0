import type { KeyObject } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import {
  type ErrorReason,
  type LicenseModule,
  type LicensePayload,
  type LicenseStatus,
  licenseModules,
  type QuantityModule,
  quantityModules,
  unlicensedAllowance,
} from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { readLicenseFile } from './license-file.ts';
import { findQuotas, findUsage } from './quota.repo.ts';

const DAY_MS = 86_400_000;

/** Application code: stable per installation (one row, made on first use), grouped for reading aloud. */
const newApplicationCode = () =>
  (randomBytes(10).toString('hex').toUpperCase().match(/.{4}/g) ?? []).join('-');

/** What the installation uses of each counted function (the licence's quantities count these). */
export type UsageCounters = Record<QuantityModule, (db: Db) => Promise<number>>;

/** Who looks at the licence: platform administrators see the installation, anyone else their company. */
export interface LicenseViewer {
  companyId: string;
  isPlatformAdmin: boolean;
}

const licenceExceeded: Record<QuantityModule, ErrorReason> = {
  user: 'license.user_quantity_exceeded',
  app: 'license.app_quantity_exceeded',
};

const isQuantityModule = (module: LicenseModule): module is QuantityModule =>
  (quantityModules as readonly string[]).includes(module);

export function createLicenseService(deps: { db: Db; trustedKey: KeyObject; counters: UsageCounters }) {
  const { db } = deps;

  async function applicationCode(from: Db = db): Promise<string> {
    await from
      .insertInto('installation')
      .values({ id: 1, application_code: newApplicationCode() })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    const row = await from
      .selectFrom('installation')
      .select('application_code')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    return row.application_code;
  }

  const activeLicense = async (from: Db = db) => {
    const row = await from.selectFrom('licenses').selectAll().where('active', '=', true).executeTakeFirst();
    if (!row) return undefined;
    const payload = (
      typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload
    ) as LicensePayload;
    return { row, payload };
  };

  /** A function's licence status and expiry (what the top bar shows), without quantities. */
  function statusOf(module: LicenseModule, payload: LicensePayload | undefined, now: number) {
    const entry = payload?.modules.find((m) => m.module === module);
    if (!entry) return { entry, expiresAt: null, status: 'not_active' as LicenseStatus, reduceDay: null };
    const expires = Date.parse(entry.expiresAt);
    return {
      entry,
      expiresAt: entry.expiresAt,
      status: (expires > now ? 'normal' : 'expired') as LicenseStatus,
      reduceDay: Math.ceil((expires - now) / DAY_MS),
    };
  }

  /** The installation's total of a function: the licence's, or the allowance without one. */
  const installationTotal = (module: LicenseModule, entry: LicensePayload['modules'][number] | undefined) =>
    entry ? (entry.total ?? null) : isQuantityModule(module) ? unlicensedAllowance[module] : null;

  const remainingOf = (total: number | null, used: number | null) =>
    total !== null && used !== null ? Math.max(total - used, 0) : null;

  /**
   * Each function's status and expiry, with quantities for the viewer: the installation's totals
   * and usage for platform administrators, the company's quota and usage for anyone else.
   */
  async function moduleStates(viewer: LicenseViewer, payload: LicensePayload | undefined, from: Db) {
    const now = Date.now();
    const company = viewer.isPlatformAdmin
      ? undefined
      : {
          quotas: (await findQuotas(from, [viewer.companyId])).get(viewer.companyId) ?? {},
          usage: (await findUsage(from, [viewer.companyId])).get(viewer.companyId),
        };
    const list = [];
    for (const module of licenseModules) {
      const { entry, ...status } = statusOf(module, payload, now);
      let total: number | null = null;
      let used: number | null = null;
      if (isQuantityModule(module)) {
        total = company ? (company.quotas[module] ?? null) : installationTotal(module, entry);
        used = company ? (company.usage?.[module] ?? 0) : await deps.counters[module](from);
      }
      list.push({ module, total, used, remaining: remainingOf(total, used), ...status });
    }
    return list;
  }

  async function detail(viewer: LicenseViewer, from: Db = db) {
    const code = await applicationCode(from);
    const license = await activeLicense(from);
    return {
      scope: viewer.isPlatformAdmin ? ('installation' as const) : ('company' as const),
      applicationCode: code,
      licenseId: license?.payload.licenseId ?? null,
      customer: license?.payload.customer ?? null,
      issuedAt: license?.payload.issuedAt ?? null,
      importedAt: license?.row.imported_at.toISOString() ?? null,
      list: await moduleStates(viewer, license?.payload, from),
    };
  }

  /** The top bar's summary (spec §7: Info[0], the user function, has status and reduceDay). */
  async function info() {
    const license = await activeLicense();
    const now = Date.now();
    return {
      Info: licenseModules.map((module) => {
        const { status, reduceDay, expiresAt } = statusOf(module, license?.payload, now);
        return { module, status, reduceDay, expiresAt };
      }),
    };
  }

  async function importLicense(
    actor: { accountId: string; isPlatformAdmin: boolean; companyId: string; ip: string },
    text: string,
  ) {
    if (!actor.isPlatformAdmin) throw new AppError('license.platform_admin_only');
    const payload = readLicenseFile(text, deps.trustedKey);
    const code = await applicationCode();
    if (payload.applicationCode !== code)
      throw new AppError('license.wrong_installation', { code: payload.applicationCode });
    return db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(7316420964)`.execute(trx);
      const previous = await activeLicense(trx);
      await trx.updateTable('licenses').set({ active: false }).where('active', '=', true).execute();
      await trx
        .insertInto('licenses')
        .values({
          id: newId(),
          license_id: payload.licenseId,
          customer: payload.customer,
          payload: JSON.stringify(payload),
          raw: text,
          active: true,
          imported_by: actor.accountId,
        })
        .execute();
      await insertAuditEvent(trx, {
        companyId: actor.companyId,
        actorAccountId: actor.accountId,
        action: 'license.import',
        targetType: 'license',
        targetId: payload.licenseId,
        before: previous ? { licenseId: previous.payload.licenseId } : null,
        after: { licenseId: payload.licenseId, customer: payload.customer, modules: payload.modules },
        ip: actor.ip,
      });
      return detail({ companyId: actor.companyId, isPlatformAdmin: true }, trx);
    });
  }

  /**
   * Refuses to add `adding` more of a counted function beyond the licence (or the unlicensed
   * allowance). Callers go through the quota service's `takePlaces`, which holds the lock.
   */
  async function assertLicensedQuantity(module: QuantityModule, adding: number, from: Db) {
    const license = await activeLicense(from);
    const entry = license?.payload.modules.find((m) => m.module === module);
    const usable = entry && Date.parse(entry.expiresAt) > Date.now();
    const total = usable ? (entry.total ?? 0) : unlicensedAllowance[module];
    const used = await deps.counters[module](from);
    if (used + adding > total) throw new AppError(licenceExceeded[module], { total, adding });
  }

  return { applicationCode, detail, info, importLicense, assertLicensedQuantity };
}

export type LicenseService = ReturnType<typeof createLicenseService>;
