import { sql } from 'kysely';
import type Provider from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import { appOf } from './clients.ts';

export interface SignOutOptions {
  /**
   * Only the applications of this company: their sessions are told to end and leave the single
   * sign-on session, which goes on for the person's other companies. Without it, every
   * application is told and the single sign-on sessions end.
   */
  companyId?: string;
}

export interface SignOutResult {
  /** Single sign-on sessions ended (or, with a company, left by that company's applications). */
  sessions: number;
  /** Back-channel logout tokens the applications accepted / that failed (logged by the provider). */
  delivered: number;
  failed: number;
}

interface SessionPayload {
  accountId?: string;
  authorizations?: Record<string, { sid?: string }>;
}

/**
 * Signs a person out of Tessera and of their applications without a browser: for every live
 * single sign-on session of the account, each application it signed in to that registered a
 * back-channel logout URI gets a signed logout token (with the session's `sid`), all at once and
 * awaited (each with the provider's short timeout; failures are logged without the token), then
 * the sessions end. Tokens that were bound to those sessions stop working with them; grants and
 * offline refresh tokens are revoked by the caller (an administrator's reset, disable, lock or
 * removal revokes them too).
 */
export function createSignOut(deps: { db: Db; provider(): Provider }) {
  return async function signOutAccountEverywhere(
    accountId: string,
    options: SignOutOptions = {},
  ): Promise<SignOutResult> {
    const provider = deps.provider();
    const rows = await deps.db
      .selectFrom('oidc_payloads')
      .select('id')
      .where('model', '=', 'Session')
      .where(sql<string>`payload->>'accountId'`, '=', accountId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .execute();
    const result: SignOutResult = { sessions: 0, delivered: 0, failed: 0 };
    const deliveries: Promise<void>[] = [];
    for (const { id } of rows) {
      const session = await provider.Session.find(id);
      const payload = session as unknown as SessionPayload | undefined;
      if (!session || payload?.accountId !== accountId) continue;
      const ended: string[] = [];
      for (const [clientId, authorization] of Object.entries(payload.authorizations ?? {})) {
        const client = await provider.Client.find(clientId).catch(() => undefined);
        if (options.companyId && appOf(client as never)?.companyId !== options.companyId) continue;
        ended.push(clientId);
        if (!client?.backchannelLogoutUri) continue;
        // oidc-provider's own sender (its logout token, timeout and fetch), as at an end-session.
        const send = (client as unknown as { backchannelLogout(sub: string, sid?: string): Promise<void> })
          .backchannelLogout;
        deliveries.push(
          send.call(client, accountId, authorization.sid).then(
            () => {
              result.delivered += 1;
              provider.emit('backchannel.success', undefined, client, accountId, authorization.sid);
            },
            (error: unknown) => {
              result.failed += 1;
              provider.emit('backchannel.error', undefined, error, client, accountId, authorization.sid);
            },
          ),
        );
      }
      if (options.companyId) {
        if (!ended.length) continue;
        for (const clientId of ended) delete payload.authorizations?.[clientId];
        const remaining = session.exp ? session.exp - Math.floor(Date.now() / 1000) : 0;
        if (remaining > 0) await session.save(remaining);
      } else {
        await session.destroy();
      }
      result.sessions += 1;
    }
    await Promise.all(deliveries);
    return result;
  };
}

export type SignOutAccountEverywhere = ReturnType<typeof createSignOut>;
