import { casServiceMatches } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { AppCasConfig, CasFlow, CasTicket } from '../../db/schema-cas.ts';
import { type PurgeLimits, purgeBefore, purgeWhere } from '../../lib/batched-purge.ts';
import { findAppWithSettings } from '../app/internal-client.repo.ts';

/** SQL of the CAS module. */

export const findCasConfig = (db: Db, appId: string): Promise<AppCasConfig | undefined> =>
  db.selectFrom('app_cas_configs').selectAll().where('app_id', '=', appId).executeTakeFirst();

/** A CAS application with its settings, by id. */
export const findCasApp = (db: Db, appId: string): Promise<{ app: App; config: AppCasConfig } | undefined> =>
  findAppWithSettings(db, appId, 'cas', findCasConfig);

/**
 * The company's CAS application whose service URL patterns allow a service; of several, the one
 * created first (the same answer on every instance).
 */
export async function findCasAppForService(
  db: Db,
  companyId: string,
  service: string,
): Promise<{ app: App; config: AppCasConfig } | undefined> {
  const configs = await db
    .selectFrom('app_cas_configs')
    .innerJoin('apps', 'apps.id', 'app_cas_configs.app_id')
    .selectAll('app_cas_configs')
    .where('app_cas_configs.company_id', '=', companyId)
    .where('apps.protocol', '=', 'cas')
    .orderBy('apps.created_at')
    .orderBy('apps.id')
    .execute();
  const config = configs.find((row) => row.service_patterns.some((p) => casServiceMatches(p, service)));
  if (!config) return undefined;
  const app = await db.selectFrom('apps').selectAll().where('id', '=', config.app_id).executeTakeFirst();
  return app ? { app, config } : undefined;
}

/** Whether a CAS application can be enabled: it has a service URL pattern. */
export async function casConfigured(db: Db, appId: string): Promise<boolean> {
  const config = await findCasConfig(db, appId);
  return Boolean(config?.service_patterns.length);
}

export async function insertCasFlow(
  db: Db,
  flow: Omit<CasFlow, 'created_at' | 'consumed_at'>,
): Promise<void> {
  await db.insertInto('cas_flows').values(flow).execute();
}

/** Takes a sign-in under way, once. */
export const consumeCasFlow = (db: Db, flowId: string): Promise<CasFlow | undefined> =>
  db
    .updateTable('cas_flows')
    .set({ consumed_at: sql<Date>`now()` })
    .where('id', '=', flowId)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returningAll()
    .executeTakeFirst();

export type NewTicket = Omit<
  CasTicket,
  'created_at' | 'consumed_at' | 'validated_at' | 'logout_sent_at' | 'proxies'
> & { proxies: string[] };

export async function insertTicket(db: Db, ticket: NewTicket): Promise<void> {
  await db
    .insertInto('cas_tickets')
    .values({ ...ticket, proxies: JSON.stringify(ticket.proxies) })
    .execute();
}

/**
 * Uses a service or proxy ticket up: of any number of validations at once, on any instance, one
 * gets the row; the others (and every later one) get nothing. An expired ticket is used up too.
 */
export const consumeTicket = (db: Db, id: string, kinds: readonly ('ST' | 'PT')[]) =>
  db
    .updateTable('cas_tickets')
    .set({ consumed_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('kind', 'in', [...kinds])
    .where('consumed_at', 'is', null)
    .returning([
      'id',
      'kind',
      'company_id',
      'app_id',
      'account_id',
      'sso_session_uid',
      'service',
      'renewed',
      'proxies',
      'authenticated_at',
      'expires_at',
      sql<boolean>`expires_at <= now()`.as('expired'),
    ])
    .executeTakeFirst();

/** Whether a ticket of another kind has this id (a PT at /serviceValidate is INVALID_TICKET_SPEC). */
export const ticketKindOf = async (db: Db, id: string) =>
  (await db.selectFrom('cas_tickets').select('kind').where('id', '=', id).executeTakeFirst())?.kind;

/** A live proxy-granting ticket. */
export const findLivePgt = (db: Db, id: string) =>
  db
    .selectFrom('cas_tickets')
    .selectAll()
    .where('id', '=', id)
    .where('kind', '=', 'PGT')
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();

export async function markValidated(db: Db, id: string): Promise<void> {
  await db.updateTable('cas_tickets').set({ validated_at: sql<Date>`now()` }).where('id', '=', id).execute();
}

/**
 * The validated service tickets of an ended single sign-on session that single logout has not
 * reached yet, claimed: of parallel sign-outs, each ticket goes to one. The proxy-granting tickets
 * of the session end with it. With a company, only the tickets of that company's applications
 * (the person leaves that company's applications; the session goes on for the others).
 */
export async function claimTicketsForLogout(
  db: Db,
  ssoSessionUid: string,
  accountId: string,
  companyId?: string,
) {
  let pgts = db
    .updateTable('cas_tickets')
    .set({ expires_at: sql<Date>`now()` })
    .where('sso_session_uid', '=', ssoSessionUid)
    .where('account_id', '=', accountId)
    .where('kind', '=', 'PGT');
  if (companyId) pgts = pgts.where('company_id', '=', companyId);
  await pgts.execute();
  let sts = db
    .updateTable('cas_tickets')
    .set({ logout_sent_at: sql<Date>`now()` })
    .where('sso_session_uid', '=', ssoSessionUid)
    .where('account_id', '=', accountId)
    .where('kind', '=', 'ST')
    .where('validated_at', 'is not', null)
    .where('logout_sent_at', 'is', null);
  if (companyId) sts = sts.where('company_id', '=', companyId);
  return sts.returning(['id', 'app_id', 'service']).execute();
}

/** Removes what no sign-in, validation or logout can need any more. */
export async function purgeCasState(db: Db, limits?: PurgeLimits): Promise<void> {
  await purgeBefore(db, 'cas_flows', 'expires_at', undefined, limits);
  await purgeWhere(
    db,
    'cas_tickets',
    (rows) =>
      rows.where((eb) =>
        eb.or([
          // Never validated, or a proxy-granting ticket: useless once expired.
          eb.and([eb('expires_at', '<', sql<Date>`now()`), eb('validated_at', 'is', null)]),
          eb.and([eb('kind', '=', 'PGT'), eb('expires_at', '<', sql<Date>`now()`)]),
          // A session at a service: kept for single logout while the sign-on session can last.
          eb('created_at', '<', sql<Date>`now() - interval '30 days'`),
          eb('logout_sent_at', '<', sql<Date>`now() - interval '1 hour'`),
        ]),
      ),
    limits,
  );
}

/**
 * Where "My apps" opens a CAS application: its home page, else the address of its first exact or
 * prefix pattern (the application then sends the person to its CAS server).
 */
export async function casLaunchUrl(db: Db, app: Pick<App, 'id' | 'home_url'>): Promise<string | null> {
  const config = await findCasConfig(db, app.id);
  if (!config?.service_patterns.length) return null;
  if (app.home_url) return app.home_url;
  return config.service_patterns.find((pattern) => pattern.kind !== 'regex')?.value ?? null;
}
