import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { type PurgeLimits, purgeBefore, purgeWhere } from '../../../lib/batched-purge.ts';
import { randomToken, type Sealer } from '../../../lib/crypto.ts';
import type { UpstreamIdentity } from './upstream-identity.ts';

/**
 * Where a Tessera single sign-on session came from (migration 40): the upstream source a person
 * signed in through and what its logout needs. Remembered with the sign-in interaction when the
 * provider's answer is accepted, bound to the session when the sign-in completes (the provider's
 * resume), taken when the session ends by a sign-out, and purged once the session is gone.
 */

const ID_TOKEN_PURPOSE = 'upstream-id-token';
/** A sign-in interaction lasts at most this long. */
const PENDING_MINUTES = 60;
/** An upper bound; the row goes with its session (purgeUpstreamLogoutState) well before. */
const BOUND_DAYS = 31;
/** How long a sign-out sent on to the provider may take to come back. */
export const LOGOUT_MINUTES = 10;

export type UpstreamSession = NonNullable<UpstreamIdentity['session']>;

/** Remembers what the provider's logout needs for the interaction's sign-in (the latest one counts). */
export async function rememberUpstreamSignIn(
  db: Db,
  sealer: Sealer,
  signIn: { interactionUid: string; sourceId: string; accountId: string; session: UpstreamSession },
) {
  const { session } = signIn;
  await db.deleteFrom('upstream_sessions').where('interaction_uid', '=', signIn.interactionUid).execute();
  await db
    .insertInto('upstream_sessions')
    .values({
      id: randomToken(16),
      source_id: signIn.sourceId,
      account_id: signIn.accountId,
      interaction_uid: signIn.interactionUid,
      id_token_sealed: session.idToken ? sealer.seal(session.idToken, ID_TOKEN_PURPOSE) : null,
      sid: session.sid,
      name_id: session.nameId ?? null,
      name_id_format: session.nameIdFormat ?? null,
      name_qualifier: session.nameQualifier ?? null,
      sp_name_qualifier: session.spNameQualifier ?? null,
      session_index: session.sessionIndex ?? null,
      expires_at: sql<Date>`now() + make_interval(mins => ${PENDING_MINUTES})`,
    })
    .execute();
}

/**
 * The sign-in of the interaction completed for the account in the single sign-on session: its
 * upstream session is now the session's (replacing one an earlier sign-in of the session left).
 */
export async function bindUpstreamSession(
  db: Db,
  signIn: { interactionUid: string; accountId: string; ssoSessionUid: string },
) {
  const pendingIn = (q: Db) =>
    q
      .selectFrom('upstream_sessions')
      .select('id')
      .where('interaction_uid', '=', signIn.interactionUid)
      .where('account_id', '=', signIn.accountId)
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirst();
  // Most sign-ins came through no upstream source: one statement says so, without a transaction.
  if (!(await pendingIn(db))) return;
  await db.transaction().execute(async (trx) => {
    const pending = await pendingIn(trx);
    if (!pending) return;
    await trx.deleteFrom('upstream_sessions').where('sso_session_uid', '=', signIn.ssoSessionUid).execute();
    await trx
      .updateTable('upstream_sessions')
      .set({
        interaction_uid: null,
        sso_session_uid: signIn.ssoSessionUid,
        expires_at: sql<Date>`now() + make_interval(days => ${BOUND_DAYS})`,
      })
      .where('id', '=', pending.id)
      .execute();
  });
}

/** Takes (and forgets) the upstream session of a single sign-on session that ends. */
export async function takeUpstreamSession(db: Db, sealer: Sealer, ssoSessionUid: string, accountId: string) {
  const row = await db
    .deleteFrom('upstream_sessions')
    .where('sso_session_uid', '=', ssoSessionUid)
    .where('account_id', '=', accountId)
    .returningAll()
    .executeTakeFirst();
  if (!row) return undefined;
  return { ...row, idToken: row.id_token_sealed ? sealer.open(row.id_token_sealed, ID_TOKEN_PURPOSE) : null };
}

export type TakenUpstreamSession = NonNullable<Awaited<ReturnType<typeof takeUpstreamSession>>>;

/**
 * The live single sign-on sessions made through the source for the NameID (and, when the
 * provider names them, one of its SessionIndexes): what a LogoutRequest of the provider ends.
 */
export async function findSessionsOfNameId(db: Db, sourceId: string, nameId: string, indexes: string[]) {
  let query = liveSessionsOf(db, sourceId).where('u.name_id', '=', nameId);
  if (indexes.length) query = query.where('u.session_index', 'in', indexes);
  return query.execute();
}

/**
 * The live single sign-on sessions made through the source in the provider's session `sid`
 * (OpenID Connect): what a back-channel logout token naming that `sid` ends.
 */
export async function findSessionsOfSid(db: Db, sourceId: string, sid: string) {
  return liveSessionsOf(db, sourceId).where('u.sid', '=', sid).execute();
}

/** The upstream sessions of the source bound to a single sign-on session that has not ended. */
function liveSessionsOf(db: Db, sourceId: string) {
  return db
    .selectFrom('upstream_sessions as u')
    .innerJoin('oidc_payloads as p', (join) =>
      join
        .on('p.model', '=', 'Session')
        .onRef('p.uid', '=', 'u.sso_session_uid')
        .onRef('p.account_id', '=', 'u.account_id'),
    )
    .select(['u.id', 'u.account_id', 'u.sso_session_uid'])
    .where('u.source_id', '=', sourceId)
    .where((eb) => eb.or([eb('p.expires_at', 'is', null), eb('p.expires_at', '>', sql<Date>`now()`)]));
}

export async function forgetUpstreamSessions(db: Db, ids: string[]) {
  if (ids.length) await db.deleteFrom('upstream_sessions').where('id', 'in', ids).execute();
}

/** A sign-out sent on to the provider: where the browser goes when it comes back with `id`. */
export async function insertUpstreamLogout(
  db: Db,
  logout: { id: string; sourceId: string; nextUrl: string },
) {
  await db
    .insertInto('upstream_logouts')
    .values({
      id: logout.id,
      source_id: logout.sourceId,
      next_url: logout.nextUrl,
      expires_at: sql<Date>`now() + make_interval(mins => ${LOGOUT_MINUTES})`,
    })
    .execute();
}

/** The sign-out under way with this id, used once: where the browser goes now. */
export async function takeUpstreamLogout(db: Db, sourceId: string, id: string) {
  if (!id || id.length > 256) return undefined;
  const row = await db
    .deleteFrom('upstream_logouts')
    .where('id', '=', id)
    .where('source_id', '=', sourceId)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('next_url')
    .executeTakeFirst();
  return row?.next_url;
}

/** Remembers a back-channel logout token's jti; false when it was accepted before (a replay). */
export async function rememberLogoutToken(db: Db, sourceId: string, jti: string, expiresAt: Date) {
  const row = await db
    .insertInto('upstream_logout_tokens')
    .values({ source_id: sourceId, jti, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['source_id', 'jti']).doNothing())
    .returning('jti')
    .executeTakeFirst();
  return Boolean(row);
}

/** Forgets expired sign-outs and token ids, and upstream sessions whose Tessera session is gone. */
export async function purgeUpstreamLogoutState(db: Db, limits?: PurgeLimits): Promise<void> {
  await purgeBefore(db, 'upstream_logouts', 'expires_at', undefined, limits);
  await purgeBefore(db, 'upstream_logout_tokens', 'expires_at', undefined, limits);
  await purgeWhere(
    db,
    'upstream_sessions',
    (rows) =>
      rows.where((eb) =>
        eb.or([
          eb('expires_at', '<', sql<Date>`now()`),
          eb.and([
            eb('sso_session_uid', 'is not', null),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('oidc_payloads as p')
                  .select(sql`1`.as('one'))
                  .where('p.model', '=', 'Session')
                  .whereRef('p.uid', '=', 'upstream_sessions.sso_session_uid')
                  .where((inner) =>
                    inner.or([
                      inner('p.expires_at', 'is', null),
                      inner('p.expires_at', '>', sql<Date>`now()`),
                    ]),
                  ),
              ),
            ),
          ]),
        ]),
      ),
    limits,
  );
}
