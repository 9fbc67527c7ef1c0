import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import { errors } from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import { type PurgeLimits, purgeBefore } from '../../lib/batched-purge.ts';
import { preparedStatement } from '../../lib/prepared.ts';
import {
  findTokenWithContext,
  forgetAllReadAlong,
  forgetReadAlong,
  keepReadAlong,
  TOKENS_READ_WITH_CONTEXT,
  takeReadAlong,
} from './token-context.ts';

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

type PayloadRow = {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  account_id: string | null;
  expires_at: Date | null;
};

const upsertQuery = (db: Db, row: PayloadRow) =>
  db
    .insertInto('oidc_payloads')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['model', 'id']).doUpdateSet({
        payload: sql`excluded.payload`,
        grant_id: sql`excluded.grant_id`,
        user_code: sql`excluded.user_code`,
        uid: sql`excluded.uid`,
        account_id: sql`excluded.account_id`,
        expires_at: sql`excluded.expires_at`,
      }),
    );

/** Every token request and sign-in runs these: each is compiled once (preparedStatement). */
const upsertPayload = preparedStatement(upsertQuery);

/** Where the upserts of collectUpserts go. */
const collecting = new AsyncLocalStorage<ReturnType<typeof upsertQuery>[]>();

/**
 * Runs `work` (a model's save) without writing: the upserts it makes come back as statements,
 * which the caller writes within another statement, so that both are stored or neither (the
 * sign-in form stores the interaction's login with the success that allows it).
 */
export async function collectUpserts(work: () => Promise<unknown>) {
  const statements: ReturnType<typeof upsertQuery>[] = [];
  await collecting.run(statements, work);
  return statements;
}

const findPayload = (column: 'id' | 'uid' | 'user_code') =>
  preparedStatement((db, where: { model: string; value: string }) =>
    db
      .selectFrom('oidc_payloads')
      .select(['payload', 'consumed_at'])
      .where('model', '=', where.model)
      .where(column, '=', where.value)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)])),
  );
const findPayloadBy = { id: findPayload('id'), uid: findPayload('uid'), user_code: findPayload('user_code') };

const consumePayload = preparedStatement((db, where: { model: string; id: string }) =>
  db
    .updateTable('oidc_payloads')
    .set({ consumed_at: sql<Date>`now()` })
    .where('model', '=', where.model)
    .where('id', '=', where.id)
    .where('consumed_at', 'is', null)
    .returning('grant_id'),
);

/**
 * oidc-provider storage on the database (interface of its example/my_adapter.js).
 * `consume` is one conditional UPDATE: of many parallel redemptions exactly one wins, and the
 * others get invalid_grant and revoke the grant, as a replayed code must.
 */
export function createOidcAdapter(
  db: Db,
  /** Clients that are not configured statically: applications and access accounts. */
  findClient: (clientId: string) => Promise<Payload | undefined> = async () => undefined,
  /**
   * Whether the access token being issued goes to a caller that never uses it: the server's own
   * token requests (console and user-centre sessions, SAML sign-ins) keep the ID and refresh
   * tokens only, so a row per access token would only be written and purged. Such a token, were
   * it presented, is not found, as an expired one.
   */
  accessTokenUnused: () => boolean = () => false,
) {
  const asPayload = (row: { payload: unknown; consumed_at: Date | null }) => {
    const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Payload;
    return row.consumed_at ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : payload;
  };

  return class DatabaseAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn: number | undefined): Promise<void> {
      if (this.model === 'AccessToken' && accessTokenUnused()) return;
      forgetReadAlong(this.model === 'Session' ? `Session:uid:${payload.uid}` : `${this.model}:${id}`);
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      const grantId = grantable.has(this.model) ? (payload.grantId ?? null) : null;
      const row: PayloadRow = {
        model: this.model,
        id,
        payload: JSON.stringify(payload),
        grant_id: grantId,
        user_code: payload.userCode ?? null,
        uid: payload.uid ?? null,
        account_id: payload.accountId ?? null,
        expires_at: expiresAt,
      };
      const collector = collecting.getStore();
      if (collector) collector.push(upsertQuery(db, row));
      else await db.executeQuery(upsertPayload(db, row));
    }

    async #findWhere(column: 'id' | 'uid' | 'user_code', value: string): Promise<Payload | undefined> {
      // Read with the token of this request (token-context.ts)?
      const key = column === 'uid' ? `${this.model}:uid:${value}` : `${this.model}:${value}`;
      const along = column === 'user_code' ? undefined : takeReadAlong<Payload>(key);
      if (along !== undefined) return along ?? undefined;
      const { rows } = await db.executeQuery(findPayloadBy[column](db, { model: this.model, value }));
      return rows[0] ? asPayload(rows[0]) : undefined;
    }

    async find(id: string) {
      if (this.model === 'Client') return findClient(id);
      if (!TOKENS_READ_WITH_CONTEXT.has(this.model)) return this.#findWhere('id', id);
      const { rows } = await db.executeQuery(findTokenWithContext(db, { model: this.model, id }));
      const row = rows[0];
      if (!row) return undefined;
      keepReadAlong(row);
      return asPayload(row);
    }

    findByUid(uid: string) {
      return this.#findWhere('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.#findWhere('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      const { rows } = await db.executeQuery(consumePayload(db, { model: this.model, id }));
      if (!rows[0] && consumable.has(this.model)) {
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
      if (this.model === 'Session') forgetAllReadAlong();
      else forgetReadAlong(`${this.model}:${id}`);
      await db.deleteFrom('oidc_payloads').where('model', '=', this.model).where('id', '=', id).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      forgetAllReadAlong();
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
export function purgeExpiredOidcPayloads(db: Db, limits?: PurgeLimits): Promise<number> {
  return purgeBefore(db, 'oidc_payloads', 'expires_at', undefined, limits);
}
