import { sql } from 'kysely';
import type Provider from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { appOf } from './clients.ts';

export interface SignOutScope {
  /**
   * Only the applications of this company: their sessions are told to end and leave the single
   * sign-on session, which goes on for the person's other companies. Without it, every
   * application is told and the single sign-on sessions end.
   */
  companyId?: string;
  /**
   * Only these single sign-on sessions (by uid), e.g. the one an upstream provider's logout token
   * names by its `sid`; the account's other sessions go on. Without it, all of the account's.
   */
  sessionUids?: readonly string[];
}

export interface SignOutResult {
  /** Single sign-on sessions ended (or, with a company, left by that company's applications). */
  sessions: number;
  /** Back-channel logout tokens the applications accepted / that failed (logged by the provider). */
  delivered: number;
  failed: number;
}

/** What an account's applications are to be told, collected before its sessions end. */
export interface PendingSignOut {
  /** Ends what is left of the sessions and sends the logout tokens (after the change committed). */
  send(): Promise<SignOutResult>;
}

interface SessionPayload {
  accountId?: string;
  authorizations?: Record<string, { sid?: string }>;
}

/**
 * The sessions a protocol other than OIDC keeps at its services within single sign-on sessions
 * (CAS tickets that single logout reaches): read inside the change's transaction, before the
 * change, from the uids of the sessions that end; told after the commit.
 */
export interface ServiceSignOut {
  prepare(
    executor: Db,
    accountId: string,
    ssoSessionUids: string[],
    scope: SignOutScope,
  ): Promise<{ send(): Promise<void> }>;
}

/** A live single sign-on session of the account: its applications and the `sid` each was given. */
interface CollectedSession {
  id: string;
  uid: string | null;
  applications: { clientId: string; sid?: string }[];
}

type BackchannelClient = {
  clientId: string;
  backchannelLogoutUri?: string;
  backchannelLogout(sub: string, sid?: string): Promise<void>;
};

/**
 * Signing a person out of their applications when their sessions end for a reason other than
 * signing out at Tessera: an administrator disables, locks or removes them, resets their password
 * or removes their factors. Every application of each single sign-on session that registered a
 * back-channel logout URI gets a signed logout token (OIDC Back-Channel Logout 1.0, with the
 * session's `sid`), from oidc-provider's own sender (its token, timeout and fetch; failures are
 * logged without the token), all at once and awaited. The CAS services of those sessions get
 * their single logout request at the same time (`serviceSignOuts`, modules/cas/cas-slo.ts).
 *
 * The database triggers of such a change delete the sessions in its transaction, so the sessions
 * are read first: `prepare(trx, …)` inside the transaction, before the change; its `send()` after
 * the commit (a change that rolls back tells nobody). `signOutAccountEverywhere` does both at once
 * for a sign-out that changes nothing else.
 */
export function createSignOut(deps: {
  db: Db;
  provider(): Provider;
  log: { error(object: object, message: string): void };
  /** The other protocols' services told alongside the OIDC applications (CAS single logout). */
  serviceSignOuts?: readonly ServiceSignOut[];
}) {
  async function collect(executor: Db, accountId: string, scope: SignOutScope): Promise<CollectedSession[]> {
    if (scope.sessionUids && !scope.sessionUids.length) return [];
    let query = executor
      .selectFrom('oidc_payloads')
      .select(['id', 'uid', 'payload'])
      .where('model', '=', 'Session')
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]));
    if (scope.sessionUids) query = query.where('uid', 'in', [...scope.sessionUids]);
    const rows = await query.execute();
    return rows.map(({ id, uid, payload }) => {
      const session = (typeof payload === 'string' ? JSON.parse(payload) : payload) as SessionPayload;
      const applications = Object.entries(session.authorizations ?? {}).map(([clientId, { sid }]) => ({
        clientId,
        sid,
      }));
      return { id, uid, applications };
    });
  }

  /** The applications of the collected sessions within the scope, as the provider's clients. */
  async function clientsInScope(sessions: CollectedSession[], scope: SignOutScope) {
    const provider = deps.provider();
    const clients = new Map<string, BackchannelClient | undefined>();
    for (const clientId of new Set(sessions.flatMap((s) => s.applications.map((a) => a.clientId)))) {
      const client = (await provider.Client.find(clientId).catch(() => undefined)) as
        | BackchannelClient
        | undefined;
      const inScope = !scope.companyId || appOf(client as never)?.companyId === scope.companyId;
      if (inScope) clients.set(clientId, client);
    }
    return clients;
  }

  /** Ends what the change left of each session: the whole session, or the scope's applications in it. */
  async function endSessions(sessions: CollectedSession[], scope: SignOutScope, inScope: Set<string>) {
    const provider = deps.provider();
    for (const { id } of sessions) {
      const session = await provider.Session.find(id);
      if (!session) continue;
      if (!scope.companyId) {
        await session.destroy();
        continue;
      }
      const authorizations = (session as unknown as SessionPayload).authorizations ?? {};
      for (const clientId of Object.keys(authorizations))
        if (inScope.has(clientId)) delete authorizations[clientId];
      const remaining = session.exp ? session.exp - Math.floor(Date.now() / 1000) : 0;
      if (remaining > 0) await session.save(remaining);
    }
  }

  async function prepare(executor: Db, accountId: string, scope: SignOutScope = {}): Promise<PendingSignOut> {
    const sessions = await collect(executor, accountId, scope);
    const uids = sessions.flatMap(({ uid }) => (uid ? [uid] : []));
    const services: { send(): Promise<void> }[] = [];
    for (const other of deps.serviceSignOuts ?? [])
      services.push(await other.prepare(executor, accountId, uids, scope));
    // The change is done whatever happens here: a failure is logged, never the caller's error.
    const failed = (error: unknown) =>
      deps.log.error({ err: error, accountId }, 'signing a person out of their applications failed');
    return {
      send: async () => {
        const [result] = await Promise.all([
          tell(accountId, sessions, scope).catch((error: unknown) => {
            failed(error);
            return { sessions: 0, delivered: 0, failed: 0 };
          }),
          ...services.map((service) => service.send().catch(failed)),
        ]);
        return result;
      },
    };
  }

  async function tell(accountId: string, sessions: CollectedSession[], scope: SignOutScope) {
    const provider = deps.provider();
    const clients = await clientsInScope(sessions, scope);
    await endSessions(sessions, scope, new Set(clients.keys()));
    const result: SignOutResult = { sessions: 0, delivered: 0, failed: 0 };
    const deliveries: Promise<void>[] = [];
    for (const session of sessions) {
      const told = session.applications.filter((a) => clients.has(a.clientId));
      if (scope.companyId && !told.length) continue;
      result.sessions += 1;
      for (const { clientId, sid } of told) {
        const client = clients.get(clientId);
        if (!client?.backchannelLogoutUri) continue;
        deliveries.push(
          client.backchannelLogout(accountId, sid).then(
            () => {
              result.delivered += 1;
              provider.emit('backchannel.success', undefined, client, accountId, sid);
            },
            (error: unknown) => {
              result.failed += 1;
              provider.emit('backchannel.error', undefined, error, client, accountId, sid);
            },
          ),
        );
      }
    }
    await Promise.all(deliveries);
    return result;
  }

  return {
    prepare,
    /** Signs a person out of every single sign-on session (or of one company's apps) and tells the apps. */
    signOutAccountEverywhere: async (accountId: string, scope: SignOutScope = {}) =>
      (await prepare(deps.db, accountId, scope)).send(),
  };
}

export type AccountSignOut = ReturnType<typeof createSignOut>;

/**
 * Runs a change that ends an account's sessions in a transaction, and signs the person out of
 * their applications once it committed: `signOutBefore(accountId, scope)`, called inside the
 * transaction before the change, reads the sessions the change is about to end. On a handle that
 * is already a transaction the change joins it, and `signOut` must hold the sending back until
 * that transaction commits (user.service.ts `atomically` does).
 */
export async function withSignOut<T>(
  db: Db,
  signOut: Pick<AccountSignOut, 'prepare'> | undefined,
  change: (trx: Db, signOutBefore: (accountId: string, scope?: SignOutScope) => Promise<void>) => Promise<T>,
): Promise<T> {
  const pending: PendingSignOut[] = [];
  const result = await inTransaction(db, (trx) =>
    change(trx, async (accountId, scope) => {
      if (signOut) pending.push(await signOut.prepare(trx, accountId, scope));
    }),
  );
  await Promise.all(pending.map((p) => p.send()));
  return result;
}

/** Whom a change of a person's record in a company signs out of: the account, or the company's apps. */
export const signOutScopeOf = (row: { fully_managed: boolean }, companyId: string): SignOutScope =>
  row.fully_managed ? {} : { companyId };
