import { portalPhrases, renderErrorPage, renderLoggedOutPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../../../db/database.ts';
import { randomToken, type Sealer, sha256 } from '../../../lib/crypto.ts';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import { pageContext, sendPage } from '../../oidc/interaction-page.ts';
import { type AccountSignOut, signOutScopeOf } from '../../oidc/sign-out.ts';
import { newSamlId } from '../../saml/saml-xml.ts';
import { isFullyManaged } from '../../user/user-authority.ts';
import * as repo from '../identity-source.repo.ts';
import { upstreamEndSessionUrl } from '../oidc/oidc-logout.ts';
import { openOidcSecret } from '../oidc/oidc-secret.ts';
import { upstreamConfiguration } from '../oidc/oidc-upstream.ts';
import {
  logoutRequestUrl,
  logoutResponseUrl,
  receiveLogoutMessage,
} from '../saml-source/saml-source-logout.ts';
import { SamlSourceRefusal } from '../saml-source/saml-source-protocol.ts';
import { SAML_SOURCE_PATH } from '../saml-source/saml-source-settings.ts';
import { secretPurpose } from '../source-settings.ts';
import {
  bindUpstreamSession,
  findSessionsOfNameId,
  forgetUpstreamSessions,
  insertUpstreamLogout,
  type TakenUpstreamSession,
  takeUpstreamLogout,
  takeUpstreamSession,
} from './upstream-sessions.repo.ts';
import { upstreamUrlsOf } from './upstream-settings.ts';
import { isUpstreamSource, type UpstreamSourceRow } from './upstream-sources.repo.ts';

/**
 * Signing out at the upstream identity provider too. A sign-in through an upstream source left
 * what the provider's logout needs beside the interaction (upstream-signin.ts); when the sign-in
 * completes, it is bound to the single sign-on session it made. When that session ends by a
 * sign-out (the user centre's, or an application's end_session: the provider's confirmation),
 * the browser, after Tessera's own sessions ended (and the SAML applications were told), goes to
 * the provider: an OpenID provider's end_session_endpoint with the ID token as id_token_hint, or
 * a SAML identity provider's single logout service with a signed LogoutRequest. It comes back
 * to Tessera (the post-logout redirect URI with the state, or a LogoutResponse at the SLO
 * endpoint) and ends where the sign-out was going. A provider without a logout endpoint, or one
 * that cannot be reached, leaves the sign-out local as before.
 */

type Next = () => Promise<unknown>;

export interface UpstreamLogoutDeps {
  db: Db;
  sealer: Sealer;
  publicUrl: string;
  outbound: OutboundPolicy;
  log: { warn(object: object, message: string): void };
}

const samlKeyOf = (deps: UpstreamLogoutDeps, source: UpstreamSourceRow) =>
  deps.sealer.open(source.secret_sealed ?? '', secretPurpose(source.id));

export function createUpstreamLogout(deps: UpstreamLogoutDeps) {
  const { db } = deps;

  /** Where the browser goes to sign out at the source, the sign-out going on to `next` afterwards. */
  async function providerLogoutUrl(taken: TakenUpstreamSession, next: string): Promise<string | undefined> {
    const source = await repo.findSourceById(db, taken.source_id);
    if (!isUpstreamSource(source) || !source.enabled) return undefined;
    if (source.settings.signOutUpstream === false) return undefined;
    if (source.type === 'oidc') {
      const config = await upstreamConfiguration(
        source.settings,
        openOidcSecret(deps.sealer, source.secret_sealed, secretPurpose(source.id)),
        deps.outbound,
      );
      const state = randomToken();
      const url = upstreamEndSessionUrl(config, {
        idTokenHint: taken.idToken,
        postLogoutRedirectUri: upstreamUrlsOf(deps.publicUrl, source.id).postLogoutRedirectUrl,
        state,
      });
      if (url) await insertUpstreamLogout(db, { id: sha256(state), sourceId: source.id, nextUrl: next });
      return url;
    }
    if (!source.settings.sloUrl || !taken.name_id) return undefined;
    const id = newSamlId();
    const url = logoutRequestUrl(deps.publicUrl, source, samlKeyOf(deps, source), {
      id,
      nameId: taken.name_id,
      nameIdFormat: taken.name_id_format,
      nameQualifier: taken.name_qualifier,
      spNameQualifier: taken.sp_name_qualifier,
      sessionIndex: taken.session_index,
    });
    await insertUpstreamLogout(db, { id, sourceId: source.id, nextUrl: next });
    return url;
  }

  /**
   * A post-middleware of the OIDC provider: a completed sign-in (resume) binds its upstream
   * session to the single sign-on session; a sign-out that ended one (end_session_confirm) goes
   * on to the provider, then where it was going.
   */
  async function hook(ctx: KoaContextWithOIDC, next: Next) {
    await next();
    const route = ctx.oidc?.route;
    if (route !== 'resume' && route !== 'end_session_confirm') return;
    const session = ctx.oidc.session as
      | (NonNullable<KoaContextWithOIDC['oidc']['session']> & { destroyed?: boolean })
      | undefined;
    try {
      if (route === 'resume') {
        const login = (ctx.oidc.result as { login?: { accountId?: string } } | undefined)?.login;
        const interactionUid = (ctx.oidc.entities as { Interaction?: { uid?: string } }).Interaction?.uid;
        if (login?.accountId && interactionUid && session?.uid && session.accountId === login.accountId)
          await bindUpstreamSession(db, {
            interactionUid,
            accountId: login.accountId,
            ssoSessionUid: session.uid,
          });
        return;
      }
      const location = ctx.response.get('location');
      if (ctx.status !== 303 || !session?.destroyed || !session.accountId || !session.uid || !location)
        return;
      const taken = await takeUpstreamSession(db, deps.sealer, session.uid, session.accountId);
      const url = taken && (await providerLogoutUrl(taken, location));
      if (url) {
        ctx.status = 303;
        ctx.redirect(url);
      }
    } catch (error) {
      // The sign-in or sign-out at Tessera stands; only the provider's part is left out.
      deps.log.warn({ err: error, route }, 'upstream logout step failed');
    }
  }

  return { hook };
}

export type UpstreamLogout = ReturnType<typeof createUpstreamLogout>;

/** The addresses the providers come back to: after their sign-out, and their SAML logout messages. */
export function upstreamLogoutRoutes(
  app: FastifyInstance,
  deps: UpstreamLogoutDeps & { signOut: AccountSignOut['signOutAccountEverywhere'] },
) {
  const { db } = deps;
  const signedOut = (request: FastifyRequest, reply: FastifyReply) =>
    sendPage(reply, 200, renderLoggedOutPage(pageContext(request), {}));

  /** The post-logout redirect URI: the state sent names where the sign-out goes on to (once). */
  app.get<{ Params: { sourceId: string }; Querystring: { state?: string } }>(
    '/portal/upstream/:sourceId/logged-out',
    async (request, reply) => {
      const state = String(request.query.state ?? '');
      const next = state && (await takeUpstreamLogout(db, request.params.sourceId, sha256(state)));
      return next ? reply.redirect(next, 303) : signedOut(request, reply);
    },
  );

  /** The SAML source's single logout service: the upstream's LogoutResponse, or its own LogoutRequest. */
  const slo = async (request: FastifyRequest<{ Params: { sourceId: string } }>, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store');
    const source = await repo.findSourceById(db, request.params.sourceId);
    const refused = () =>
      sendPage(
        reply,
        400,
        renderErrorPage(pageContext(request), { message: portalPhrases[request.lang].upstream.expired }),
      );
    if (source?.type !== 'saml' || !source.enabled) return refused();
    let received: Awaited<ReturnType<typeof receiveLogoutMessage>>;
    try {
      received = await receiveLogoutMessage(db, deps.publicUrl, source, request);
    } catch (error) {
      if (!(error instanceof SamlSourceRefusal)) throw error;
      deps.log.warn({ sourceId: source.id, reason: error.message }, 'SAML source logout message refused');
      return refused();
    }
    if (received.kind === 'LogoutResponse') {
      // Only the answer to a LogoutRequest Tessera sent and still waits for, once.
      const next = await takeUpstreamLogout(db, source.id, received.inResponseTo);
      if (!next) return refused();
      if (!received.success)
        deps.log.warn({ sourceId: source.id }, 'the upstream did not confirm single logout');
      return reply.redirect(next, 303);
    }
    // The upstream ends the person's session there: their Tessera sessions made through it end.
    const sessions = await findSessionsOfNameId(db, source.id, received.nameId, received.sessionIndexes);
    await forgetUpstreamSessions(
      db,
      sessions.map((s) => s.id),
    );
    for (const accountId of new Set(sessions.map((s) => s.account_id))) {
      const fullyManaged = await isFullyManaged(db, source.company_id, accountId);
      await deps.signOut(accountId, signOutScopeOf({ fully_managed: fullyManaged }, source.company_id));
    }
    const answer = logoutResponseUrl(deps.publicUrl, source, samlKeyOf(deps, source), {
      inResponseTo: received.id,
      relayState: received.relayState,
    });
    return answer ? reply.redirect(answer, 303) : signedOut(request, reply);
  };
  app.get<{ Params: { sourceId: string } }>(`${SAML_SOURCE_PATH}/:sourceId/slo`, slo);
  app.post<{ Params: { sourceId: string } }>(`${SAML_SOURCE_PATH}/:sourceId/slo`, slo);
}
