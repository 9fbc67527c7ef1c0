import { interpolate } from '@tessera/contract';
import { portalPhrases, renderErrorPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/database.ts';
import type { Sealer } from '../../../lib/crypto.ts';
import { translateError } from '../../../lib/i18n.ts';
import type { AccountsRepo } from '../../account/account.repo.ts';
import type { QuotaService } from '../../license/quota.service.ts';
import type { InteractionHelpers } from '../../oidc/interaction.routes.ts';
import { INTERACTION_PATH } from '../../oidc/provider.ts';
import { insertLoginEvent } from '../../signin/login-events.repo.ts';
import type { SignInService } from '../../signin/signin.service.ts';
import * as repo from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import { secretPurpose } from '../source-settings.ts';
import { authorizeUrl, exchangeCode, type ProviderUrls, type ScanSource } from './providers.ts';
import { scanPerson } from './scan-people.ts';
import { callbackUrlOf } from './scan-settings.ts';
import { consumeScanState, createScanState, findScanState } from './scan-states.repo.ts';

/**
 * Scan sign-in on the sign-in page: a button per enabled DingTalk, WeChat or WeCom source of the
 * company whose application is being signed in to starts the provider's QR / OAuth page with a
 * state bound to the interaction; the provider returns to the source's callback address, which
 * hands the code back to the same interaction (its cookie proves the browser). There the state
 * is used once, the code exchanged at the provider, and the person found by the provider's
 * stable id goes through the same checks as after a password, then the sign-in steps (MFA).
 */

export const SCAN_TYPES = ['dingtalk', 'weixin', 'work_weixin'] as const;
export type ScanSourceRow = Extract<repo.AnySource, { type: (typeof SCAN_TYPES)[number] }>;
export const isScanSource = (source: repo.AnySource | undefined): source is ScanSourceRow =>
  Boolean(source && (SCAN_TYPES as readonly string[]).includes(source.type));

export interface ScanDeps {
  db: Db;
  sealer: Sealer;
  publicUrl: string;
  urls: ProviderUrls;
  quotas: Pick<QuotaService, 'takePlaces'>;
  accounts: Pick<AccountsRepo, 'findAccountById'>;
  signIn: SignInService;
  clientCompany(clientId: string): Promise<string | null>;
}

/** The provider's code in a callback: `code`, or DingTalk's `authCode`. */
export const codeOf = (query: { code?: string; authCode?: string }) =>
  String(query.code ?? query.authCode ?? '').slice(0, 512);

export const scanSourceOf = (source: ScanSourceRow) =>
  ({ type: source.type, settings: source.settings }) as ScanSource;

export function scanSignInRoutes(app: FastifyInstance, deps: ScanDeps, helpers: InteractionHelpers) {
  const { db } = deps;

  const fail = async (request: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    helpers.sendPage(reply, status, renderErrorPage(helpers.pageContext(request), { message }));

  app.post<{ Params: { uid: string; sourceId: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/scan/:sourceId`,
    async (request, reply) => {
      const interaction = await helpers.submitted(request, reply);
      if (!interaction) return reply;
      const clientId = String(interaction.params.client_id);
      const source = await repo.findSourceById(db, request.params.sourceId);
      // Only the sources of the company whose application this is: anything else is no source at all.
      const companyId = await deps.clientCompany(clientId);
      if (!isScanSource(source) || !source.enabled || source.company_id !== companyId)
        return helpers.showSignIn(request, reply, interaction.uid, clientId, {
          error: portalPhrases[request.lang].scan.expired,
          status: 404,
        });
      const state = await createScanState(db, {
        sourceId: source.id,
        purpose: 'sign_in',
        interactionUid: interaction.uid,
      });
      return reply.redirect(
        authorizeUrl(scanSourceOf(source), deps.urls, callbackUrlOf(deps.publicUrl, source.id), state),
        303,
      );
    },
  );

  app.get<{ Params: { uid: string }; Querystring: { state?: string; code?: string; authCode?: string } }>(
    `${INTERACTION_PATH}/:uid/scan-done`,
    async (request, reply) => {
      const interaction = await helpers.details(request, reply);
      if (!interaction) return reply;
      const t = portalPhrases[request.lang].scan;
      const clientId = String(interaction.params.client_id);
      const consumed = await consumeScanState(db, String(request.query.state ?? ''), {
        interactionUid: interaction.uid,
      });
      const source = consumed && (await repo.findSourceById(db, consumed.source_id));
      const companyId = await deps.clientCompany(clientId);
      if (!consumed || !isScanSource(source) || !source.enabled || source.company_id !== companyId)
        return fail(request, reply, 400, t.expired);
      const provider = t.providers[source.type] ?? source.type;
      const event = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, clientId, companyId };
      const logFailure = (
        cause: 'scan_failed' | 'scan_not_linked' | 'directory_conflict',
        accountId: string | null,
        identifier: string,
      ) => insertLoginEvent(db, { ...event, accountId, identifier, result: 'failure', failureCause: cause });
      let identity: Awaited<ReturnType<typeof exchangeCode>>;
      try {
        const secret = source.secret_sealed
          ? deps.sealer.open(source.secret_sealed, secretPurpose(source.id))
          : '';
        identity = await exchangeCode(scanSourceOf(source), secret, codeOf(request.query), deps.urls);
      } catch (error) {
        if (!(error instanceof SourceFailure)) throw error;
        await logFailure('scan_failed', null, `${source.type}:`);
        const detail = translateError(request.lang, error.reason, error.params);
        return fail(request, reply, 502, interpolate(t.failed, { provider, detail }));
      }
      const found = await scanPerson(deps, source, identity);
      if (found === 'not_linked' || found === 'conflict') {
        await logFailure(
          found === 'conflict' ? 'directory_conflict' : 'scan_not_linked',
          null,
          `${source.type}:${identity.externalId}`,
        );
        const company = await db
          .selectFrom('companies')
          .select('name')
          .where('id', '=', source.company_id)
          .executeTakeFirst();
        const message =
          found === 'conflict'
            ? portalPhrases[request.lang].signIn.directoryConflict
            : interpolate(t.notLinked, { provider, company: company?.name ?? '' });
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
      // Multiple-channel authentication (RFC 8176): the person confirmed in the provider's app.
      return helpers.firstFactorPassed(request, reply, interaction, { accountId: account.id, amr: ['mca'] });
    },
  );

  /**
   * The callback address registered with the provider (the same for sign-in and binding): the
   * state says which. A sign-in goes back to its interaction, whose cookie path is its own.
   */
  async function callback(
    request: FastifyRequest<{
      Params: { sourceId: string };
      Querystring: Record<string, string | undefined>;
    }>,
    reply: FastifyReply,
    bind: (request: FastifyRequest, reply: FastifyReply, state: string) => Promise<unknown>,
  ) {
    const stateValue = String(request.query.state ?? '');
    const state = await findScanState(db, request.params.sourceId, stateValue);
    if (!state) return fail(request, reply, 400, portalPhrases[request.lang].scan.expired);
    if (state.purpose === 'bind') return bind(request, reply, stateValue);
    const next = new URLSearchParams({ state: stateValue, code: codeOf(request.query) });
    return reply.redirect(`${INTERACTION_PATH}/${state.interaction_uid}/scan-done?${next}`, 303);
  }

  return { callback };
}
