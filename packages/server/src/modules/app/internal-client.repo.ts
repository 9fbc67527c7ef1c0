import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';

/**
 * SQL shared by the protocols whose sign-ins are authorizations of an application's internal
 * OIDC client (SAML, CAS): the provider's records of a sign-in, and an application of one
 * protocol with its settings.
 */

/** The provider's single sign-on session by its uid, while it lasts: whose it is and until when. */
export async function findSsoSession(db: Db, uid: string) {
  const row = await db
    .selectFrom('oidc_payloads')
    .select(['account_id', 'expires_at'])
    .where('model', '=', 'Session')
    .where('uid', '=', uid)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .executeTakeFirst();
  return row?.account_id ? { accountId: row.account_id, expiresAt: row.expires_at } : undefined;
}

/** What an authorization code says of its sign-in (read before the code is exchanged). */
export async function findAuthorizationCode(db: Db, code: string) {
  const row = await db
    .selectFrom('oidc_payloads')
    .select('payload')
    .where('model', '=', 'AuthorizationCode')
    .where('id', '=', code)
    .executeTakeFirst();
  if (!row) return undefined;
  const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<
    string,
    unknown
  >;
  return {
    accountId: typeof payload.accountId === 'string' ? payload.accountId : undefined,
    sessionUid: typeof payload.sessionUid === 'string' ? payload.sessionUid : undefined,
    authTime: typeof payload.authTime === 'number' ? payload.authTime : undefined,
    amr: Array.isArray(payload.amr) ? (payload.amr as string[]) : [],
  };
}

/** An application of one protocol with its stored settings, by id (any company). */
export async function findAppWithSettings<Config>(
  db: Db,
  appId: string,
  protocol: App['protocol'],
  findSettings: (db: Db, appId: string) => Promise<Config | undefined>,
): Promise<{ app: App; config: Config } | undefined> {
  const app = await db
    .selectFrom('apps')
    .selectAll()
    .where('id', '=', appId)
    .where('protocol', '=', protocol)
    .executeTakeFirst();
  const config = app && (await findSettings(db, app.id));
  return app && config ? { app, config } : undefined;
}

/** A company's application by id, locked for update when asked. */
export async function findCompanyApp(db: Db, companyId: string, appId: string, lock: boolean) {
  let query = db.selectFrom('apps').selectAll().where('company_id', '=', companyId).where('id', '=', appId);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}
