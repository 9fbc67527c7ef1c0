import type { IdentitySourceType, identitySource, samlSource } from '@tessera/contract';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';

/**
 * Identity sources and what links them to the company (migration 13). Every function takes the
 * company first where a row belongs to one: another company's source is never found.
 */

type Out<T extends z.ZodType> = z.output<T>;
/** The stored settings of each type: the contract's, without name, state, secret and schedule (columns). */
export type LdapSettings = Omit<
  Out<typeof identitySource.ldapSettings>,
  'name' | 'enabled' | 'bindPassword' | 'syncIntervalMinutes'
>;
export type DingtalkSettings = Omit<
  Out<typeof identitySource.dingtalkSettings>,
  'name' | 'enabled' | 'appSecret' | 'syncIntervalMinutes'
>;
export type WeixinSettings = Omit<
  Out<typeof identitySource.weixinSettings>,
  'name' | 'enabled' | 'appSecret'
>;
export type WorkWeixinSettings = Omit<
  Out<typeof identitySource.workWeixinSettings>,
  'name' | 'enabled' | 'secret' | 'syncIntervalMinutes'
>;
export type OidcSettings = Omit<Out<typeof identitySource.oidcSettings>, 'name' | 'enabled' | 'clientSecret'>;
/** An upstream SAML identity provider: its settings, and the certificate of Tessera's key for it. */
export type SamlSettings = Omit<Out<typeof samlSource.samlSourceSettings>, 'name' | 'enabled'> & {
  /** Base64 DER of the certificate Tessera signs its AuthnRequests with (the key is the source's secret). */
  spCertificate: string;
};
export interface SettingsByType {
  ldap: LdapSettings;
  dingtalk: DingtalkSettings;
  weixin: WeixinSettings;
  work_weixin: WorkWeixinSettings;
  oidc: OidcSettings;
  saml: SamlSettings;
}

export interface SourceRow<T extends IdentitySourceType = IdentitySourceType> {
  id: string;
  company_id: string;
  type: T;
  name: string;
  enabled: boolean;
  settings: SettingsByType[T];
  secret_sealed: string | null;
  sync_interval_minutes: number;
  created_at: Date;
}

export type AnySource = { [T in IdentitySourceType]: SourceRow<T> }[IdentitySourceType];

const columns = [
  'id',
  'company_id',
  'type',
  'name',
  'enabled',
  'settings',
  'secret_sealed',
  'sync_interval_minutes',
  'created_at',
] as const;

export async function findSources(db: Db, companyId: string): Promise<AnySource[]> {
  const rows = await db
    .selectFrom('identity_sources')
    .select(columns)
    .where('company_id', '=', companyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows as AnySource[];
}

export function findSource(db: Db, companyId: string, sourceId: string): Promise<AnySource | undefined> {
  return findCompanySource(db, companyId, sourceId, false);
}

/** A source by id alone: for the scan callback, whose address names the source (then checked against its company). */
export async function findSourceById(db: Db, sourceId: string): Promise<AnySource | undefined> {
  if (sourceId.length > 64) return undefined;
  const row = await db
    .selectFrom('identity_sources')
    .select(columns)
    .where('id', '=', sourceId)
    .executeTakeFirst();
  return row as AnySource | undefined;
}

/** The source, locked for the rest of the transaction. */
export function lockSource(db: Db, companyId: string, sourceId: string): Promise<AnySource | undefined> {
  return findCompanySource(db, companyId, sourceId, true);
}

async function findCompanySource(db: Db, companyId: string, sourceId: string, lock: boolean) {
  let query = db
    .selectFrom('identity_sources')
    .select(columns)
    .where('company_id', '=', companyId)
    .where('id', '=', sourceId);
  if (lock) query = query.forUpdate();
  return (await query.executeTakeFirst()) as AnySource | undefined;
}

/** The enabled sources of some types of a company, oldest first (what its sign-in page offers). */
export async function findEnabledSources(
  db: Db,
  companyId: string,
  types: readonly IdentitySourceType[],
): Promise<AnySource[]> {
  const rows = await db
    .selectFrom('identity_sources')
    .select(columns)
    .where('company_id', '=', companyId)
    .where('enabled', '=', true)
    .where('type', 'in', [...types])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows as AnySource[];
}

/** When the next scheduled sync is due: now + the interval, or never. */
const nextSyncAt = (minutes: number) =>
  minutes > 0 ? sql<Date>`now() + make_interval(mins => ${minutes})` : null;

export async function insertSource(
  db: Db,
  companyId: string,
  source: {
    /** Chosen by the caller: the sealed secret is bound to it. */
    id: string;
    type: IdentitySourceType;
    name: string;
    enabled: boolean;
    settings: unknown;
    secretSealed: string | null;
    syncIntervalMinutes: number;
  },
): Promise<string> {
  const { id } = source;
  await db
    .insertInto('identity_sources')
    .values({
      id,
      company_id: companyId,
      type: source.type,
      name: source.name,
      enabled: source.enabled,
      settings: JSON.stringify(source.settings),
      secret_sealed: source.secretSealed,
      sync_interval_minutes: source.syncIntervalMinutes,
      next_sync_at: nextSyncAt(source.syncIntervalMinutes),
    })
    .execute();
  return id;
}

export async function updateSource(
  db: Db,
  companyId: string,
  sourceId: string,
  set: {
    name: string;
    enabled: boolean;
    settings: unknown;
    secretSealed: string | null;
    syncIntervalMinutes: number;
    scheduleChanged: boolean;
  },
): Promise<void> {
  await db
    .updateTable('identity_sources')
    .set({
      name: set.name,
      enabled: set.enabled,
      settings: JSON.stringify(set.settings),
      secret_sealed: set.secretSealed,
      sync_interval_minutes: set.syncIntervalMinutes,
      ...(set.scheduleChanged ? { next_sync_at: nextSyncAt(set.syncIntervalMinutes) } : {}),
      updated_at: sql<Date>`now()`,
    })
    .where('company_id', '=', companyId)
    .where('id', '=', sourceId)
    .execute();
}

export async function setSourceEnabled(db: Db, companyId: string, sourceId: string, enabled: boolean) {
  await db
    .updateTable('identity_sources')
    .set({ enabled, updated_at: sql<Date>`now()` })
    .where('company_id', '=', companyId)
    .where('id', '=', sourceId)
    .execute();
}

export async function deleteSource(db: Db, companyId: string, sourceId: string): Promise<void> {
  await db
    .deleteFrom('identity_sources')
    .where('company_id', '=', companyId)
    .where('id', '=', sourceId)
    .execute();
}

/** How many people of the company each source links (what deleting a source concerns). */
export async function countLinkedPeople(db: Db, companyId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('identity_links')
    .select(['source_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('company_id', '=', companyId)
    .groupBy('source_id')
    .execute();
  return new Map(rows.map((row) => [row.source_id, Number(row.n)]));
}

/**
 * Claims the sources whose scheduled sync is due (moving their next time on in the same
 * statement, so that of several instances only one gets each) and answers them.
 */
export async function claimDueSyncs(db: Db): Promise<{ id: string; company_id: string }[]> {
  return db
    .updateTable('identity_sources')
    .set({ next_sync_at: sql<Date>`now() + make_interval(mins => sync_interval_minutes)` })
    .where('sync_interval_minutes', '>', 0)
    .where('enabled', '=', true)
    .where('next_sync_at', '<=', sql<Date>`now()`)
    .returning(['id', 'company_id'])
    .execute();
}

// ---- links between people and source entries

export interface LinkRow {
  source_id: string;
  company_id: string;
  account_id: string;
  external_id: string;
  external_dn: string | null;
  external_name: string | null;
  disabled_by_sync: boolean;
}

export async function findLinkByExternalId(db: Db, sourceId: string, externalId: string) {
  return db
    .selectFrom('identity_links')
    .selectAll()
    .where('source_id', '=', sourceId)
    .where('external_id', '=', externalId)
    .executeTakeFirst() as Promise<LinkRow | undefined>;
}

export async function findLinkOfAccount(db: Db, sourceId: string, accountId: string) {
  return db
    .selectFrom('identity_links')
    .selectAll()
    .where('source_id', '=', sourceId)
    .where('account_id', '=', accountId)
    .executeTakeFirst() as Promise<LinkRow | undefined>;
}

export async function insertLink(
  db: Db,
  link: Omit<LinkRow, 'disabled_by_sync'> & { disabled_by_sync?: boolean },
): Promise<void> {
  await db
    .insertInto('identity_links')
    .values({ ...link, disabled_by_sync: link.disabled_by_sync ?? false })
    .execute();
}

export async function updateLinkNames(
  db: Db,
  sourceId: string,
  accountId: string,
  set: { external_dn?: string | null; external_name?: string | null; disabled_by_sync?: boolean },
): Promise<void> {
  await db
    .updateTable('identity_links')
    .set({ ...set, updated_at: sql<Date>`now()` })
    .where('source_id', '=', sourceId)
    .where('account_id', '=', accountId)
    .execute();
}

export async function deleteLink(db: Db, sourceId: string, accountId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('identity_links')
    .where('source_id', '=', sourceId)
    .where('account_id', '=', accountId)
    .returning('account_id')
    .executeTakeFirst();
  return Boolean(row);
}

/** Whether the account is linked to an LDAP source (its password is the directory's: no local resets or links). */
export async function isDirectoryAccount(db: Db, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('identity_links as l')
    .innerJoin('identity_sources as s', 's.id', 'l.source_id')
    .select('l.account_id')
    .where('l.account_id', '=', accountId)
    .where('s.type', '=', 'ldap')
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}
