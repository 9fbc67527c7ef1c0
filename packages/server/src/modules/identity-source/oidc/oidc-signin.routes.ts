import { portalPhrases, renderErrorPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/database.ts';
import type { Sealer } from '../../../lib/crypto.ts';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import type { InteractionHelpers } from '../../oidc/interaction.routes.ts';
import { pageContext, sendPage } from '../../oidc/interaction-kit.ts';
import { INTERACTION_PATH } from '../../oidc/provider.ts';
import { type AccountSignOut, signOutScopeOf } from '../../oidc/sign-out.ts';
import { isFullyManaged } from '../../user/user-authority.ts';
import * as repo from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import { secretPurpose } from '../source-settings.ts';
import { rememberLogoutToken } from '../upstream/upstream-sessions.repo.ts';
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
   * Back-channel logout from the provider: a verified logout token ends the Tessera sessions of
   * the person linked to its `sub` (all of them when the source's company manages the person
   * fully, else that company's applications), and Tessera's applications are told in turn.
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
      const link = await repo.findLinkByExternalId(db, source.id, verified.subject);
      if (link) {
        const fullyManaged = await isFullyManaged(db, source.company_id, link.account_id);
        await deps.signOut(
          link.account_id,
          signOutScopeOf({ fully_managed: fullyManaged }, source.company_id),
        );
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
