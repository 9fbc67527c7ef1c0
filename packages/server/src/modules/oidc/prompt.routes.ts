import { type PageContext, renderConsentPage, renderSelectAccountPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionResults, default as Provider } from 'oidc-provider';
import type { AccountsRepo } from '../account/account.repo.ts';
import { appOf } from './clients.ts';
import { type ConsentStore, consentIsAutomatic, extendGrant } from './consent.ts';
import type { Interaction } from './interaction-kit.ts';
import { INTERACTION_PATH } from './provider.ts';

/** What the interaction pages share with these prompts (interaction.routes.ts). */
export interface PromptKit {
  provider(): Provider;
  accounts: Pick<AccountsRepo, 'findAccountById'>;
  consents: ConsentStore;
  companyName(companyId: string): Promise<string | undefined>;
  csrfFor(uid: string): string;
  pageContext(request: FastifyRequest): PageContext;
  sendPage(reply: FastifyReply, status: number, body: string): FastifyReply;
  clientName(clientId: string, request: FastifyRequest): Promise<string>;
  submitted(
    request: FastifyRequest<{ Body: Record<string, string | undefined> }>,
    reply: FastifyReply,
  ): Promise<Interaction | undefined>;
  finish(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    result: InteractionResults,
    mergeWithLastSubmission: boolean,
  ): Promise<FastifyReply>;
}

/** Set on the interaction when the person chose "Use another account". */
const SWITCH_KEY = 'tessera_switch_account';

const scopesOf = (interaction: Interaction) =>
  String(interaction.params.scope ?? '')
    .split(' ')
    .filter(Boolean);

/**
 * The consent prompt and the account choice (`prompt=select_account`). Both always end: a
 * decision finishes the interaction with a result the provider accepts (consent with its grant,
 * the choice of account, or `access_denied`), never an empty one.
 */
export function promptRoutes(app: FastifyInstance, kit: PromptKit) {
  /** Grants what the request asks (scopes and claims still missing) and ends the consent prompt. */
  async function grantConsent(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    remember: boolean,
  ) {
    const { Grant, Client } = kit.provider();
    const accountId = interaction.session?.accountId as string;
    const clientId = String(interaction.params.client_id);
    const existing = interaction.grantId ? await Grant.find(interaction.grantId) : undefined;
    const grant = existing ?? new Grant({ accountId, clientId });
    const details = interaction.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
    };
    const scopes = [...new Set([...scopesOf(interaction), ...(details.missingOIDCScope ?? [])])];
    const claims = details.missingOIDCClaims ?? [];
    extendGrant(grant, scopes, claims);
    const grantId = await grant.save();
    const app = appOf((await Client.find(clientId)) as never);
    if (remember && app) await kit.consents.remember(app.appId, accountId, { scopes, claims });
    return kit.finish(request, reply, interaction, { consent: { grantId } }, true);
  }

  /**
   * The consent prompt: automatic for Tessera's own clients and a company's self-built apps
   * (unless the app asked for the page with prompt=consent, or a native app reuses a session
   * without a sign-in just now), the consent page otherwise.
   */
  async function consent(request: FastifyRequest, reply: FastifyReply, interaction: Interaction) {
    const clientId = String(interaction.params.client_id);
    const client = await kit.provider().Client.find(clientId);
    const app = appOf(client as never);
    const reasons = interaction.prompt.reasons;
    const signedInJustNow = Boolean((interaction.lastSubmission as { login?: unknown } | undefined)?.login);
    const automatic =
      consentIsAutomatic(app) &&
      !reasons.includes('consent_prompt') &&
      (!reasons.includes('native_client_prompt') || signedInJustNow);
    // Tessera's own clients never show the page (prompt=consent included): the grant records it.
    if (!app || automatic) return grantConsent(request, reply, interaction, false);
    const account = await kit.accounts.findAccountById(String(interaction.session?.accountId));
    const details = interaction.prompt.details as { missingOIDCClaims?: string[] };
    return kit.sendPage(
      reply,
      200,
      renderConsentPage(kit.pageContext(request), {
        action: `${INTERACTION_PATH}/${interaction.uid}/consent`,
        csrfToken: kit.csrfFor(interaction.uid),
        clientName: await kit.clientName(clientId, request),
        companyName: await kit.companyName(app.companyId),
        username: account?.username ?? '',
        scopes: scopesOf(interaction),
        claims: details.missingOIDCClaims ?? [],
      }),
    );
  }

  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/consent`,
    async (request, reply) => {
      const interaction = await kit.submitted(request, reply);
      if (!interaction) return reply;
      // An old tab: show whatever is due now.
      if (interaction.prompt.name !== 'consent')
        return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
      if (request.body?.decision !== 'allow') {
        return kit.finish(
          request,
          reply,
          interaction,
          { error: 'access_denied', error_description: 'The person did not allow the application' },
          false,
        );
      }
      return grantConsent(request, reply, interaction, true);
    },
  );

  async function showSelectAccount(request: FastifyRequest, reply: FastifyReply, interaction: Interaction) {
    const account = await kit.accounts.findAccountById(String(interaction.session?.accountId));
    return kit.sendPage(
      reply,
      200,
      renderSelectAccountPage(kit.pageContext(request), {
        action: `${INTERACTION_PATH}/${interaction.uid}/select-account`,
        csrfToken: kit.csrfFor(interaction.uid),
        clientName: await kit.clientName(String(interaction.params.client_id), request),
        username: account?.username ?? '',
        name: account?.display_name ?? null,
      }),
    );
  }

  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/select-account`,
    async (request, reply) => {
      const interaction = await kit.submitted(request, reply);
      if (!interaction) return reply;
      if (interaction.prompt.name !== 'select_account')
        return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
      if (request.body?.account === 'other') {
        interaction.result = { ...interaction.result, [SWITCH_KEY]: true };
        await interaction.persist();
        return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
      }
      return kit.finish(request, reply, interaction, { select_account: {} }, true);
    },
  );

  return {
    consent,
    showSelectAccount,
    /** The person chose to sign in as someone else: the sign-in form is due. */
    switchingAccount: (interaction: Interaction) => Boolean(interaction.result?.[SWITCH_KEY]),
  };
}
