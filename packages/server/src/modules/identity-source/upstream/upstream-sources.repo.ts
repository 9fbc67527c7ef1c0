import { upstreamSourceTypes } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { type PurgeLimits, purgeBefore } from '../../../lib/batched-purge.ts';
import { randomToken, sha256 } from '../../../lib/crypto.ts';
import { type AnySource, findEnabledSources } from '../identity-source.repo.ts';

/**
 * Upstream identity providers of a company (every kind of upstreamSourceTypes): which of its
 * enabled sources the sign-in page offers, which one an email domain goes to, and the state of
 * a sign-in under way there.
 */

export type UpstreamSourceRow = Extract<AnySource, { type: (typeof upstreamSourceTypes)[number] }>;
export const isUpstreamSource = (source: AnySource | undefined): source is UpstreamSourceRow =>
  Boolean(source && (upstreamSourceTypes as readonly string[]).includes(source.type));

/** The enabled upstream sources of a company, oldest first (the sign-in page's buttons). */
export async function findEnabledUpstreamSources(db: Db, companyId: string): Promise<UpstreamSourceRow[]> {
  return (await findEnabledSources(db, companyId, upstreamSourceTypes)) as UpstreamSourceRow[];
}

/** Another upstream source of the company that lists one of these email domains: the domain and its name. */
export async function findDomainOwner(
  db: Db,
  companyId: string,
  sourceId: string,
  domains: string[],
): Promise<{ domain: string; source: string } | undefined> {
  if (!domains.length) return undefined;
  const rows = await db
    .selectFrom('identity_sources')
    .select(['name', 'settings'])
    .where('company_id', '=', companyId)
    .where('id', '<>', sourceId)
    .where(sql<boolean>`coalesce(settings->'emailDomains', '[]'::jsonb) ?| ${domains}::text[]`)
    .execute();
  for (const row of rows) {
    const listed = (row.settings as { emailDomains?: string[] }).emailDomains ?? [];
    const domain = domains.find((d) => listed.includes(d));
    if (domain) return { domain, source: row.name };
  }
  return undefined;
}

/** The enabled upstream source of the company that the email address's domain goes to, if any. */
export async function findSourceOfEmailDomain(
  db: Db,
  companyId: string,
  identifier: string,
): Promise<UpstreamSourceRow | undefined> {
  const at = identifier.lastIndexOf('@');
  if (at < 1) return undefined;
  const domain = identifier
    .slice(at + 1)
    .trim()
    .toLowerCase();
  if (!domain) return undefined;
  const sources = await findEnabledUpstreamSources(db, companyId);
  return sources.find((source) => source.settings.emailDomains.includes(domain));
}

// ---- sign-ins under way

export const UPSTREAM_STATE_MINUTES = 10;

export interface UpstreamState {
  source_id: string;
  interaction_uid: string;
  nonce: string | null;
  code_verifier: string | null;
}

/** Starts a sign-in at the source: answers the state to send (stored hashed, ten minutes, once). */
export async function createUpstreamState(
  db: Db,
  state: { sourceId: string; interactionUid: string; nonce?: string; codeVerifier?: string },
): Promise<string> {
  const value = randomToken();
  await db
    .insertInto('upstream_states')
    .values({
      id: sha256(value),
      source_id: state.sourceId,
      interaction_uid: state.interactionUid,
      nonce: state.nonce ?? null,
      code_verifier: state.codeVerifier ?? null,
      expires_at: sql<Date>`now() + make_interval(mins => ${UPSTREAM_STATE_MINUTES})`,
    })
    .execute();
  return value;
}

const stateColumns = ['source_id', 'interaction_uid', 'nonce', 'code_verifier'] as const;

/** The live state of the value at the source (where its callback goes back to); nothing changes. */
export async function findUpstreamState(
  db: Db,
  sourceId: string,
  value: string,
): Promise<UpstreamState | undefined> {
  if (!value || value.length > 128) return undefined;
  return db
    .selectFrom('upstream_states')
    .select(stateColumns)
    .where('id', '=', sha256(value))
    .where('source_id', '=', sourceId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

/** Uses the state once, if live and bound to this interaction: of two requests with it, one gets it. */
export async function consumeUpstreamState(
  db: Db,
  value: string,
  interactionUid: string,
): Promise<UpstreamState | undefined> {
  if (!value || value.length > 128) return undefined;
  return db
    .updateTable('upstream_states')
    .set({ used_at: sql<Date>`now()` })
    .where('id', '=', sha256(value))
    .where('interaction_uid', '=', interactionUid)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(stateColumns)
    .executeTakeFirst();
}

export async function purgeUpstreamStates(db: Db, limits?: PurgeLimits): Promise<void> {
  await purgeBefore(db, 'upstream_states', 'expires_at', sql<Date>`now() - interval '1 hour'`, limits);
}
