import { sql } from 'kysely';
import { errors } from 'oidc-provider';
import type { Db } from '../../db/database.ts';

type Payload = Record<string, unknown> & {
  accountId?: string;
  grantId?: string;
  userCode?: string;
  uid?: string;
  consumed?: number;
};

/**
 * Models that belong to a grant and go with it when it is revoked (as in oidc-provider's own
 * adapters). An interaction names the grant too, but outlives a revocation: the sign-in of
 * someone else in its middle signs the previous person out, revoking their grants, and goes on.
 */
const grantable = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/** Models whose rows are consumed once: consuming twice is a replay. */
const consumable = new Set([
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/**
 * oidc-provider storage on the database (interface of its example/my_adapter.js).
 * `consume` is one conditional UPDATE: of many parallel redemptions exactly one wins, and the
 * others get invalid_grant and revoke the grant, as a replayed code must.
 */
export function createOidcAdapter(
  db: Db,
  /** Clients that are not configured statically: applications and access accounts. */
  findClient: (clientId: string) => Promise<Payload | undefined> = async () => undefined,
) {
  return class DatabaseAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn: number | undefined): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      const grantId = grantable.has(this.model) ? (payload.grantId ?? null) : null;
      await db
        .insertInto('oidc_payloads')
        .values({
          model: this.model,
          id,
          payload: JSON.stringify(payload),
          grant_id: grantId,
          user_code: payload.userCode ?? null,
          uid: payload.uid ?? null,
          account_id: payload.accountId ?? null,
          expires_at: expiresAt,
        })
        .onConflict((oc) =>
          oc.columns(['model', 'id']).doUpdateSet({
            payload: JSON.stringify(payload),
            grant_id: grantId,
            user_code: payload.userCode ?? null,
            uid: payload.uid ?? null,
            account_id: payload.accountId ?? null,
            expires_at: expiresAt,
          }),
        )
        .execute();
    }

    async #findWhere(column: 'id' | 'uid' | 'user_code', value: string): Promise<Payload | undefined> {
      const row = await db
        .selectFrom('oidc_payloads')
        .select(['payload', 'consumed_at'])
        .where('model', '=', this.model)
        .where(column, '=', value)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
        .executeTakeFirst();
      if (!row) return undefined;
      const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Payload;
      return row.consumed_at
        ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) }
        : payload;
    }

    find(id: string) {
      if (this.model === 'Client') return findClient(id);
      return this.#findWhere('id', id);
    }

    findByUid(uid: string) {
      return this.#findWhere('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.#findWhere('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      const result = await db
        .updateTable('oidc_payloads')
        .set({ consumed_at: sql<Date>`now()` })
        .where('model', '=', this.model)
        .where('id', '=', id)
        .where('consumed_at', 'is', null)
        .returning('grant_id')
        .executeTakeFirst();
      if (!result && consumable.has(this.model)) {
        const row = await db
          .selectFrom('oidc_payloads')
          .select('grant_id')
          .where('model', '=', this.model)
          .where('id', '=', id)
          .executeTakeFirst();
        if (row?.grant_id) await this.revokeByGrantId(row.grant_id);
        throw new errors.InvalidGrant(
          `${this.model === 'RefreshToken' ? 'refresh token' : 'grant'} already used`,
        );
      }
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oidc_payloads').where('model', '=', this.model).where('id', '=', id).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db
        .deleteFrom('oidc_payloads')
        .where((eb) =>
          eb.or([eb('grant_id', '=', grantId), eb.and([eb('model', '=', 'Grant'), eb('id', '=', grantId)])]),
        )
        .execute();
    }
  };
}

/** Removes expired rows; run periodically. */
export async function purgeExpiredOidcPayloads(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('oidc_payloads')
    .where('expires_at', '<', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
