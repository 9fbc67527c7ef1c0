import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';

/**
 * A person's own Exchange sign-in, for companies whose agent signs in to Exchange with each
 * person's own account (credential mode `personal`): saved by the person in the user centre,
 * sealed with the master key, used only by the agent towards Exchange, never shown again.
 */
const OWN_PASSWORD_PURPOSE = 'exchange-own-password';

export const openOwnPassword = (sealer: Sealer, sealed: string) => sealer.open(sealed, OWN_PASSWORD_PURPOSE);

export async function saveOwnCredentials(
  db: Db,
  sealer: Sealer,
  key: { companyId: string; accountId: string },
  credentials: { username: string; password: string },
): Promise<void> {
  const values = {
    username: credentials.username,
    password_sealed: sealer.seal(credentials.password, OWN_PASSWORD_PURPOSE),
    updated_at: new Date(),
  };
  await db
    .insertInto('exchange_credentials')
    .values({ company_id: key.companyId, account_id: key.accountId, ...values })
    .onConflict((oc) => oc.columns(['company_id', 'account_id']).doUpdateSet(values))
    .execute();
}

export async function deleteOwnCredentials(
  db: Db,
  key: { companyId: string; accountId: string },
): Promise<void> {
  await db
    .deleteFrom('exchange_credentials')
    .where('company_id', '=', key.companyId)
    .where('account_id', '=', key.accountId)
    .execute();
}
