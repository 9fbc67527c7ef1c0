import { appLimits, type app as contract } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { AppApiAccount } from '../../db/schema.ts';
import { randomToken } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import * as repo from './app.repo.ts';
import { API_ACCOUNT_SECRET_PURPOSE } from './app-clients.ts';
import {
  type Actor,
  type AppServiceContext,
  appOf,
  audit,
  type Body,
  dateOf,
  seconds,
} from './app-service-shared.ts';

const apiAccountOf = (row: AppApiAccount & { expired: boolean }) => ({
  accountId: row.id,
  name: row.name,
  clientId: row.client_id,
  expiresAt: seconds(row.expires_at),
  expired: row.expired,
  lastUsedAt: seconds(row.last_used_at),
  createdAt: seconds(row.created_at) as number,
});

/**
 * Programmatic access accounts of an application: client credentials for calling the management
 * API (api-caller.ts checks them on every call). Secrets are stored sealed and answered once.
 */
export function createAppApiAccountsService({ db, sealer, metadata }: AppServiceContext) {
  async function apiAccounts(companyId: string, appId: string) {
    const app = await appOf(db, companyId, appId);
    return {
      list: (await repo.listApiAccounts(db, app.id)).map(apiAccountOf),
      tokenEndpoint: metadata.tokenEndpoint,
    };
  }

  async function createApiAccount(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.createApiAccount>,
  ) {
    const secret = randomToken(32);
    return db.transaction().execute(async (trx) => {
      const app = await appOf(trx, companyId, body.appId, true);
      const existing = await repo.listApiAccounts(trx, app.id);
      if (existing.length >= appLimits.apiAccountsPerApp)
        throw new AppError('api_account.too_many', { max: appLimits.apiAccountsPerApp });
      const row = await trx
        .insertInto('app_api_accounts')
        .values({
          id: newId(),
          app_id: app.id,
          company_id: companyId,
          name: body.name,
          client_id: `api_${randomToken(18)}`,
          secret_sealed: sealer.seal(secret, API_ACCOUNT_SECRET_PURPOSE),
          expires_at: dateOf(body.expiresAt),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const account = apiAccountOf({
        ...row,
        expired: row.expires_at !== null && row.expires_at <= new Date(),
      });
      await audit(trx, actor, companyId, 'app.api_account.create', app.id, undefined, account);
      return { account, secret };
    });
  }

  async function apiAccountIn(trx: Db, companyId: string, appId: string, accountId: string) {
    const app = await appOf(trx, companyId, appId, true);
    const account = await repo.findApiAccount(trx, app.id, accountId);
    if (!account) throw new AppError('api_account.not_found');
    return { app, account };
  }

  async function updateApiAccount(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.updateApiAccount>,
  ) {
    return db.transaction().execute(async (trx) => {
      const { account } = await apiAccountIn(trx, companyId, body.appId, body.accountId);
      await trx
        .updateTable('app_api_accounts')
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.expiresAt !== undefined ? { expires_at: dateOf(body.expiresAt) } : {}),
        })
        .where('id', '=', account.id)
        .execute();
      // An expired account's tokens are refused by the row check on every call (api-caller.ts).
      const after = (await repo.findApiAccount(trx, body.appId, account.id))!;
      await audit(
        trx,
        actor,
        companyId,
        'app.api_account.update',
        body.appId,
        apiAccountOf(account),
        apiAccountOf(after),
      );
      return apiAccountOf(after);
    });
  }

  async function resetApiAccountSecret(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.resetApiAccountSecret>,
  ) {
    const secret = randomToken(32);
    return db.transaction().execute(async (trx) => {
      const { account } = await apiAccountIn(trx, companyId, body.appId, body.accountId);
      await trx
        .updateTable('app_api_accounts')
        .set({ secret_sealed: sealer.seal(secret, API_ACCOUNT_SECRET_PURPOSE) })
        .where('id', '=', account.id)
        .execute();
      // Tokens name the secret they were issued for: those of the old one are refused from now on.
      await audit(trx, actor, companyId, 'app.api_account.reset_secret', body.appId, {
        accountId: account.id,
      });
      return { secret };
    });
  }

  async function deleteApiAccount(
    actor: Actor,
    companyId: string,
    body: Body<typeof contract.deleteApiAccount>,
  ) {
    return db.transaction().execute(async (trx) => {
      const { account } = await apiAccountIn(trx, companyId, body.appId, body.accountId);
      // Its tokens are refused at once: every call reads the account (api-caller.ts).
      await trx.deleteFrom('app_api_accounts').where('id', '=', account.id).execute();
      await audit(trx, actor, companyId, 'app.api_account.delete', body.appId, apiAccountOf(account));
      return { accountId: account.id };
    });
  }

  return { apiAccounts, createApiAccount, updateApiAccount, resetApiAccountSecret, deleteApiAccount };
}
