import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { AppSamlConfig, SamlFlow, SamlSession } from '../../db/schema-saml.ts';
import { type PurgeLimits, purgeBefore, purgeWhere } from '../../lib/batched-purge.ts';
import { findAppWithSettings } from '../app/internal-client.repo.ts';

/** SQL of the SAML module. */

export const findSamlConfig = (db: Db, appId: string): Promise<AppSamlConfig | undefined> =>
  db.selectFrom('app_saml_configs').selectAll().where('app_id', '=', appId).executeTakeFirst();

/** A company's SAML application by its service provider's entity id, with its settings. */
export async function findServiceProvider(
  db: Db,
  companyId: string,
  entityId: string,
): Promise<{ app: App; config: AppSamlConfig } | undefined> {
  const config = await db
    .selectFrom('app_saml_configs')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('entity_id', '=', entityId)
    .executeTakeFirst();
  if (!config) return undefined;
  const app = await db
    .selectFrom('apps')
    .selectAll()
    .where('id', '=', config.app_id)
    .where('protocol', '=', 'saml')
    .executeTakeFirst();
  return app ? { app, config } : undefined;
}

/** A SAML application with its settings, by id. */
export const findSamlApp = (
  db: Db,
  appId: string,
): Promise<{ app: App; config: AppSamlConfig } | undefined> =>
  findAppWithSettings(db, appId, 'saml', findSamlConfig);

/**
 * Remembers a received message id until `expiresAt`; false when it was seen already (a replay),
 * whichever server instance saw it first.
 */
export async function rememberMessageId(
  db: Db,
  appId: string,
  messageId: string,
  expiresAt: Date,
): Promise<boolean> {
  const inserted = await db
    .insertInto('saml_seen_messages')
    .values({ app_id: appId, message_id: messageId, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['app_id', 'message_id']).doNothing())
    .returning('message_id')
    .executeTakeFirst();
  return Boolean(inserted);
}

export async function insertFlow(db: Db, flow: Omit<SamlFlow, 'created_at' | 'consumed_at'>): Promise<void> {
  await db.insertInto('saml_flows').values(flow).execute();
}

/** Takes a sign-in under way, once: a second callback with the same state finds nothing. */
export const consumeFlow = (db: Db, flowId: string): Promise<SamlFlow | undefined> =>
  db
    .updateTable('saml_flows')
    .set({ consumed_at: sql<Date>`now()` })
    .where('id', '=', flowId)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returningAll()
    .executeTakeFirst();

/** The person's live session at a service provider within one single sign-on session, if any. */
export const findLiveSamlSession = (db: Db, appId: string, accountId: string, ssoSessionUid: string) =>
  db
    .selectFrom('saml_sessions')
    .selectAll()
    .where('app_id', '=', appId)
    .where('account_id', '=', accountId)
    .where('sso_session_uid', '=', ssoSessionUid)
    .where('ended_at', 'is', null)
    .executeTakeFirst();

/** Records a session at a service provider, or extends the one it continues (same SessionIndex). */
export async function saveSamlSession(
  db: Db,
  session: Omit<SamlSession, 'created_at' | 'ended_at' | 'logout_request_id'>,
  existing: boolean,
): Promise<void> {
  if (existing)
    await db
      .updateTable('saml_sessions')
      .set({
        name_id: session.name_id,
        name_id_format: session.name_id_format,
        expires_at: session.expires_at,
      })
      .where('id', '=', session.id)
      .execute();
  else await db.insertInto('saml_sessions').values(session).execute();
}

/** The live SAML sessions of one single sign-on session (of its person). */
export const sessionsOfSso = (db: Db, ssoSessionUid: string, accountId: string): Promise<SamlSession[]> =>
  db
    .selectFrom('saml_sessions')
    .selectAll()
    .where('sso_session_uid', '=', ssoSessionUid)
    .where('account_id', '=', accountId)
    .where('ended_at', 'is', null)
    .orderBy('created_at')
    .execute();

/** A person's live session at a service provider named by a LogoutRequest (NameID, SessionIndex). */
export async function findSessionForLogout(
  db: Db,
  appId: string,
  nameId: string,
  sessionIndexes: string[],
): Promise<SamlSession | undefined> {
  let query = db
    .selectFrom('saml_sessions')
    .selectAll()
    .where('app_id', '=', appId)
    .where('name_id', '=', nameId)
    .where('ended_at', 'is', null);
  if (sessionIndexes.length) query = query.where('id', 'in', sessionIndexes);
  return query.orderBy('created_at', 'desc').executeTakeFirst();
}

/**
 * Marks the next SAML session of an ended single sign-on session as logged out, with the id of
 * the LogoutRequest about to be sent; of parallel requests, each session goes to one.
 */
export async function takeNextForLogout(db: Db, ssoSessionUid: string, accountId: string, requestId: string) {
  return db
    .updateTable('saml_sessions')
    .set({ ended_at: sql<Date>`now()`, logout_request_id: requestId })
    .where(
      'id',
      '=',
      db
        .selectFrom('saml_sessions')
        .select('id')
        .where('sso_session_uid', '=', ssoSessionUid)
        .where('account_id', '=', accountId)
        .where('ended_at', 'is', null)
        .orderBy('created_at')
        .limit(1),
    )
    .where('ended_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** The session whose LogoutRequest this LogoutResponse answers; the id is then used up. */
export const consumeLogoutRequest = (db: Db, appId: string, requestId: string) =>
  db
    .updateTable('saml_sessions')
    .set({ logout_request_id: null })
    .where('app_id', '=', appId)
    .where('logout_request_id', '=', requestId)
    .returningAll()
    .executeTakeFirst();

/** The single logout under way for a single sign-on session, if one is. */
export const findLogoutChain = (db: Db, ssoSessionUid: string, accountId: string) =>
  db
    .selectFrom('saml_logout_chains')
    .select('id')
    .where('sso_session_uid', '=', ssoSessionUid)
    .where('account_id', '=', accountId)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();

export async function endSamlSession(db: Db, sessionId: string): Promise<void> {
  await db
    .updateTable('saml_sessions')
    .set({ ended_at: sql<Date>`now()` })
    .where('id', '=', sessionId)
    .where('ended_at', 'is', null)
    .execute();
}

/** Removes what no sign-in or logout can need any more. */
export async function purgeSamlState(db: Db, limits?: PurgeLimits): Promise<void> {
  await purgeBefore(db, 'saml_flows', 'expires_at', undefined, limits);
  await purgeBefore(db, 'saml_seen_messages', 'expires_at', undefined, limits);
  await purgeBefore(db, 'saml_logout_chains', 'expires_at', undefined, limits);
  await purgeWhere(
    db,
    'saml_sessions',
    (rows) =>
      rows.where((eb) =>
        eb.or([
          eb('expires_at', '<', sql<Date>`now()`),
          eb('ended_at', '<', sql<Date>`now() - interval '1 hour'`),
        ]),
      ),
    limits,
  );
}
