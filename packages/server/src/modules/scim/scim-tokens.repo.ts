import type { ScimGroupKind } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/** SCIM tokens and settings of a company; every query takes the company first. */

const tokenColumns = [
  'id',
  'name',
  'groups_as',
  'expires_at',
  'created_at',
  'last_used_at',
  'last_used_ip',
] as const;

export const findTokens = (db: Db, companyId: string) =>
  db
    .selectFrom('scim_tokens')
    .select(tokenColumns)
    .where('company_id', '=', companyId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();

export const findToken = (db: Db, companyId: string, id: string) =>
  db
    .selectFrom('scim_tokens')
    .select(tokenColumns)
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();

export async function countTokens(db: Db, companyId: string) {
  const row = await db
    .selectFrom('scim_tokens')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertToken(
  db: Db,
  row: {
    id: string;
    companyId: string;
    name: string;
    tokenHash: string;
    groupsAs: ScimGroupKind;
    expiresAt: Date | null;
  },
) {
  await db
    .insertInto('scim_tokens')
    .values({
      id: row.id,
      company_id: row.companyId,
      name: row.name,
      token_hash: row.tokenHash,
      groups_as: row.groupsAs,
      expires_at: row.expiresAt,
    })
    .execute();
}

export const deleteToken = (db: Db, companyId: string, id: string) =>
  db.deleteFrom('scim_tokens').where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();

/** The live token with this hash (not expired), whichever company it is of. */
export const findTokenByHash = (db: Db, tokenHash: string) =>
  db
    .selectFrom('scim_tokens')
    .select(['id', 'company_id', 'name', 'groups_as'])
    .where('token_hash', '=', tokenHash)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .executeTakeFirst();

/** Records a use; at most one write a minute per token and address. */
export async function noteTokenUse(db: Db, id: string, ip: string) {
  await db
    .updateTable('scim_tokens')
    .set({ last_used_at: sql<Date>`now()`, last_used_ip: ip })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('last_used_at', 'is', null),
        eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`),
        eb('last_used_ip', 'is distinct from', ip),
      ]),
    )
    .execute();
}

export async function allowsPasswords(db: Db, companyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('scim_settings')
    .select('allow_passwords')
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return row?.allow_passwords ?? false;
}

export async function saveAllowPasswords(db: Db, companyId: string, allow: boolean) {
  await db
    .insertInto('scim_settings')
    .values({ company_id: companyId, allow_passwords: allow })
    .onConflict((oc) =>
      oc.column('company_id').doUpdateSet({ allow_passwords: allow, updated_at: sql<Date>`now()` }),
    )
    .execute();
}
