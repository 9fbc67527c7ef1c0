import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import { hashPassword } from './password.ts';

/**
 * Creates the first platform administrator when there is none (first start only).
 * Returns the generated password when one was made up, so it can be printed once. A printed
 * password stays in the terminal's scroll-back and the service's log: it only opens the first
 * sign-in, which asks for a new one (the forced password change of users). A password the
 * operator set in TESSERA_BOOTSTRAP_ADMIN_PASSWORD is the operator's own choice and is kept.
 */
export async function ensureBootstrapAdmin(
  db: Db,
  wanted: { username: string; password: string | undefined },
): Promise<{ created: false } | { created: true; username: string; generatedPassword: string | undefined }> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7316420963)`.execute(trx);
    const existing = await trx
      .selectFrom('accounts')
      .select('id')
      .where('is_platform_admin', '=', true)
      .limit(1)
      .executeTakeFirst();
    if (existing) return { created: false };
    const generatedPassword = wanted.password ? undefined : randomBytes(12).toString('base64url');
    await trx
      .insertInto('accounts')
      .values({
        id: newId(),
        username: wanted.username,
        email: null,
        phone: null,
        display_name: null,
        password_hash: await hashPassword(wanted.password ?? (generatedPassword as string)),
        status: 'enabled',
        is_platform_admin: true,
        must_change_password: generatedPassword !== undefined,
      })
      .execute();
    return { created: true, username: wanted.username, generatedPassword };
  });
}
