import { casServiceMatches, type cas as contract } from '@tessera/contract';
import type { Updateable } from 'kysely';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { AppCasConfig, AppCasConfigsTable } from '../../db/schema-cas.ts';
import { AppError } from '../../lib/errors.ts';
import { protocolSettingsOf } from '../app/protocol-app.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { findCasConfig } from './cas.repo.ts';

type Body<C> = z.output<C extends { request: infer R extends z.ZodType } ? R : never>;
type Settings = z.output<typeof contract.casSettings>;

/** Where a company's CAS server is: `/login`, `/serviceValidate`, … are under it. */
export const CAS_MOUNT = '/cas';
export const casServerUrl = (publicUrl: string, companyId: string) =>
  `${publicUrl}${CAS_MOUNT}/${encodeURIComponent(companyId)}`;

/** The settings of an app without any yet: no service allowed, the specification's defaults. */
const blank = (appId: string, companyId: string): AppCasConfig => ({
  app_id: appId,
  company_id: companyId,
  service_patterns: [],
  attributes: ['username', 'name', 'email'],
  ticket_ttl: 10,
  allow_proxy: false,
  slo_enabled: true,
  slo_url: null,
  updated_at: new Date(0),
});

/** A catalogue CAS app's settings: its address as a prefix pattern. */
export const casTemplateSettings = (baseUrl: string) => ({
  service_patterns: JSON.stringify([{ kind: 'prefix', value: baseUrl }]),
});

export interface CasActor {
  accountId: string;
  ip: string | null;
}

/** The console's CAS calls: an application's CAS settings. Each change is one transaction with its audit event. */
export function createCasConfigService(deps: { db: Db; publicUrl: string }) {
  const { db } = deps;
  const settingsOf = (row: AppCasConfig): Settings => ({
    serverUrl: casServerUrl(deps.publicUrl, row.company_id),
    servicePatterns: row.service_patterns,
    attributes: row.attributes,
    ticketTtl: row.ticket_ttl,
    allowProxy: row.allow_proxy,
    sloUrl: row.slo_url,
    sloEnabled: row.slo_enabled,
  });

  const casApp = (trx: Db, companyId: string, appId: string, lock = false) =>
    protocolSettingsOf(
      trx,
      companyId,
      appId,
      { name: 'cas', otherProtocol: 'cas.not_cas_app', findSettings: findCasConfig, blank },
      lock,
    );

  async function detail(companyId: string, appId: string) {
    return settingsOf((await casApp(db, companyId, appId)).config);
  }

  async function update(actor: CasActor, companyId: string, body: Body<typeof contract.updateCas>) {
    return db.transaction().execute(async (trx) => {
      const { config: before } = await casApp(trx, companyId, body.appId, true);
      const set: Updateable<AppCasConfigsTable> = {};
      if (body.servicePatterns !== undefined) set.service_patterns = JSON.stringify(body.servicePatterns);
      if (body.attributes !== undefined) set.attributes = JSON.stringify([...new Set(body.attributes)]);
      if (body.ticketTtl !== undefined) set.ticket_ttl = body.ticketTtl;
      if (body.allowProxy !== undefined) set.allow_proxy = body.allowProxy;
      if (body.sloEnabled !== undefined) set.slo_enabled = body.sloEnabled;
      if (body.sloUrl !== undefined) set.slo_url = body.sloUrl;
      const patterns = body.servicePatterns ?? before.service_patterns;
      const sloUrl = body.sloUrl === undefined ? before.slo_url : body.sloUrl;
      // Single logout goes only where the administrator lets tickets go.
      if (sloUrl && !patterns.some((pattern) => casServiceMatches(pattern, sloUrl)))
        throw new AppError('cas.slo_url_invalid');
      const values = { ...set, updated_at: new Date() };
      const after = await trx
        .insertInto('app_cas_configs')
        .values({ app_id: before.app_id, company_id: companyId, ...values })
        .onConflict((oc) => oc.column('app_id').doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx.updateTable('apps').set({ updated_at: new Date() }).where('id', '=', before.app_id).execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'app.cas.update',
        targetType: 'app',
        targetId: before.app_id,
        before: settingsOf(before),
        after: settingsOf(after),
        ip: actor.ip,
      });
      return settingsOf(after);
    });
  }

  return { detail, update };
}

export type CasConfigService = ReturnType<typeof createCasConfigService>;
