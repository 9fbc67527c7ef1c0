import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { MfaFactorsTable } from '../../db/schema.ts';

/**
 * Second factors and recovery codes of an account (SQL only). Factors belong to the account,
 * not to a company: the admin calls check the company membership before they get here.
 */

const factorColumns = [
  'id',
  'account_id',
  'type',
  'name',
  'status',
  'secret_sealed',
  'last_used_step',
  'bound_at',
  'last_used_at',
  'created_at',
] as const;

/** A factor as the MFA module reads it: its columns of the table (the FIDO2 key material aside). */
export type FactorRow = Pick<Selectable<MfaFactorsTable>, (typeof factorColumns)[number]>;

// bigint comes back as a string from node-postgres.
const normalise = <T extends { last_used_step: unknown }>(row: T) => ({
  ...row,
  last_used_step: row.last_used_step === null ? null : Number(row.last_used_step),
});

export async function listFactors(db: Db, accountId: string): Promise<FactorRow[]> {
  const rows = await db
    .selectFrom('mfa_factors')
    .select(factorColumns)
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(normalise);
}

export async function findFactor(
  db: Db,
  accountId: string,
  factorId: string,
): Promise<FactorRow | undefined> {
  const row = await db
    .selectFrom('mfa_factors')
    .select(factorColumns)
    .where('account_id', '=', accountId)
    .where('id', '=', factorId)
    .executeTakeFirst();
  return row && normalise(row);
}

export async function insertFactor(
  trx: Db,
  factor: { id: string; accountId: string; type: string; name: string; secretSealed: string },
) {
  await trx
    .insertInto('mfa_factors')
    .values({
      id: factor.id,
      account_id: factor.accountId,
      type: factor.type,
      name: factor.name,
      status: 'unbound',
      secret_sealed: factor.secretSealed,
    })
    .execute();
}

/** A binding begun and never confirmed is dropped when a new one begins. */
export async function deleteUnboundFactors(trx: Db, accountId: string) {
  await trx
    .deleteFrom('mfa_factors')
    .where('account_id', '=', accountId)
    .where('status', '=', 'unbound')
    .execute();
}

/** Confirms a binding; the confirming code's step counts as used. False when it was not unbound (any more). */
export async function markBound(trx: Db, accountId: string, factorId: string, step: number) {
  const row = await trx
    .updateTable('mfa_factors')
    .set({
      status: 'bound',
      bound_at: sql<Date>`now()`,
      last_used_step: step,
      last_used_at: sql<Date>`now()`,
    })
    .where('id', '=', factorId)
    .where('account_id', '=', accountId)
    .where('status', '=', 'unbound')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Accepts a code's time step once: one UPDATE that only matches while the stored step is
 * older, so of two requests with the same code exactly one wins.
 */
export async function claimStep(db: Db, factorId: string, step: number) {
  const row = await db
    .updateTable('mfa_factors')
    .set({ last_used_step: step, last_used_at: sql<Date>`now()` })
    .where('id', '=', factorId)
    .where('status', '=', 'bound')
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Removes one factor or all of them; returns how many went. */
export async function deleteFactors(trx: Db, accountId: string, factorId?: string) {
  let query = trx.deleteFrom('mfa_factors').where('account_id', '=', accountId);
  if (factorId) query = query.where('id', '=', factorId);
  const rows = await query.returning('id').execute();
  return rows.length;
}

export async function countBoundFactors(db: Db, accountId: string) {
  const row = await db
    .selectFrom('mfa_factors')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('account_id', '=', accountId)
    .where('status', '=', 'bound')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function countRecoveryCodesLeft(db: Db, accountId: string) {
  const row = await db
    .selectFrom('mfa_recovery_codes')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Replaces the account's recovery codes with new ones (hashes only). */
export async function replaceRecoveryCodes(trx: Db, accountId: string, hashes: string[]) {
  await deleteRecoveryCodes(trx, accountId);
  if (hashes.length) {
    await trx
      .insertInto('mfa_recovery_codes')
      .values(hashes.map((code_hash) => ({ account_id: accountId, code_hash })))
      .execute();
  }
}

export async function deleteRecoveryCodes(trx: Db, accountId: string) {
  await trx.deleteFrom('mfa_recovery_codes').where('account_id', '=', accountId).execute();
}

/** Uses a recovery code once: only the request that finds it unused succeeds. */
export async function useRecoveryCode(db: Db, accountId: string, codeHash: string) {
  const row = await db
    .updateTable('mfa_recovery_codes')
    .set({ used_at: sql<Date>`now()` })
    .where('account_id', '=', accountId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .returning('code_hash')
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's second-factor lock, if it is in force. */
export async function findMfaLock(db: Db, accountId: string) {
  const row = await db
    .selectFrom('accounts')
    .select(['mfa_failed_count', 'mfa_locked_until'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  const lockedUntil =
    row?.mfa_locked_until && row.mfa_locked_until > new Date() ? row.mfa_locked_until : null;
  return { failedCount: row?.mfa_failed_count ?? 0, lockedUntil };
}

/**
 * Counts one wrong code, in one UPDATE: the row lock serialises parallel requests and each
 * re-checks the WHERE, so once the limit locks the account the rest match nothing and are
 * not counted. After an expired lock the count starts again. Returns the new count and lock,
 * or undefined when the account was already locked (nothing counted).
 */
export async function recordMfaFailure(
  db: Db,
  accountId: string,
  lockout: { maxFailures: number; lockMinutes: number },
) {
  const next = sql<number>`(case when mfa_locked_until is not null then 1 else mfa_failed_count + 1 end)`;
  const row = await db
    .updateTable('accounts')
    .set({
      mfa_failed_count: next,
      mfa_locked_until: sql<Date | null>`case when ${next} >= ${lockout.maxFailures}::int
        then now() + make_interval(mins => ${lockout.lockMinutes}::int) else null end`,
    })
    .where('id', '=', accountId)
    .where((eb) =>
      eb.or([eb('mfa_locked_until', 'is', null), eb('mfa_locked_until', '<=', sql<Date>`now()`)]),
    )
    .returning(['mfa_failed_count', 'mfa_locked_until'])
    .executeTakeFirst();
  return row && { failedCount: row.mfa_failed_count, lockedUntil: row.mfa_locked_until };
}

/** A good code clears the count, unless a lock came in between (then false). */
export async function clearMfaFailures(db: Db, accountId: string) {
  const row = await db
    .updateTable('accounts')
    .set({ mfa_failed_count: 0, mfa_locked_until: null })
    .where('id', '=', accountId)
    .where((eb) =>
      eb.or([eb('mfa_locked_until', 'is', null), eb('mfa_locked_until', '<=', sql<Date>`now()`)]),
    )
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Unbinding ends every session of the account, as a password reset does. */
export async function raiseCredentialVersion(trx: Db, accountId: string) {
  await trx
    .updateTable('accounts')
    .set((eb) => ({ credential_version: eb('credential_version', '+', 1) }))
    .where('id', '=', accountId)
    .execute();
}

/** The companies the account is an enabled member of, with its role there. */
export async function listMemberships(db: Db, accountId: string) {
  return db
    .selectFrom('company_members')
    .select(['company_id', 'role'])
    .where('account_id', '=', accountId)
    .where('status', '=', 'enabled')
    .execute();
}

export async function isMember(db: Db, companyId: string, accountId: string) {
  const row = await db
    .selectFrom('company_members')
    .select('account_id')
    .where('company_id', '=', companyId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row !== undefined;
}
