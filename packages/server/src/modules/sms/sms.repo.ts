import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CompanySmsSettingsTable, SmsProviderTable } from '../../db/schema-sms.ts';

export type SmsProviderRow = Selectable<SmsProviderTable>;
export type CompanySmsRow = Selectable<CompanySmsSettingsTable>;

/** Where a change of the installation's provider is announced (every instance's sign-in pages read it). */
export const SMS_CHANNEL = 'tessera_sms';
const announce = (db: Db) => sql`select pg_notify(${SMS_CHANNEL}, 'provider')`.execute(db);

/** The installation's provider, if one is set (migration 29). */
export const providerRow = (db: Db) => db.selectFrom('sms_provider').selectAll().executeTakeFirst();

export async function saveProvider(db: Db, row: Omit<SmsProviderRow, 'id' | 'updated_at'>) {
  await db
    .insertInto('sms_provider')
    .values({ id: true, ...row, updated_at: new Date() })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...row, updated_at: new Date() }))
    .execute();
  await announce(db);
}

export async function removeProvider(db: Db) {
  await db.deleteFrom('sms_provider').execute();
  await announce(db);
}

export const companyRow = (db: Db, companyId: string) =>
  db.selectFrom('company_sms_settings').selectAll().where('company_id', '=', companyId).executeTakeFirst();

export async function saveCompany(
  db: Db,
  companyId: string,
  values: { sign_name: string | null; template_id: string | null },
) {
  await db
    .insertInto('company_sms_settings')
    .values({ company_id: companyId, ...values, updated_at: new Date() })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ ...values, updated_at: new Date() }))
    .execute();
}
