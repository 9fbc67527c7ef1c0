import { interpolate } from '@tessera/contract';
import { portalPhrases, renderAutoPostPage, renderErrorPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/database.ts';
import { randomToken, type Sealer, sha256 } from '../../../lib/crypto.ts';
import type { AccountsRepo } from '../../account/account.repo.ts';
import type { QuotaService } from '../../license/quota.service.ts';
import type { InteractionHelpers } from '../../oidc/interaction.routes.ts';
import { INTERACTION_PATH } from '../../oidc/provider.ts';
import { insertLoginEvent } from '../../signin/login-events.repo.ts';
import type { SignInService } from '../../signin/signin.service.ts';
import * as repo from '../identity-source.repo.ts';
import { secretPurpose } from '../identity-source.service.ts';
import { answerRequest, takeAnswer } from './saml-source.repo.ts';
import { personOf, samlPerson, type UpstreamPerson } from './saml-source-people.ts';
import {
  SamlSourceRefusal,
  serviceProviderMetadata,
  startSignIn,
  verifyResponse,
} from './saml-source-protocol.ts';
import { SAML_SOURCE_PATH } from './saml-source-settings.ts';

/**
 * Sign-in at a company's upstream SAML identity provider. The sign-in page's button posts to
 * `/interaction/:uid/saml/:sourceId`: a signed AuthnRequest goes to the upstream, remembered with
 * the interaction. The upstream posts its Response to the source's ACS (a cross-site POST, which
 * carries no cookie of ours): it is verified there, and the request it answers names the
 * interaction, which the browser is sent back to with a one-time handoff. The interaction's own
 * page (its cookie proves the browser) takes it, finds the person and goes on as after any first
 * factor: budgets, the company's checks, the login event, the second factor unless the upstream's
 * authentication context counts as one.
 */

export interface SamlSourceDeps {
  db: Db;
  sealer: Sealer;
  publicUrl: string;
  quotas: Pick<QuotaService, 'takePlaces'>;
  accounts: Pick<AccountsRepo, 'findAccountById'>;
  signIn: SignInService;
  clientCompany(clientId: string): Promise<string | null>;
  log: { warn(object: object, message: string): void };
}

type SamlSourceRow = Extract<repo.AnySource, { type: 'saml' }>;
const isSamlSource = (source: repo.AnySource | undefined): source is SamlSourceRow => source?.type === 'saml';

/** The start of the sign-in at a source (the sign-in page's button posts here with its CSRF token). */
export const samlSignInAction = (interactionUid: string, sourceId: string) =>
  `${INTERACTION_PATH}/${interactionUid}/saml/${encodeURIComponent(sourceId)}`;

export function samlSourceRoutes(app: FastifyInstance, deps: SamlSourceDeps, helpers: InteractionHelpers) {
  const { db } = deps;
  const keyOf = (source: SamlSourceRow) =>
    deps.sealer.open(source.secret_sealed ?? '', secretPurpose(source.id));
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
      const t = portalPhrases[request.lang].samlSource;
      const source = await repo.findSourceById(db, request.params.sourceId);
      if (!isSamlSource(source) || !source.enabled) return fail(request, reply, 404, t.expired);
      const provider = { provider: source.name };
      let verified: Awaited<ReturnType<typeof verifyResponse>>;
      try {
        verified = await verifyResponse(
          db,
          deps.publicUrl,
          source,
          keyOf(source),
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
        return fail(request, reply, 400, interpolate(t.refused, provider));
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

  app.post<{ Params: { uid: string; sourceId: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/saml/:sourceId`,
    async (request, reply) => {
      const interaction = await helpers.submitted(request, reply);
      if (!interaction) return reply;
      const clientId = String(interaction.params.client_id);
      const source = await repo.findSourceById(db, request.params.sourceId);
      // Only the sources of the company whose application this is: anything else is no source at all.
      const companyId = await deps.clientCompany(clientId);
      if (!isSamlSource(source) || !source.enabled || source.company_id !== companyId)
        return helpers.showSignIn(request, reply, interaction.uid, clientId, {
          error: portalPhrases[request.lang].samlSource.expired,
          status: 404,
        });
      const started = await startSignIn(db, deps.publicUrl, source, keyOf(source), interaction.uid);
      if (started.kind === 'redirect') return reply.redirect(started.url, 303);
      const t = portalPhrases[request.lang].samlSource;
      return helpers.sendPage(
        reply,
        200,
        renderAutoPostPage(helpers.pageContext(request), {
          title: interpolate(t.goingTitle, { provider: source.name }),
          intro: interpolate(t.goingIntro, { provider: source.name }),
          action: started.action,
          fields: Object.entries(started.fields).map(([name, value]) => ({ name, value })),
        }),
      );
    },
  );

  app.get<{ Params: { uid: string }; Querystring: { handoff?: string } }>(
    `${INTERACTION_PATH}/:uid/saml-done`,
    async (request, reply) => {
      const interaction = await helpers.details(request, reply);
      if (!interaction) return reply;
      const t = portalPhrases[request.lang].samlSource;
      const clientId = String(interaction.params.client_id);
      const taken = await takeAnswer(db, interaction.uid, sha256(String(request.query.handoff ?? '')));
      const source = taken && (await repo.findSourceById(db, taken.source_id));
      const companyId = await deps.clientCompany(clientId);
      if (!taken || !isSamlSource(source) || !source.enabled || source.company_id !== companyId)
        return fail(request, reply, 400, t.expired);
      const person = taken.verified as UpstreamPerson;
      const multiFactor = person.upstreamMfa;
      const event = {
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        clientId,
        companyId,
        // As the OpenID Connect source names itself: the kind and the source's name.
        method: `saml:${source.name}`.slice(0, 100),
      };
      const found = await samlPerson(deps, source, person);
      if (found === 'not_linked' || found === 'conflict') {
        await insertLoginEvent(db, {
          ...event,
          accountId: null,
          identifier: `saml:${person.externalId}`.slice(0, 256),
          result: 'failure',
          failureCause: found === 'conflict' ? 'directory_conflict' : 'upstream_not_linked',
        });
        const company = await db
          .selectFrom('companies')
          .select('name')
          .where('id', '=', source.company_id)
          .executeTakeFirst();
        const message =
          found === 'conflict'
            ? portalPhrases[request.lang].signIn.directoryConflict
            : interpolate(t.notLinked, { provider: source.name, company: company?.name ?? '' });
        return fail(request, reply, 403, message);
      }
      const account = await deps.accounts.findAccountById(found.accountId);
      if (!account) return fail(request, reply, 400, t.expired);
      const result = await deps.signIn.signInVerified(account, event);
      if (!result.ok)
        return helpers.showSignIn(request, reply, interaction.uid, clientId, {
          error: await helpers.failureMessage(request, clientId, result),
          status: 401,
        });
      // The upstream's multi-factor authentication stands for the company's second factor.
      return helpers.firstFactorPassed(
        request,
        reply,
        interaction,
        { accountId: account.id, amr: multiFactor ? ['fed', 'mfa'] : ['fed'] },
        multiFactor ? ['bind_factor', 'second_factor'] : [],
      );
    },
  );
}
