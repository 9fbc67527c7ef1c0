import type { FastifyBaseLogger } from 'fastify';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import type { ServiceSignOut } from '../oidc/sign-out.ts';
import { claimTicketsForLogout, findCasConfig } from './cas.repo.ts';
import { logoutRequestXml } from './cas-wire.ts';

/** A service gets this long to take its logout request (§2.3.3: the server does not wait on services). */
const LOGOUT_TIMEOUT_MS = 3_000;

type Next = () => Promise<unknown>;

/**
 * Single logout (§2.3.3, appendix C): when a single sign-on session ends, each CAS service that
 * validated a ticket in it gets the specification's `logoutRequest` posted on the back channel
 * (to the application's single-logout address, or the service URL of the ticket), under the
 * outbound-address rule and a short timeout. A service that does not answer stays signed in;
 * the person's sign-out goes on regardless.
 */
export function createCasSlo(deps: { db: Db; outbound: OutboundPolicy; log?: FastifyBaseLogger }) {
  const { db } = deps;

  async function send(url: string, ticket: string): Promise<void> {
    const response = await deps.outbound.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logoutRequest: logoutRequestXml(ticket) }).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(LOGOUT_TIMEOUT_MS),
    });
    await response.body?.cancel();
  }

  type Claimed = Awaited<ReturnType<typeof claimTicketsForLogout>>;

  /** Posts the logout requests of claimed tickets; answers when each service answered or timed out. */
  async function deliver(tickets: Claimed): Promise<void> {
    const configs = new Map<string, Awaited<ReturnType<typeof findCasConfig>>>();
    for (const ticket of tickets)
      if (!configs.has(ticket.app_id)) configs.set(ticket.app_id, await findCasConfig(db, ticket.app_id));
    const results = await Promise.allSettled(
      tickets.map(async (ticket) => {
        const config = configs.get(ticket.app_id);
        if (!config?.slo_enabled) return;
        await send(config.slo_url ?? ticket.service, ticket.id);
      }),
    );
    for (const result of results)
      if (result.status === 'rejected')
        deps.log?.warn({ err: result.reason }, 'a CAS service did not take its single logout request');
  }

  /** Tells every CAS service of an ended single sign-on session; answers when each answered or timed out. */
  async function afterSsoLogout(ssoSessionUid: string, accountId: string): Promise<void> {
    await deliver(await claimTicketsForLogout(db, ssoSessionUid, accountId));
  }

  /**
   * For an administrator's change that ends a person's sessions (modules/oidc/sign-out.ts): inside
   * its transaction, before the change, claims the tickets of those sessions (of one company's
   * applications with a company), so that a change that rolls back tells nobody and a removal that
   * takes the tickets with the account still tells; `send()` after the commit.
   */
  const serviceSignOut: ServiceSignOut = {
    async prepare(executor, accountId, ssoSessionUids, scope) {
      const tickets: Claimed = [];
      for (const uid of ssoSessionUids)
        tickets.push(...(await claimTicketsForLogout(executor, uid, accountId, scope.companyId)));
      return { send: () => deliver(tickets) };
    },
  };

  /** A post-middleware of the OIDC provider (its `provider.use`), like the SAML one. */
  const hook = async (ctx: KoaContextWithOIDC, next: Next) => {
    await next();
    if (ctx.oidc?.route !== 'end_session_confirm') return;
    const session = ctx.oidc.session as
      | (NonNullable<KoaContextWithOIDC['oidc']['session']> & { destroyed?: boolean })
      | undefined;
    if (!session?.destroyed || !session.accountId || !session.uid) return;
    await afterSsoLogout(session.uid, session.accountId);
  };

  return { afterSsoLogout, hook, serviceSignOut };
}

export type CasSlo = ReturnType<typeof createCasSlo>;
