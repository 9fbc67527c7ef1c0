import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App, AppApiAccount } from '../../db/schema.ts';

/** SQL of the application module; every query is scoped to a company. */

export const findApp = (db: Db, companyId: string, appId: string): Promise<App | undefined> =>
  db
    .selectFrom('apps')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', appId)
    .executeTakeFirst();

export const findAppForUpdate = (db: Db, companyId: string, appId: string): Promise<App | undefined> =>
  db
    .selectFrom('apps')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', appId)
    .forUpdate()
    .executeTakeFirst();

export async function listApps(
  db: Db,
  companyId: string,
  query: { page: number; pageSize: number; keyword?: string; status?: App['status'] },
) {
  let base = db.selectFrom('apps').where('company_id', '=', companyId);
  if (query.keyword) {
    const pattern = `%${query.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('client_id', '=', query.keyword!)]));
  }
  if (query.status) base = base.where('status', '=', query.status);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Ends every token, code and grant issued to a client (a deleted app, a rotated secret). */
export async function revokeClientTokens(db: Db, clientId: string): Promise<void> {
  await db.deleteFrom('oidc_payloads').where(sql<string>`payload->>'clientId'`, '=', clientId).execute();
}

/** Ends the tokens and grants one person holds for one client (an assignment taken away). */
export async function revokeAccountTokens(db: Db, clientId: string, accountIds: string[]): Promise<void> {
  if (!accountIds.length) return;
  await db
    .deleteFrom('oidc_payloads')
    .where(sql<string>`payload->>'clientId'`, '=', clientId)
    .where(sql<string>`payload->>'accountId'`, 'in', accountIds)
    .execute();
}

export async function listAssignments(
  db: Db,
  appId: string,
  query: { page: number; pageSize: number; keyword?: string },
) {
  let base = db
    .selectFrom('app_assignments as a')
    .innerJoin('accounts as u', 'u.id', 'a.account_id')
    .where('a.app_id', '=', appId);
  if (query.keyword) {
    const pattern = `%${query.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) =>
      eb.or([eb('u.username', 'ilike', pattern), eb('u.display_name', 'ilike', pattern)]),
    );
  }
  const [rows, count] = await Promise.all([
    base
      .select([
        'a.account_id',
        'a.expires_at',
        'a.created_at',
        'u.username',
        'u.display_name',
        sql<boolean>`coalesce(a.expires_at <= now(), false)`.as('expired'),
      ])
      .orderBy('a.created_at', 'desc')
      .orderBy('a.account_id')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** Of the given accounts, those that are users of the company (any status). */
export async function companyUserIds(db: Db, companyId: string, accountIds: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('company_members')
    .select('account_id')
    .where('company_id', '=', companyId)
    .where('account_id', 'in', accountIds)
    .execute();
  return rows.map((row) => row.account_id);
}

export const listApiAccounts = (db: Db, appId: string) =>
  db
    .selectFrom('app_api_accounts')
    .selectAll()
    .select(sql<boolean>`coalesce(expires_at <= now(), false)`.as('expired'))
    .where('app_id', '=', appId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findApiAccount = (
  db: Db,
  appId: string,
  accountId: string,
): Promise<(AppApiAccount & { expired: boolean }) | undefined> =>
  db
    .selectFrom('app_api_accounts')
    .selectAll()
    .select(sql<boolean>`coalesce(expires_at <= now(), false)`.as('expired'))
    .where('app_id', '=', appId)
    .where('id', '=', accountId)
    .executeTakeFirst();

/** Whether a SAML app's service provider is set up enough to sign in to (an entity id and an ACS). */
/**
 * What a SAML app still lacks before it can be enabled: its service provider (entity id and an
 * ACS), or the value of a fixed attribute the catalogue left for the administrator (a cloud
 * console's role); null when nothing.
 */
export async function samlMissing(
  db: Db,
  appId: string,
): Promise<{ kind: 'settings' } | { kind: 'value'; attribute: string } | null> {
  const row = await db
    .selectFrom('app_saml_configs')
    .select(['entity_id', 'acs', 'attributes'])
    .where('app_id', '=', appId)
    .executeTakeFirst();
  if (!row?.entity_id || row.acs.length === 0) return { kind: 'settings' };
  const empty = row.attributes.find((a) => a.source === 'fixed' && !a.value);
  return empty ? { kind: 'value', attribute: empty.name } : null;
}

export const samlConfigured = async (db: Db, appId: string) => (await samlMissing(db, appId)) === null;

export const findFormConfig = (db: Db, appId: string) =>
  db.selectFrom('app_form_configs').selectAll().where('app_id', '=', appId).executeTakeFirst();

/** Applications of the whole installation: what the licence's application quantity counts. */
export async function countApps(from: Db): Promise<number> {
  const row = await from
    .selectFrom('apps')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
