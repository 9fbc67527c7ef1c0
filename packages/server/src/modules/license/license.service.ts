import type { KeyObject } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import {
  type LicenseModule,
  type LicensePayload,
  type LicenseStatus,
  licenseModules,
  unlicensedAllowance,
} from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { readLicenseFile } from './license-file.ts';

const DAY_MS = 86_400_000;

/** Application code: stable per installation (one row, made on first use), grouped for reading aloud. */
const newApplicationCode = () =>
  (randomBytes(10).toString('hex').toUpperCase().match(/.{4}/g) ?? []).join('-');

export type UsageCounters = Partial<Record<LicenseModule, (db: Db) => Promise<number>>>;

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

  function stateOf(
    module: LicenseModule,
    payload: LicensePayload | undefined,
    used: number | undefined,
    now: number,
  ) {
    const entry = payload?.modules.find((m) => m.module === module);
    if (!entry) {
      const total = module === 'user' || module === 'app' ? unlicensedAllowance[module] : null;
      return {
        module,
        total,
        remaining: total !== null && used !== undefined ? Math.max(total - used, 0) : null,
        expiresAt: null,
        status: 'not_active' as LicenseStatus,
        reduceDay: null,
      };
    }
    const expires = Date.parse(entry.expiresAt);
    const total = entry.total ?? null;
    return {
      module,
      total,
      remaining: total !== null && used !== undefined ? Math.max(total - used, 0) : null,
      expiresAt: entry.expiresAt,
      status: (expires > now ? 'normal' : 'expired') as LicenseStatus,
      reduceDay: Math.ceil((expires - now) / DAY_MS),
    };
  }

  async function detail(from: Db = db) {
    const code = await applicationCode(from);
    const license = await activeLicense(from);
    const now = Date.now();
    const list = [];
    for (const module of licenseModules) {
      const counter = deps.counters[module];
      list.push(stateOf(module, license?.payload, counter ? await counter(from) : undefined, now));
    }
    return {
      applicationCode: code,
      licenseId: license?.payload.licenseId ?? null,
      customer: license?.payload.customer ?? null,
      issuedAt: license?.payload.issuedAt ?? null,
      importedAt: license?.row.imported_at.toISOString() ?? null,
      list,
    };
  }

  async function info() {
    const { list } = await detail();
    return {
      Info: list.map(({ module, status, reduceDay, expiresAt }) => ({
        module,
        status,
        reduceDay,
        expiresAt,
      })),
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
      return detail(trx);
    });
  }

  /** Refuses to add `adding` more of a counted function beyond the licence (or the unlicensed allowance). */
  async function assertQuantityAvailable(module: 'user' | 'app', adding: number, from: Db = db) {
    const license = await activeLicense(from);
    const entry = license?.payload.modules.find((m) => m.module === module);
    const usable = entry && Date.parse(entry.expiresAt) > Date.now();
    const total = usable ? (entry.total ?? 0) : unlicensedAllowance[module];
    const counter = deps.counters[module];
    const used = counter ? await counter(from) : 0;
    if (used + adding > total) throw new AppError('license.quantity_exceeded', { total, module });
  }

  return { applicationCode, detail, info, importLicense, assertQuantityAvailable };
}

export type LicenseService = ReturnType<typeof createLicenseService>;
