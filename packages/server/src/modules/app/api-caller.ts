import { sql } from 'kysely';
import type Provider from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import type { ApiCaller } from '../../http/bind.ts';

/**
 * The programmatic access account behind a client credentials access token. The account is
 * read on every call, so an expired or deleted account is refused at once, even with a token
 * that has not expired yet.
 */
export function createApiCallerAuthenticator(deps: { db: Db; provider(): Provider }) {
  return async function authenticateApiToken(token: string): Promise<ApiCaller | null> {
    if (token.length > 512) return null;
    const issued = await deps.provider().ClientCredentials.find(token);
    if (!issued?.clientId?.startsWith('api_')) return null;
    const account = await deps.db
      .selectFrom('app_api_accounts')
      .select(['id', 'company_id', 'last_used_at'])
      .where('client_id', '=', issued.clientId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .executeTakeFirst();
    if (!account) return null;
    // "Last used" to the minute: no write on every call.
    if (!account.last_used_at || Date.now() - account.last_used_at.getTime() > 60_000) {
      await deps.db
        .updateTable('app_api_accounts')
        .set({ last_used_at: sql<Date>`now()` })
        .where('id', '=', account.id)
        .execute();
    }
    return { apiAccountId: account.id, companyId: account.company_id };
  };
}
