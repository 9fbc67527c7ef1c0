import { portalPhrases, renderErrorPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/database.ts';
import type { Sealer } from '../../../lib/crypto.ts';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import type { InteractionHelpers } from '../../oidc/interaction.routes.ts';
import { pageContext, sendPage } from '../../oidc/interaction-page.ts';
import { INTERACTION_PATH } from '../../oidc/provider.ts';
import { type AccountSignOut, signOutScopeOf } from '../../oidc/sign-out.ts';
import { isFullyManaged } from '../../user/user-authority.ts';
import * as repo from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import { secretPurpose } from '../source-settings.ts';
import { findSessionsOfSid, rememberLogoutToken } from '../upstream/upstream-sessions.repo.ts';
import { upstreamUrlsOf } from '../upstream/upstream-settings.ts';
import type { UpstreamKind, UpstreamOffer, UpstreamSignIn } from '../upstream/upstream-signin.ts';
import {
  consumeUpstreamState,
  createUpstreamState,
  findUpstreamState,
  type UpstreamSourceRow,
} from '../upstream/upstream-sources.repo.ts';
import type { UpstreamDocuments } from './oidc-documents.ts';
import { verifyLogoutToken } from './oidc-logout.ts';
import { openOidcSecret, publicJwkOf } from './oidc-secret.ts';
import {
  finishUpstreamSignIn,
  newUpstreamChecks,
  upstreamAuthorizationUrl,
  upstreamConfiguration,
} from './oidc-upstream.ts';

/**
 * The OpenID Connect kind of upstream source: the start sends the browser to the provider's
 * authorization endpoint with a state, nonce and PKCE challenge kept for this interaction; the
 * provider returns to the source's callback address (the redirect URI registered there), which
 * hands the answer back to the same interaction (its cookie proves the browser); there the state
 * is used once, the code exchanged and the ID token verified, and the shared finish signs the
 * person in. The source's client-assertion key is published at its JWKS address.
 */

export interface OidcSourceDeps {
  db: Db;
  sealer: Sealer;
  publicUrl: string;
  outbound: OutboundPolicy;
  /** Ends a person's single sign-on sessions and tells their applications (oidc/sign-out.ts). */
  signOut: AccountSignOut['signOutAccountEverywhere'];
  /** The providers' discovery documents and keys, kept per source (oidc-documents.ts). */
  oidcDocuments: UpstreamDocuments;
}

type OidcSourceRow = Extract<UpstreamSourceRow, { type: 'oidc' }>;

const configurationOf = (deps: OidcSourceDeps, source: OidcSourceRow) =>
  upstreamConfiguration(
    source.settings,
    openOidcSecret(deps.sealer, source.secret_sealed, secretPurpose(source.id)),
    deps.outbound,
    { documents: deps.oidcDocuments, key: `${source.id} ${source.settings.issuer}` },
  );

export function createOidcKind(deps: OidcSourceDeps): UpstreamKind {
  return {
    async start(source, at) {
      if (source.type !== 'oidc') throw new Error(`not an OpenID Connect source: ${source.type}`);
      const config = await configurationOf(deps, source);
      const checks = newUpstreamChecks();
      const state = await createUpstreamState(deps.db, {
        sourceId: source.id,
        interactionUid: at.interactionUid,
        nonce: checks.nonce,
        codeVerifier: checks.codeVerifier,
      });
      const redirect = await upstreamAuthorizationUrl(config, source.settings, {
        redirectUri: upstreamUrlsOf(deps.publicUrl, source.id).callbackUrl,
        state,
        checks,
        loginHint: at.loginHint,
      });
      return { redirect };
    },
  };
}

export function oidcSourceRoutes(
  app: FastifyInstance,
  deps: OidcSourceDeps & { offer: UpstreamOffer; signIn: UpstreamSignIn },
  helpers: InteractionHelpers,
) {
  const { db } = deps;
  const expired = (request: FastifyRequest, reply: FastifyReply) =>
    sendPage(
      reply,
      400,
      renderErrorPage(pageContext(request), { message: portalPhrases[request.lang].upstream.expired }),
    );

  /** The redirect URI: the state names the interaction, whose own address (and cookie) takes the answer. */
  app.get<{ Params: { sourceId: string }; Querystring: Record<string, string | undefined> }>(
    '/portal/upstream/:sourceId/callback',
    async (request, reply) => {
      const state = await findUpstreamState(db, request.params.sourceId, String(request.query.state ?? ''));
      if (!state) return expired(request, reply);
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      return reply.redirect(
        `${INTERACTION_PATH}/${state.interaction_uid}/upstream-done/${request.params.sourceId}${query}`,
        303,
      );
    },
  );

  app.get<{ Params: { uid: string; sourceId: string }; Querystring: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/upstream-done/:sourceId`,
    async (request, reply) => {
      const interaction = await helpers.details(request, reply);
      if (!interaction) return reply;
      const stateValue = String(request.query.state ?? '');
      const used = await consumeUpstreamState(db, stateValue, interaction.uid);
      const source = await deps.offer.sourceFor(
        String(interaction.params.client_id),
        request.params.sourceId,
      );
      if (
        !used ||
        source?.type !== 'oidc' ||
        used.source_id !== source.id ||
        !used.nonce ||
        !used.code_verifier
      )
        return expired(request, reply);
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      let outcome: Awaited<ReturnType<typeof finishUpstreamSignIn>> | SourceFailure;
      try {
        outcome = await finishUpstreamSignIn(await configurationOf(deps, source), source.settings, {
          url: new URL(`${upstreamUrlsOf(deps.publicUrl, source.id).callbackUrl}${query}`),
          state: stateValue,
          checks: { nonce: used.nonce, codeVerifier: used.code_verifier },
        });
      } catch (error) {
        if (!(error instanceof SourceFailure)) throw error;
        outcome = error;
      }
      return deps.signIn.finish(request, reply, interaction, source, outcome);
    },
  );

  /**
   * Back-channel logout from the provider: a verified logout token ends the Tessera sessions it
   * names (sessionsNamedBy): with a `sid`, the sessions made through the source in that provider
   * session; with only a `sub`, every session of the person linked to it. Each ends wholly when
   * the source's company manages the person fully, else for that company's applications, and
   * Tessera's applications are told in turn.
   */
  app.post<{ Params: { sourceId: string }; Body: Record<string, string | undefined> }>(
    '/portal/upstream/:sourceId/backchannel-logout',
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const source = await repo.findSourceById(db, request.params.sourceId);
      const refuse = () => reply.status(400).send({ error: 'invalid_request' });
      if (source?.type !== 'oidc' || !source.enabled) return refuse();
      let verified: Awaited<ReturnType<typeof verifyLogoutToken>>;
      try {
        const config = await configurationOf(deps, source);
        verified = await verifyLogoutToken(
          config,
          source.settings,
          String(request.body?.logout_token ?? ''),
          deps.outbound,
        );
      } catch (error) {
        if (!(error instanceof SourceFailure)) throw error;
        return reply.status(501).send({ error: 'temporarily_unavailable' });
      }
      if (!verified) return refuse();
      // A token is used once, on any instance.
      if (!(await rememberLogoutToken(db, source.id, verified.jti, verified.acceptedUntil))) return refuse();
      // Sessions already gone, or unknown here, are a logout that succeeded (§2.7, §2.8).
      for (const { accountId, sessionUids } of await sessionsNamedBy(db, source.id, verified)) {
        const fullyManaged = await isFullyManaged(db, source.company_id, accountId);
        await deps.signOut(accountId, {
          ...signOutScopeOf({ fully_managed: fullyManaged }, source.company_id),
          ...(sessionUids ? { sessionUids } : {}),
        });
      }
      return reply.status(200).send();
    },
  );

  /** Tessera's client-assertion key of the source (private_key_jwt), for the provider to verify. */
  app.get<{ Params: { sourceId: string } }>('/portal/upstream/:sourceId/jwks', async (request, reply) => {
    const source = await repo.findSourceById(db, request.params.sourceId);
    const jwk =
      source?.type === 'oidc'
        ? publicJwkOf(openOidcSecret(deps.sealer, source.secret_sealed, secretPurpose(source.id)))
        : undefined;
    return reply
      .header('cache-control', 'public, max-age=300')
      .type('application/jwk-set+json')
      .send({ keys: jwk ? [jwk] : [] });
  });
}

/**
 * The Tessera sessions a logout token names, per account (OpenID Connect Back-Channel Logout 1.0
 * §2.7): with a `sid`, the live sessions made through the source in that provider session (with a
 * `sub` too, only when they are all the linked person's, else none); with only a `sub`, all of
 * the linked person's sessions (no `sessionUids`).
 */
async function sessionsNamedBy(
  db: Db,
  sourceId: string,
  token: { subject?: string; sid?: string },
): Promise<{ accountId: string; sessionUids?: string[] }[]> {
  const link = token.subject ? await repo.findLinkByExternalId(db, sourceId, token.subject) : undefined;
  if (!token.sid) return link ? [{ accountId: link.account_id }] : [];
  if (token.subject && !link) return [];
  const sessions = await findSessionsOfSid(db, sourceId, token.sid);
  if (link && sessions.some((s) => s.account_id !== link.account_id)) return [];
  const byAccount = new Map<string, string[]>();
  for (const { account_id, sso_session_uid } of sessions)
    if (sso_session_uid) byAccount.set(account_id, [...(byAccount.get(account_id) ?? []), sso_session_uid]);
  return [...byAccount].map(([accountId, sessionUids]) => ({ accountId, sessionUids }));
}
