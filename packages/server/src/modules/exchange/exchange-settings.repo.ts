import type { Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ExchangeSettingsRow, ExchangeSettingsTable } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { newRegistrationToken, sealToken, tokenLookupHash } from './device-secrets.ts';

/**
 * A company's Exchange agent and device rules (`exchange_settings`, one row per company). The
 * row is made, with a new registration token, the first time anything reads it; until then the
 * contract's defaults apply and no phone can register (there is no token yet).
 */

const tokenColumns = (sealer: Sealer, token: string) => ({
  registration_token_sealed: sealToken(sealer, token),
  registration_token_hmac: tokenLookupHash(sealer, token),
});

export async function findSettings(db: Db, companyId: string): Promise<ExchangeSettingsRow | undefined> {
  return db
    .selectFrom('exchange_settings')
    .selectAll()
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

/** The company's row, made first when it has none (a parallel call may make it: both read the same row). */
export async function ensureSettings(
  db: Db,
  sealer: Sealer,
  companyId: string,
): Promise<ExchangeSettingsRow> {
  const found = await findSettings(db, companyId);
  if (found) return found;
  await db
    .insertInto('exchange_settings')
    .values({
      company_id: companyId,
      ...tokenColumns(sealer, newRegistrationToken()),
      updated_at: new Date(),
    })
    .onConflict((oc) => oc.column('company_id').doNothing())
    .execute();
  return (await findSettings(db, companyId)) as ExchangeSettingsRow;
}

export async function updateSettings(
  db: Db,
  companyId: string,
  values: Updateable<ExchangeSettingsTable>,
): Promise<ExchangeSettingsRow> {
  return db
    .updateTable('exchange_settings')
    .set({ ...values, updated_at: new Date() })
    .where('company_id', '=', companyId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A new registration token replaces the old one in the same statement: the old one finds nothing from now on. */
export async function replaceToken(db: Db, sealer: Sealer, companyId: string): Promise<ExchangeSettingsRow> {
  return updateSettings(db, companyId, {
    ...tokenColumns(sealer, newRegistrationToken()),
    token_rotated_at: new Date(),
  });
}

/** The company whose registration token a typed password is, if any. */
export async function findCompanyByToken(db: Db, sealer: Sealer, typed: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('exchange_settings')
    .select('company_id')
    .where('registration_token_hmac', '=', tokenLookupHash(sealer, typed))
    .executeTakeFirst();
  return row?.company_id;
}
