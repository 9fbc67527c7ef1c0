import { interpolate, type UpstreamSourceType } from '@tessera/contract';
import { type PageContext, portalPhrases, renderErrorPage, type UpstreamButton } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/database.ts';
import type { Sealer } from '../../../lib/crypto.ts';
import { translateError } from '../../../lib/i18n.ts';
import type { AccountsRepo } from '../../account/account.repo.ts';
import type { QuotaService } from '../../license/quota.service.ts';
import type { InteractionHelpers } from '../../oidc/interaction.routes.ts';
import type { Interaction, InteractionDeps } from '../../oidc/interaction-kit.ts';
import { pageContext, sendPage } from '../../oidc/interaction-page.ts';
import { INTERACTION_PATH } from '../../oidc/provider.ts';
import { insertLoginEvent } from '../../signin/login-events.repo.ts';
import type { SignInService } from '../../signin/signin.service.ts';
import * as repo from '../identity-source.repo.ts';
import { scanPerson } from '../scan/scan-people.ts';
import { SourceFailure } from '../source-failure.ts';
import { keepGroupsInStep } from './upstream-groups.ts';
import type { UpstreamIdentity } from './upstream-identity.ts';
import { rememberUpstreamSignIn } from './upstream-sessions.repo.ts';
import {
  findEnabledUpstreamSources,
  findSourceOfEmailDomain,
  isUpstreamSource,
  type UpstreamSourceRow,
} from './upstream-sources.repo.ts';

/**
 * Signing in at a company's upstream identity provider, whatever its protocol: the sign-in
 * page's buttons and home-realm discovery, the start of a sign-in (each kind sends the browser
 * its own way), and the shared finish once a kind has verified who came back: the person linked
 * to the provider's id (or created, by the first-sign-in rule), their departments in step with
 * the groups asserted now (upstream-groups.ts), the same checks as after a
 * password (budgets, status, application access) with a login event naming the source, then the
 * sign-in steps, where the company's second factor is asked unless the source counts the
 * provider's assertion of one.
 */

/** A sign-in to start: its interaction, and the address typed when home-realm discovery sent it. */
export interface UpstreamStart {
  interactionUid: string;
  loginHint?: string;
}

/** What a kind of upstream source does at the start of a sign-in. */
export interface UpstreamKind {
  /**
   * Starts a sign-in at the source for the interaction: where the browser goes (`redirect`, 303),
   * or a page that sends itself there (`html`, e.g. SAML's HTTP-POST binding). Throws a
   * SourceFailure when the provider cannot be reached (shown to the person).
   */
  start(
    source: UpstreamSourceRow,
    at: UpstreamStart & { page: PageContext },
  ): Promise<{ redirect: string } | { html: string }>;
}

export type UpstreamKinds = { [T in UpstreamSourceType]: UpstreamKind };

export interface UpstreamDeps {
  db: Db;
  quotas: Pick<QuotaService, 'takePlaces'>;
  accounts: Pick<AccountsRepo, 'findAccountById'>;
  signIn: SignInService;
  clientCompany(clientId: string): Promise<string | null>;
  kinds: UpstreamKinds;
  /** Seals the provider's ID token kept for its logout (upstream-sessions.repo.ts). */
  sealer: Sealer;
}

/** The upstream sources on the sign-in page and home-realm discovery, for the interaction (InteractionDeps). */
export function createUpstreamOffer(deps: UpstreamDeps) {
  const { db } = deps;

  async function onPage(clientId: string, uid: string) {
    const companyId = await deps.clientCompany(clientId);
    const sources = companyId ? await findEnabledUpstreamSources(db, companyId) : [];
    const buttons: UpstreamButton[] = sources.map((source) => ({
      action: `${INTERACTION_PATH}/${uid}/upstream/${source.id}`,
      type: source.type,
      name: source.name,
      logoUrl: source.settings.logoUrl ?? null,
    }));
    return { buttons, domains: sources.flatMap((source) => source.settings.emailDomains) };
  }

  /** Sends the browser to the source (a redirect or a self-posting page); a failure shows an error page. */
  async function start(
    request: FastifyRequest,
    reply: FastifyReply,
    source: UpstreamSourceRow,
    at: UpstreamStart,
  ) {
    let started: Awaited<ReturnType<UpstreamKind['start']>>;
    try {
      started = await deps.kinds[source.type].start(source, { ...at, page: pageContext(request) });
    } catch (error) {
      if (!(error instanceof SourceFailure)) throw error;
      const detail = translateError(request.lang, error.reason, error.params);
      const message = interpolate(portalPhrases[request.lang].upstream.failed, { name: source.name, detail });
      return sendPage(reply, 502, renderErrorPage(pageContext(request), { message }));
    }
    if ('html' in started) return sendPage(reply, 200, started.html);
    return reply.redirect(started.redirect, 303);
  }

  /**
   * Home-realm discovery: when the identifier typed is an address of a domain an enabled upstream
   * source of the client's company lists, the browser is sent there (true); else false.
   */
  async function homeRealm(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    identifier: string,
  ) {
    const companyId = await deps.clientCompany(String(interaction.params.client_id));
    const source = companyId ? await findSourceOfEmailDomain(db, companyId, identifier) : undefined;
    if (!source) return false;
    await start(request, reply, source, { interactionUid: interaction.uid, loginHint: identifier });
    return true;
  }

  /** The enabled upstream source of the client's company with this id, or nothing. */
  async function sourceFor(clientId: string, sourceId: string) {
    const source = await repo.findSourceById(db, sourceId);
    const companyId = await deps.clientCompany(clientId);
    return isUpstreamSource(source) && source.enabled && source.company_id === companyId ? source : undefined;
  }

  const offer = { onPage, start, homeRealm, sourceFor };
  return offer satisfies NonNullable<InteractionDeps['upstream']>;
}

export type UpstreamOffer = ReturnType<typeof createUpstreamOffer>;

/** The button's route, and the shared finish of every kind. */
export function upstreamSignInRoutes(
  app: FastifyInstance,
  deps: UpstreamDeps & { offer: UpstreamOffer },
  helpers: InteractionHelpers,
) {
  const { db } = deps;

  const fail = (request: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    helpers.sendPage(reply, status, renderErrorPage(helpers.pageContext(request), { message }));

  app.post<{ Params: { uid: string; sourceId: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/upstream/:sourceId`,
    async (request, reply) => {
      const interaction = await helpers.submitted(request, reply);
      if (!interaction) return reply;
      const clientId = String(interaction.params.client_id);
      const source = await deps.offer.sourceFor(clientId, request.params.sourceId);
      if (!source)
        return helpers.showSignIn(request, reply, interaction.uid, clientId, {
          error: portalPhrases[request.lang].upstream.expired,
          status: 404,
        });
      return deps.offer.start(request, reply, source, { interactionUid: interaction.uid });
    },
  );

  /**
   * A kind verified the provider's answer (or refused it: a SourceFailure): the person signs in
   * through the pipeline. The source is the one the used state named, checked by the caller to
   * be an enabled source of the client's company.
   */
  async function finish(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    source: UpstreamSourceRow,
    outcome: UpstreamIdentity | SourceFailure,
  ) {
    const t = portalPhrases[request.lang].upstream;
    const clientId = String(interaction.params.client_id);
    const event = {
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
      clientId,
      companyId: source.company_id,
    };
    const logFailure = (
      cause: 'upstream_failed' | 'upstream_not_linked' | 'directory_conflict',
      identifier: string,
    ) =>
      insertLoginEvent(db, {
        ...event,
        accountId: null,
        identifier: identifier.slice(0, 254),
        result: 'failure',
        failureCause: cause,
        method: `${source.type}:${source.name}`.slice(0, 100),
      });
    if (outcome instanceof SourceFailure) {
      await logFailure('upstream_failed', `${source.type}:`);
      const detail = translateError(request.lang, outcome.reason, outcome.params);
      return fail(request, reply, 502, interpolate(t.failed, { name: source.name, detail }));
    }
    const found = await scanPerson(deps, source, {
      externalId: outcome.externalId,
      login: outcome.username,
      name: outcome.name,
      email: outcome.email,
      phone: outcome.phone,
    });
    if (found === 'not_linked' || found === 'conflict') {
      await logFailure(
        found === 'conflict' ? 'directory_conflict' : 'upstream_not_linked',
        `${source.type}:${outcome.username}`,
      );
      const company = await db
        .selectFrom('companies')
        .select('name')
        .where('id', '=', source.company_id)
        .executeTakeFirst();
      const message =
        found === 'conflict'
          ? portalPhrases[request.lang].signIn.directoryConflict
          : interpolate(t.notLinked, { name: source.name, company: company?.name ?? '' });
      return fail(request, reply, 403, message);
    }
    const account = await deps.accounts.findAccountById(found.accountId);
    if (!account) return fail(request, reply, 400, t.expired);
    // Before the access rule is asked: an application may be assigned to a department of the groups.
    await keepGroupsInStep(db, source, account.id, outcome.groups);
    const result = await deps.signIn.signInVerified(account, {
      ...event,
      method: `${source.type}:${source.name}`.slice(0, 100),
    });
    if (!result.ok)
      return helpers.showSignIn(request, reply, interaction.uid, clientId, {
        error: await helpers.failureMessage(request, clientId, result),
        status: 401,
      });
    // What the provider's logout needs, bound to the single sign-on session once the sign-in completes.
    if (outcome.session)
      await rememberUpstreamSignIn(db, deps.sealer, {
        interactionUid: interaction.uid,
        sourceId: source.id,
        accountId: account.id,
        session: outcome.session,
      });
    // RFC 8176: a federated sign-in; the provider's second factor counts when the source says so.
    const mfaCounts = outcome.upstreamMfa;
    return helpers.firstFactorPassed(
      request,
      reply,
      interaction,
      { accountId: account.id, amr: mfaCounts ? ['fed', 'mfa'] : ['fed'] },
      mfaCounts ? ['bind_factor', 'second_factor'] : [],
    );
  }

  return { finish };
}

export type UpstreamSignIn = ReturnType<typeof upstreamSignInRoutes>;
