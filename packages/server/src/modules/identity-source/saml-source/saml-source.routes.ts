import { interpolate } from '@tessera/contract';
import { portalPhrases, renderAutoPostPage, renderErrorPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/database.ts';
import { randomToken, type Sealer, sha256 } from '../../../lib/crypto.ts';
import type { InteractionHelpers } from '../../oidc/interaction.routes.ts';
import { INTERACTION_PATH } from '../../oidc/provider.ts';
import { insertLoginEvent } from '../../signin/login-events.repo.ts';
import * as repo from '../identity-source.repo.ts';
import { secretPurpose } from '../source-settings.ts';
import type { UpstreamIdentity } from '../upstream/upstream-identity.ts';
import type { UpstreamKind, UpstreamOffer, UpstreamSignIn } from '../upstream/upstream-signin.ts';
import { answerRequest, takeAnswer } from './saml-source.repo.ts';
import { personOf } from './saml-source-people.ts';
import {
  SamlSourceRefusal,
  serviceProviderMetadata,
  startSignIn,
  verifyResponse,
} from './saml-source-protocol.ts';
import { SAML_SOURCE_PATH } from './saml-source-settings.ts';

/**
 * The SAML kind of upstream source (Tessera as service provider). The start (the sign-in page's
 * button, or home-realm discovery, through the shared upstream sign-in) sends a signed
 * AuthnRequest to the upstream, remembered with the interaction. The upstream posts its Response
 * to the source's ACS (a cross-site POST, which carries no cookie of ours): it is verified there,
 * and the request it answers names the interaction, which the browser is sent back to with a
 * one-time handoff. The interaction's own page (its cookie proves the browser) takes it and hands
 * the person to the shared finish: the person linked or created, budgets, the company's checks,
 * the login event, the second factor unless the upstream's authentication context counts as one.
 */

export interface SamlSourceDeps {
  db: Db;
  sealer: Sealer;
  publicUrl: string;
  log: { warn(object: object, message: string): void };
}

type SamlSourceRow = Extract<repo.AnySource, { type: 'saml' }>;
const isSamlSource = (source: repo.AnySource | undefined): source is SamlSourceRow => source?.type === 'saml';
const keyOf = (deps: SamlSourceDeps, source: SamlSourceRow) =>
  deps.sealer.open(source.secret_sealed ?? '', secretPurpose(source.id));

export function createSamlKind(deps: SamlSourceDeps): UpstreamKind {
  return {
    async start(source, at) {
      if (source.type !== 'saml') throw new Error(`not a SAML source: ${source.type}`);
      const started = await startSignIn(
        deps.db,
        deps.publicUrl,
        source,
        keyOf(deps, source),
        at.interactionUid,
      );
      if (started.kind === 'redirect') return { redirect: started.url };
      const t = portalPhrases[at.page.lang].upstream;
      return {
        html: renderAutoPostPage(at.page, {
          title: interpolate(t.goingTitle, { name: source.name }),
          intro: interpolate(t.goingIntro, { name: source.name }),
          action: started.action,
          fields: Object.entries(started.fields).map(([name, value]) => ({ name, value })),
        }),
      };
    },
  };
}

export function samlSourceRoutes(
  app: FastifyInstance,
  deps: SamlSourceDeps & { offer: UpstreamOffer; signIn: UpstreamSignIn },
  helpers: InteractionHelpers,
) {
  const { db } = deps;
  const fail = (request: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    helpers.sendPage(reply, status, renderErrorPage(helpers.pageContext(request), { message }));

  app.get<{ Params: { sourceId: string } }>(
    `${SAML_SOURCE_PATH}/:sourceId/metadata`,
    async (request, reply) => {
      const source = await repo.findSourceById(db, request.params.sourceId);
      if (!isSamlSource(source)) return reply.status(404).type('text/plain').send('Not found');
      return reply
        .type('application/samlmetadata+xml')
        .header('content-disposition', `attachment; filename="tessera-sp-${source.id}.xml"`)
        .send(serviceProviderMetadata(deps.publicUrl, source));
    },
  );

  app.post<{ Params: { sourceId: string }; Body: Record<string, string | undefined> }>(
    `${SAML_SOURCE_PATH}/:sourceId/acs`,
    async (request, reply) => {
      const t = portalPhrases[request.lang].upstream;
      const source = await repo.findSourceById(db, request.params.sourceId);
      if (!isSamlSource(source) || !source.enabled) return fail(request, reply, 404, t.expired);
      let verified: Awaited<ReturnType<typeof verifyResponse>>;
      try {
        verified = await verifyResponse(
          db,
          deps.publicUrl,
          source,
          keyOf(deps, source),
          String(request.body?.SAMLResponse ?? ''),
        );
      } catch (error) {
        if (!(error instanceof SamlSourceRefusal)) throw error;
        deps.log.warn({ sourceId: source.id, reason: error.message }, 'SAML source response refused');
        await insertLoginEvent(db, {
          companyId: source.company_id,
          accountId: null,
          identifier: 'saml:',
          clientId: null,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          result: 'failure',
          failureCause: 'upstream_failed',
          method: `saml:${source.name}`.slice(0, 100),
        });
        return fail(request, reply, 400, interpolate(t.refused, { name: source.name }));
      }
      const handoff = randomToken();
      // What the ACS hands to the interaction: who the upstream says it is, and whether that was multi-factor.
      const uid = await answerRequest(db, source.id, verified.requestId, {
        handoffHash: sha256(handoff),
        verified: personOf(source.settings, verified),
      });
      if (!uid) return fail(request, reply, 400, t.expired);
      return reply.redirect(`${INTERACTION_PATH}/${uid}/saml-done?${new URLSearchParams({ handoff })}`, 303);
    },
  );

  app.get<{ Params: { uid: string }; Querystring: { handoff?: string } }>(
    `${INTERACTION_PATH}/:uid/saml-done`,
    async (request, reply) => {
      const interaction = await helpers.details(request, reply);
      if (!interaction) return reply;
      const taken = await takeAnswer(db, interaction.uid, sha256(String(request.query.handoff ?? '')));
      // Only an enabled source of the company whose application this is.
      const source =
        taken && (await deps.offer.sourceFor(String(interaction.params.client_id), taken.source_id));
      if (!taken || source?.type !== 'saml')
        return fail(request, reply, 400, portalPhrases[request.lang].upstream.expired);
      return deps.signIn.finish(request, reply, interaction, source, taken.verified as UpstreamIdentity);
    },
  );
}
