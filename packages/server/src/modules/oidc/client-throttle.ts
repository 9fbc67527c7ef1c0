import { sql } from 'kysely';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import { type Budget, spendBudgets } from '../../lib/rate-windows.ts';
import { beforeAnswer } from './provider-responses.ts';

/**
 * Throttles failed client authentications (wrong client secrets) at the token, introspection
 * and revocation endpoints, per client:
 * - from an address the client has not authenticated from (in the last 30 days): at most 100
 *   failures an hour for the client, and 20 in ten minutes from one address;
 * - from an address it has authenticated from: only the 20-in-ten-minutes of that address,
 *   so that someone guessing elsewhere does not stop the application's own server.
 * Once a budget is spent, further requests for the client are refused before the secret is
 * compared. Failures are counted when the provider reports them (an "error" event), before its
 * answer goes out; a burst of parallel guesses can overshoot by the number in flight, but a
 * secret of 256 random bits is not guessed either way: the throttle bounds the work and the noise.
 */
const CLIENT_AUTH_ROUTES = new Set(['token', 'introspection', 'revocation']);
const KNOWN_ADDRESS_DAYS = 30;

/** The budgets of failed authentications of a client from an address (also spent by the permission decision API). */
export const budgetsOf = (clientId: string, ip: string, known: boolean): Budget[] => [
  { key: `client-auth:${clientId}:${ip}`, limit: 20, minutes: 10 },
  ...(known ? [] : [{ key: `client-auth:${clientId}`, limit: 100, minutes: 60 }]),
];

/** What the token endpoint answers while a client's budget is spent. */
export class ClientAuthThrottled extends errors.OIDCProviderError {
  constructor() {
    super(429, 'invalid_client');
    Object.assign(this, {
      error_description: 'too many failed authentications of this client; try again later',
    });
  }
}

/** How long a server remembers having recorded an address of a client (the row is kept a day anyway). */
const ADDRESS_RECORDED_MS = 3_600_000;
const ADDRESSES_KEPT = 10_000;

export function createClientThrottle(
  db: Db,
  /**
   * Requests the server makes to its own token endpoint (modules/session, SAML), with a client's
   * secret it derived itself: no guess, so no throttle, whoever else guesses that client's secret.
   */
  inProcess: (request: unknown) => boolean = () => false,
) {
  const knownAddress = (clientId: string, ip: string) =>
    db
      .selectFrom('oidc_client_addresses')
      .select('last_success_at')
      .where('client_id', '=', clientId)
      .where('ip', '=', ip)
      .where('last_success_at', '>', sql<Date>`now() - make_interval(days => ${KNOWN_ADDRESS_DAYS})`);
  const isKnown = async (clientId: string, ip: string) =>
    (await knownAddress(clientId, ip).executeTakeFirst()) !== undefined;

  /**
   * Throws while the client's budget for this address is spent (only on client-authenticating
   * routes). One statement: whether the address is known, and both answers of the budgets.
   */
  async function check(clientId: string): Promise<void> {
    const ctx = Provider.ctx as KoaContextWithOIDC | undefined;
    if (!ctx?.oidc || !CLIENT_AUTH_ROUTES.has(ctx.oidc.route) || inProcess(ctx.req)) return;
    const peek = (budgets: Budget[]) =>
      sql<boolean>`rate_hit(${budgets.map((b) => b.key)}::text[], ${budgets.map((b) => b.limit)}::int[],
        ${budgets.map((b) => b.minutes)}::int[], 'peek')`;
    const { rows } = await sql<{ known: boolean; as_known: boolean; as_unknown: boolean }>`
      select exists (${knownAddress(clientId, ctx.ip)}) as known,
        ${peek(budgetsOf(clientId, ctx.ip, true))} as as_known,
        ${peek(budgetsOf(clientId, ctx.ip, false))} as as_unknown`.execute(db);
    const row = rows[0];
    if (row && !(row.known ? row.as_known : row.as_unknown)) throw new ClientAuthThrottled();
  }

  /** Counts failed client authentications and remembers the addresses clients authenticate from. */
  function watch(provider: Provider, onError: (error: unknown) => void) {
    const failed = async (ctx: KoaContextWithOIDC, error: unknown) => {
      // Only a known client's wrong secret counts (an unknown client id has nothing to guess).
      const clientId = ctx.oidc?.client?.clientId;
      if (!clientId || (error as { error?: string }).error !== 'invalid_client') return;
      if (error instanceof ClientAuthThrottled) return;
      await spendBudgets(db, budgetsOf(clientId, ctx.ip, await isKnown(clientId, ctx.ip)), 'add');
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

  return { check, watch };
}

export type ClientThrottle = ReturnType<typeof createClientThrottle>;
