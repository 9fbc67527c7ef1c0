import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ConsoleSession, ConsoleSessionsTable } from '../../db/schema.ts';
import { type PurgeLimits, purgeWhere } from '../../lib/batched-purge.ts';
import { preparedStatement } from '../../lib/prepared.ts';

/**
 * A live session: not revoked, within both expiries, of an enabled account whose password has not
 * changed since; with what a refresh needs (so that it reads the session once). Every console
 * call runs it: compiled once.
 */
const liveSession = preparedStatement((db, where: { tokenHash: string; variants: string[] }) =>
  db
    .selectFrom('console_sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select([
      's.id',
      's.account_id',
      's.variant',
      's.last_seen_at',
      's.absolute_expires_at',
      's.refresh_token_sealed',
      's.id_token',
      'a.username',
      'a.is_platform_admin',
    ])
    .where('s.token_hash', '=', where.tokenHash)
    .where(sql<boolean>`s.variant = any(${where.variants}::text[])`)
    .where('s.revoked_at', 'is', null)
    .where('s.idle_expires_at', '>', sql<Date>`now()`)
    .where('s.absolute_expires_at', '>', sql<Date>`now()`)
    .where('a.status', '=', 'enabled')
    // A password change ends every session that started before it, whichever code path changed it.
    .whereRef('a.credential_version', '=', 's.credential_version'),
);

/** Swaps the token of a live session (every refresh). */
const swapToken = preparedStatement(
  (
    db,
    change: {
      id: string;
      oldHash: string;
      token_hash: string;
      refresh_token_sealed: string | null;
      id_token: string | null;
      idle_expires_at: Date;
    },
  ) =>
    db
      .updateTable('console_sessions')
      .set({
        token_hash: change.token_hash,
        refresh_token_sealed: change.refresh_token_sealed,
        id_token: change.id_token,
        idle_expires_at: change.idle_expires_at,
        last_seen_at: sql<Date>`now()`,
      })
      .where('id', '=', change.id)
      .where('token_hash', '=', change.oldHash)
      .where('revoked_at', 'is', null),
);

export function createSessionsRepo(db: Db) {
  return {
    /** The session starts at the account's current credential version. */
    insertSession: (session: Omit<Insertable<ConsoleSessionsTable>, 'credential_version'>) =>
      db
        .insertInto('console_sessions')
        .values((eb) => ({
          ...session,
          credential_version: eb
            .selectFrom('accounts')
            .select('credential_version')
            .where('id', '=', session.account_id),
        }))
        .execute(),

    findLiveSessionByTokenHash: async (
      tokenHash: string,
      variants: readonly ('admin' | 'dev' | 'portal')[],
    ) => (await db.executeQuery(liveSession(db, { tokenHash, variants: [...variants] }))).rows[0],

    findSessionById: (id: string): Promise<ConsoleSession | undefined> =>
      db.selectFrom('console_sessions').selectAll().where('id', '=', id).executeTakeFirst(),

    touchSession: (id: string, idleExpiresAt: Date) =>
      db
        .updateTable('console_sessions')
        .set({ last_seen_at: sql<Date>`now()`, idle_expires_at: idleExpiresAt })
        .where('id', '=', id)
        .execute(),

    /** Swaps the token of a live session atomically; false when it was revoked meanwhile. */
    replaceSessionToken: async (
      id: string,
      oldHash: string,
      update: {
        token_hash: string;
        refresh_token_sealed: string | null;
        id_token: string | null;
        idle_expires_at: Date;
      },
    ) => {
      const result = await db.executeQuery(swapToken(db, { id, oldHash, ...update }));
      return Number(result.numAffectedRows) === 1;
    },

    revokeSession: (id: string) =>
      db
        .updateTable('console_sessions')
        .set({ revoked_at: sql<Date>`now()` })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute(),

    revokeSessionsOfAccount: (accountId: string) =>
      db
        .updateTable('console_sessions')
        .set({ revoked_at: sql<Date>`now()` })
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .execute(),
  };
}

export type SessionsRepo = ReturnType<typeof createSessionsRepo>;

/**
 * Deletes the console sessions that ended a day ago or more (revoked, idle or past their absolute
 * expiry): nothing reads them again, and every console sign-in adds one (job `maintenance.purge`).
 */
export function purgeEndedConsoleSessions(db: Db, limits?: PurgeLimits): Promise<number> {
  const dayAgo = sql<Date>`now() - interval '1 day'`;
  return purgeWhere(
    db,
    'console_sessions',
    (rows) =>
      rows.where((eb) =>
        eb.or([
          eb('revoked_at', '<', dayAgo),
          eb('idle_expires_at', '<', dayAgo),
          eb('absolute_expires_at', '<', dayAgo),
        ]),
      ),
    limits,
  );
}
