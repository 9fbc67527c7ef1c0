import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';

/**
 * What the user centre reads of applications besides who may open them (app-access.ts): an app
 * as a person of its company sees it, form-fill settings and the person's own stored form
 * credentials.
 */

/**
 * An app of a company the person belongs to (whatever their standing there), with the company's
 * name; undefined for an app that does not exist or belongs to another company ("not found").
 */
export async function findMemberApp(
  db: Db,
  accountId: string,
  appId: string,
): Promise<{ app: App; companyName: string } | undefined> {
  if (appId.length > 64) return undefined;
  const row = await db
    .selectFrom('apps as p')
    .innerJoin('companies as c', 'c.id', 'p.company_id')
    .innerJoin('company_members as m', (join) =>
      join.onRef('m.company_id', '=', 'p.company_id').on('m.account_id', '=', accountId),
    )
    .selectAll('p')
    .select('c.name as company_name')
    .where('p.id', '=', appId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { company_name, ...app } = row;
  return { app, companyName: company_name };
}

/** Names of companies, by id. */
export async function companyNames(db: Db, companyIds: string[]): Promise<Map<string, string>> {
  if (!companyIds.length) return new Map();
  const rows = await db
    .selectFrom('companies')
    .select(['id', 'name'])
    .where('id', 'in', companyIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The credential mode of each configured form-fill app among `appIds`. */
export async function formModes(db: Db, appIds: string[]): Promise<Map<string, 'user' | 'shared'>> {
  if (!appIds.length) return new Map();
  const rows = await db
    .selectFrom('app_form_configs')
    .select(['app_id', 'credential_mode'])
    .where('app_id', 'in', appIds)
    .execute();
  return new Map(rows.map((r) => [r.app_id, r.credential_mode]));
}

export const findFormCredential = (db: Db, appId: string, accountId: string) =>
  db
    .selectFrom('app_form_credentials')
    .select(['username', 'password_sealed', 'updated_at'])
    .where('app_id', '=', appId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();

export async function upsertFormCredential(
  db: Db,
  row: { appId: string; accountId: string; username: string; passwordSealed: string },
): Promise<void> {
  await db
    .insertInto('app_form_credentials')
    .values({
      app_id: row.appId,
      account_id: row.accountId,
      username: row.username,
      password_sealed: row.passwordSealed,
    })
    .onConflict((oc) =>
      oc.columns(['app_id', 'account_id']).doUpdateSet({
        username: row.username,
        password_sealed: row.passwordSealed,
        updated_at: sql<Date>`now()`,
      }),
    )
    .execute();
}

export async function deleteFormCredential(db: Db, appId: string, accountId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('app_form_credentials')
    .where('app_id', '=', appId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
