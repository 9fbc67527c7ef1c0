import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { type PurgeLimits, purgeBefore } from '../../../lib/batched-purge.ts';

/**
 * The state of SAML source sign-ins (migration 36): the AuthnRequests under way, each bound to
 * the interaction it was sent for, and the assertion ids already used.
 */

/** How long an upstream may take to answer an AuthnRequest. */
export const REQUEST_MINUTES = 10;

export async function insertRequest(
  db: Db,
  request: { id: string; sourceId: string; interactionUid: string },
) {
  await db
    .insertInto('saml_source_requests')
    .values({
      id: request.id,
      source_id: request.sourceId,
      interaction_uid: request.interactionUid,
      expires_at: sql<Date>`now() + make_interval(mins => ${REQUEST_MINUTES})`,
    })
    .execute();
}

/** When a live, unanswered request of the source was sent (what node-saml's InResponseTo check asks). */
export async function findOpenRequest(db: Db, sourceId: string, requestId: string) {
  if (requestId.length > 256) return undefined;
  return db
    .selectFrom('saml_source_requests')
    .select(['created_at', 'interaction_uid'])
    .where('id', '=', requestId)
    .where('source_id', '=', sourceId)
    .where('handoff_hash', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

/**
 * Marks the request answered by a verified assertion, once: a second response to the same
 * request (on any instance) finds it answered. Answers the interaction it was sent for.
 */
export async function answerRequest(
  db: Db,
  sourceId: string,
  requestId: string,
  answer: { handoffHash: string; verified: unknown },
): Promise<string | undefined> {
  const row = await db
    .updateTable('saml_source_requests')
    .set({ handoff_hash: answer.handoffHash, verified: JSON.stringify(answer.verified) })
    .where('id', '=', requestId)
    .where('source_id', '=', sourceId)
    .where('handoff_hash', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('interaction_uid')
    .executeTakeFirst();
  return row?.interaction_uid;
}

/** Takes the verified answer handed to the interaction (used once; gone afterwards). */
export async function takeAnswer(db: Db, interactionUid: string, handoffHash: string) {
  const row = await db
    .deleteFrom('saml_source_requests')
    .where('handoff_hash', '=', handoffHash)
    .where('interaction_uid', '=', interactionUid)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(['source_id', 'verified'])
    .executeTakeFirst();
  return row as { source_id: string; verified: unknown } | undefined;
}

/**
 * Remembers an assertion id until it expires; false when it was already remembered (a replay).
 * The primary key decides between instances.
 */
export async function rememberAssertion(
  db: Db,
  sourceId: string,
  assertionId: string,
  expiresAt: Date,
): Promise<boolean> {
  const row = await db
    .insertInto('saml_source_assertions')
    .values({ source_id: sourceId, assertion_id: assertionId, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['source_id', 'assertion_id']).doNothing())
    .returning('assertion_id')
    .executeTakeFirst();
  return Boolean(row);
}

/** Forgets expired requests and assertion ids (the hourly purge). */
export async function purgeSamlSourceState(db: Db, limits?: PurgeLimits): Promise<void> {
  await purgeBefore(db, 'saml_source_requests', 'expires_at', undefined, limits);
  await purgeBefore(db, 'saml_source_assertions', 'expires_at', undefined, limits);
}
