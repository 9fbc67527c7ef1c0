import { sql } from 'kysely';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import { type Budget, spendBudgets } from '../../lib/rate-windows.ts';
import { beforeAnswer } from './provider-responses.ts';

/**
 * Throttles failed client authentications (wrong client secrets) at the token, introspection
 * and revocation endpoints, per client:
 * - from an address the client has not authenticated from (in the last 30 days): at most 100
 *   failures an hour for the client, and 20 in ten minutes from one address;
 * - from an address it has authenticated from: only the 20-in-ten-minutes of that address.
 * Once a budget is spent, a wrong secret is answered 429 and no longer counted (a flood costs one
 * read per request). The right secret is always answered: a secret of 256 random bits is not
 * guessed either way, so the budget is there to slow guessing and bound its work and noise, never
 * to let whoever shares (or, behind an untrusted proxy, names) an address stop the application's
 * back end. Failures are counted when the provider reports them (an "error" event), before its
 * answer goes out; a burst of parallel guesses can overshoot by the number in flight.
 */
const KNOWN_ADDRESS_DAYS = 30;

/** The budgets of failed authentications of a client from an address (also spent by the permission decision API). */
export const budgetsOf = (clientId: string, ip: string, known: boolean): Budget[] => [
  { key: `client-auth:${clientId}:${ip}`, limit: 20, minutes: 10 },
  ...(known ? [] : [{ key: `client-auth:${clientId}`, limit: 100, minutes: 60 }]),
];

/** What the token endpoint answers to a wrong secret once the client's budget is spent. */
function answerThrottled(ctx: KoaContextWithOIDC) {
  ctx.status = 429;
  ctx.body = {
    error: 'invalid_client',
    error_description: 'too many failed authentications of this client; try again later',
  };
}

/** How long a server remembers having recorded an address of a client (the row is kept a day anyway). */
const ADDRESS_RECORDED_MS = 3_600_000;
const ADDRESSES_KEPT = 10_000;

export function createClientThrottle(db: Db) {
  const knownAddress = (clientId: string, ip: string) =>
    db
      .selectFrom('oidc_client_addresses')
      .select('last_success_at')
      .where('client_id', '=', clientId)
      .where('ip', '=', ip)
      .where('last_success_at', '>', sql<Date>`now() - make_interval(days => ${KNOWN_ADDRESS_DAYS})`);

  /** One statement: whether the address is known, and whether its budgets have room. */
  async function budgetOf(clientId: string, ip: string): Promise<{ known: boolean; room: boolean }> {
    const peek = (budgets: Budget[]) =>
      sql<boolean>`rate_hit(${budgets.map((b) => b.key)}::text[], ${budgets.map((b) => b.limit)}::int[],
        ${budgets.map((b) => b.minutes)}::int[], 'peek')`;
    const { rows } = await sql<{ known: boolean; as_known: boolean; as_unknown: boolean }>`
      select exists (${knownAddress(clientId, ip)}) as known,
        ${peek(budgetsOf(clientId, ip, true))} as as_known,
        ${peek(budgetsOf(clientId, ip, false))} as as_unknown`.execute(db);
    const row = rows[0];
    const known = row?.known === true;
    return { known, room: !row || (known ? row.as_known : row.as_unknown) };
  }

  /** Counts failed client authentications and remembers the addresses clients authenticate from. */
  function watch(provider: Provider, onError: (error: unknown) => void) {
    const failed = async (ctx: KoaContextWithOIDC, error: unknown) => {
      // Only a known client's wrong secret counts (an unknown client id has nothing to guess).
      const clientId = ctx.oidc?.client?.clientId;
      if (!clientId || (error as { error?: string }).error !== 'invalid_client') return;
      const { known, room } = await budgetOf(clientId, ctx.ip);
      if (!room) return answerThrottled(ctx);
      await spendBudgets(db, budgetsOf(clientId, ctx.ip, known), 'add');
    };
    const onFailure = (ctx: KoaContextWithOIDC, error: unknown) => {
      beforeAnswer(ctx, failed(ctx, error).catch(onError));
    };
    provider.on('grant.error', onFailure);
    provider.on('introspection.error', onFailure);
    provider.on('revocation.error', onFailure);
    // Recorded at most once an hour per server: the statement changes the row at most once a day.
    const recorded = new Map<string, number>();
    provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
      const client = ctx.oidc.client;
      if (!client || client.clientAuthMethod === 'none') return;
      const key = `${client.clientId}\t${ctx.ip}`;
      const now = Date.now();
      if ((recorded.get(key) ?? 0) > now - ADDRESS_RECORDED_MS) return;
      if (recorded.size >= ADDRESSES_KEPT) recorded.clear();
      recorded.set(key, now);
      beforeAnswer(
        ctx,
        db
          .insertInto('oidc_client_addresses')
          .values({ client_id: client.clientId, ip: ctx.ip })
          .onConflict((oc) =>
            oc
              .columns(['client_id', 'ip'])
              .doUpdateSet({ last_success_at: sql<Date>`now()` })
              // One write a day per address is enough to keep it known.
              .where('oidc_client_addresses.last_success_at', '<', sql<Date>`now() - interval '1 day'`),
          )
          .execute()
          .catch(onError),
      );
    });
  }

  return { watch };
}

export type ClientThrottle = ReturnType<typeof createClientThrottle>;
