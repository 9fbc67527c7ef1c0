import type { CompanyCreationMode } from '@tessera/contract';
import type { Db } from '../../db/database.ts';

/** The installation's one row of settings (migration 25). */
export async function companyCreationMode(db: Db): Promise<CompanyCreationMode> {
  const row = await db.selectFrom('platform_settings').select('company_creation').executeTakeFirst();
  return row?.company_creation ?? 'everyone';
}

export async function setCompanyCreationMode(db: Db, mode: CompanyCreationMode): Promise<void> {
  await db.updateTable('platform_settings').set({ company_creation: mode, updated_at: new Date() }).execute();
}
