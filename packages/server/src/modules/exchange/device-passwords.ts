import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { hashPassword } from '../account/password.ts';
import { newDevicePassword, PENDING_PASSWORD_PURPOSE } from './device-secrets.ts';

/**
 * A device's password: made from a CSPRNG, stored as an argon2id hash (the same parameters as
 * people's passwords), and kept sealed beside it until its person has seen it once in the user
 * centre. Issuing one replaces the previous password at once.
 */
export interface IssuedPassword {
  password_hash: string;
  password_pending_sealed: string;
  password_set_at: Date;
}

export async function issueDevicePassword(sealer: Sealer, digits: number): Promise<IssuedPassword> {
  const password = newDevicePassword(digits);
  return {
    password_hash: await hashPassword(password),
    password_pending_sealed: sealer.seal(password, PENDING_PASSWORD_PURPOSE),
    password_set_at: new Date(),
  };
}

/** The characters of a new device password, as the company sets them (spec §5: 16 by default). */
export async function passwordDigitsOf(db: Db, companyId: string): Promise<number> {
  const row = await db
    .selectFrom('exchange_settings')
    .select('device_password_digits')
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return row?.device_password_digits ?? 16;
}

/**
 * Shows a device's new password to its person, once: the sealed copy is taken in the same
 * statement that reads it, so two pages opened together cannot both show it.
 */
export async function takePendingPassword(
  db: Db,
  sealer: Sealer,
  accountId: string,
  deviceRowId: string,
): Promise<string | undefined> {
  const row = await db
    .updateTable('exchange_devices as d')
    .from('exchange_devices as old')
    .set({ password_pending_sealed: null })
    .whereRef('old.id', '=', 'd.id')
    .where('d.id', '=', deviceRowId)
    .where('d.account_id', '=', accountId)
    // On the updated row: a second statement waiting for the first sees it taken.
    .where('d.password_pending_sealed', 'is not', null)
    .returning('old.password_pending_sealed as sealed')
    .executeTakeFirst();
  return row?.sealed ? sealer.open(row.sealed, PENDING_PASSWORD_PURPOSE) : undefined;
}
