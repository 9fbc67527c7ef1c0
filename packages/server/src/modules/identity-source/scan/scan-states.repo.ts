import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { type PurgeLimits, purgeBefore } from '../../../lib/batched-purge.ts';
import { randomToken, sha256 } from '../../../lib/crypto.ts';

/**
 * The OAuth `state` of a scan: random, stored hashed, valid ten minutes, used once, and bound to
 * what started it: the sign-in interaction, or the user-centre session that binds an account.
 */

export const SCAN_STATE_MINUTES = 10;

export interface ScanState {
  id: string;
  source_id: string;
  purpose: 'sign_in' | 'bind';
  interaction_uid: string | null;
  session_id: string | null;
}

/** Creates a state and answers its value (what goes to the provider). */
export async function createScanState(
  db: Db,
  state: { sourceId: string; purpose: 'sign_in' | 'bind'; interactionUid?: string; sessionId?: string },
): Promise<string> {
  const value = randomToken();
  await db
    .insertInto('scan_states')
    .values({
      id: sha256(value),
      source_id: state.sourceId,
      purpose: state.purpose,
      interaction_uid: state.interactionUid ?? null,
      session_id: state.sessionId ?? null,
      expires_at: sql<Date>`now() + make_interval(mins => ${SCAN_STATE_MINUTES})`,
    })
    .execute();
  return value;
}

/** The live (unused, unexpired) state of the value, for the source; nothing is changed. */
export async function findScanState(db: Db, sourceId: string, value: string): Promise<ScanState | undefined> {
  if (!value || value.length > 128) return undefined;
  return db
    .selectFrom('scan_states')
    .select(['id', 'source_id', 'purpose', 'interaction_uid', 'session_id'])
    .where('id', '=', sha256(value))
    .where('source_id', '=', sourceId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

/**
 * Uses the state once, if it is live and bound to `binding` (the interaction or the session):
 * of two requests with the same state, one gets it.
 */
export async function consumeScanState(
  db: Db,
  value: string,
  binding: { interactionUid: string } | { sessionId: string },
): Promise<ScanState | undefined> {
  if (!value || value.length > 128) return undefined;
  let query = db
    .updateTable('scan_states')
    .set({ used_at: sql<Date>`now()` })
    .where('id', '=', sha256(value))
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`);
  query =
    'interactionUid' in binding
      ? query.where('purpose', '=', 'sign_in').where('interaction_uid', '=', binding.interactionUid)
      : query.where('purpose', '=', 'bind').where('session_id', '=', binding.sessionId);
  return query.returning(['id', 'source_id', 'purpose', 'interaction_uid', 'session_id']).executeTakeFirst();
}

export async function purgeScanStates(db: Db, limits?: PurgeLimits): Promise<void> {
  await purgeBefore(db, 'scan_states', 'expires_at', sql<Date>`now() - interval '1 hour'`, limits);
}
