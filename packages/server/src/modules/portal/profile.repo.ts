import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/** The person's own details as the user centre changes them (profile.service.ts). */

export type AddressField = 'email' | 'phone';

/** The name of the directory (LDAP source) the account is linked to, if any. */
export async function findDirectoryName(db: Db, accountId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('identity_links as l')
    .innerJoin('identity_sources as s', 's.id', 'l.source_id')
    .select('s.name')
    .where('l.account_id', '=', accountId)
    .where('s.type', '=', 'ldap')
    .orderBy('l.created_at')
    .limit(1)
    .executeTakeFirst();
  return row?.name;
}

export async function updateNames(
  trx: Db,
  accountId: string,
  set: { display_name: string | null; nickname: string | null },
) {
  await trx.updateTable('accounts').set(set).where('id', '=', accountId).execute();
}

/**
 * Marks the address verified, only while it is still the account's (an email in any letter
 * case); false when it changed meanwhile.
 */
export async function markVerified(db: Db, accountId: string, field: AddressField, address: string) {
  const query =
    field === 'email'
      ? db
          .updateTable('accounts')
          .set({ email_verified_at: sql<Date>`now()` })
          .where(sql<boolean>`lower(email) = ${address.toLowerCase()}`)
      : db.updateTable('accounts').set({ phone_verified_at: sql<Date>`now()` }).where('phone', '=', address);
  const row = await query.where('id', '=', accountId).returning('id').executeTakeFirst();
  return Boolean(row);
}

/**
 * Replaces the address with a proved one, verified from now, only over the address the person
 * saw when they asked (a change meanwhile wins); false otherwise.
 */
export async function replaceAddress(
  trx: Db,
  accountId: string,
  field: AddressField,
  change: { from: string | null; to: string },
) {
  const set =
    field === 'email'
      ? { email: change.to, email_verified_at: sql<Date>`now()` }
      : { phone: change.to, phone_verified_at: sql<Date>`now()` };
  const row = await trx
    .updateTable('accounts')
    .set(set)
    .where('id', '=', accountId)
    .where(sql<boolean>`${sql.ref(field)} is not distinct from ${change.from}::text`)
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}

/** Sets the photo; answers the file it replaced, for the caller to delete. */
export async function replacePhoto(trx: Db, accountId: string, fileId: string) {
  const before = await trx
    .selectFrom('accounts')
    .select('photo_file_id')
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  await trx.updateTable('accounts').set({ photo_file_id: fileId }).where('id', '=', accountId).execute();
  if (before?.photo_file_id) await trx.deleteFrom('files').where('id', '=', before.photo_file_id).execute();
  return before?.photo_file_id ?? null;
}
