import { portalPhrases, renderErrorPage, renderSignInPage, type UpstreamButton } from '@tessera/portal';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionResults, default as Provider } from 'oidc-provider';
import type { Account } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { safeEqual } from '../../lib/crypto.ts';
import { languageOfUiLocales } from '../../lib/i18n.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import type { AppAccessRefusal } from '../app/app-access.ts';
import type { Fido2Service } from '../mfa/fido2.service.ts';
import type { MfaService } from '../mfa/mfa.service.ts';
import { PORTAL_CLIENT_ID, USER_CENTRE_PATH } from '../portal/portal.routes.ts';
import type { DeviceCookies } from '../signin/device-cookie.ts';
import type { SignInResult, SignInService } from '../signin/signin.service.ts';
import { collectUpserts } from './adapter.ts';
import { acrFor, multiFactorRequested, requestedAcr } from './authentication-context.ts';
import type { CodeSignIn } from './code-sign-in.ts';
import type { ConsentStore } from './consent.ts';
import { type PageBrandWithLanguage, pageContext, sendPage, wearPageBrand } from './interaction-page.ts';
import { COMPANY_CODE_PARAM, INTERACTION_PATH, interactionSubject } from './provider.ts';
import type { SentCodeFactor } from './sign-in-code-factor.ts';
import type { SignInFacts } from './sign-in-facts.ts';
import { failureMessageOf } from './sign-in-messages.ts';
import type { StepsKit } from './sign-in-steps.routes.ts';
import {
  credentialsAtOf,
  type PendingSignIn,
  pendingSignInResult,
  type SignInStep,
  type StepName,
} from './sign-in-steps.ts';

export interface InteractionDeps {
  provider(): Provider;
  signIn: SignInService;
  sealer: Sealer;
  /** Who may use a client at all (the admin console is for platform administrators only). */
  clientAccessDenied(clientId: string, account: { is_platform_admin: boolean }): boolean;
  accounts: Pick<AccountsRepo, 'findAccountById'>;
  /** The account with the facts its sign-in steps decide on, in one statement (sign-in-facts.ts). */
  accountWithFacts: StepsKit['accountWithFacts'];
  /** The browser's device cookie: known browsers are throttled on their own (signin-throttle.ts). */
  devices: DeviceCookies;
  /** The sign-in pipeline after the first factor, in order (see sign-in-steps.ts). */
  steps: SignInStep[];
  secureCookies: boolean;
  /** Passkeys (modules/mfa/fido2.service.ts): the first factor when a company allows it. */
  passkey?: Fido2Service;
  /** The company a client belongs to (an application's), for the sign-in log; null for Tessera's own. */
  clientCompany(clientId: string): Promise<string | null>;
  /**
   * The brand of the company a client belongs to (an application's), if it has one; for the user
   * centre, the company its address named (`companyCode`, the authorization's COMPANY_CODE_PARAM).
   */
  brandOfClient?(clientId: string, companyCode?: string): Promise<PageBrandWithLanguage | null>;
  /**
   * Why a signed-in person may not use an application (modules/app/app-access.ts), recorded as
   * a login event; undefined when they may (or the client is no application).
   */
  appRefusal(input: {
    clientId: string;
    accountId: string;
    ip: string;
    userAgent: string | null;
  }): Promise<AppAccessRefusal | undefined>;
  /** What people allowed third-party applications (consent.ts). */
  consents: ConsentStore;
  /** The name of a company (the consent page names the application's company). */
  companyName(companyId: string): Promise<string | undefined>;
  /** Signing in with a code by email or SMS (code-sign-in.ts), when the company offers it. */
  codeSignIn?: CodeSignIn;
  /** The second factor by a code sent to a verified address (sign-in-code-factor.ts), with the MFA rules. */
  sentCodes?: SentCodeFactor & { mfa: MfaService };
  /**
   * The upstream identity providers the client's company offers (identity-source/upstream): a
   * button each, and home-realm discovery on submission of the form (true: the browser was sent
   * to the provider of the address's domain).
   */
  upstream?: {
    onPage(clientId: string, uid: string): Promise<{ buttons: UpstreamButton[]; domains: string[] }>;
    homeRealm(
      request: FastifyRequest,
      reply: FastifyReply,
      interaction: Interaction,
      identifier: string,
    ): Promise<boolean>;
  };
  /** The scan sign-ins (DingTalk, WeChat, WeCom) the client's company offers (modules/identity-source). */
  scanSources?(clientId: string): Promise<{ sourceId: string; type: string; name: string }[]>;
  /**
   * Whether the sign-in page offers "Forgot password?" (modules/password-reset): the company of the
   * client, or of the user centre address (`companyCode`), allows self-service reset.
   */
  forgotPasswordOffered?(clientId: string, companyCode?: string): Promise<boolean>;
}

export type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The `login_hint` of the authorization request: the sign-in form starts with it. */
export const loginHintOf = (interaction: Interaction) => {
  const hint = interaction.params.login_hint;
  return typeof hint === 'string' ? hint.slice(0, 254) : undefined;
};

/** The login result of a finished pipeline, with the acr the application asked for when met. */
export const loginResultOf = (interaction: Interaction, state: Pick<PendingSignIn, 'accountId' | 'amr'>) => ({
  accountId: state.accountId,
  amr: state.amr,
  acr: acrFor(state.amr, requestedAcr(interaction.params).values),
});

/**
 * What every page of the interaction shares: the interaction of a request, the sign-in form, the
 * CSRF check of a submission, and the hand-over back to the provider (after a first factor, the
 * pending sign-in steps first).
 */
export function createInteractionKit(deps: InteractionDeps) {
  const csrfFor = (uid: string) => deps.sealer.hmac('interaction-csrf', uid);
  /** The company code of the user centre address a request's interaction started from (read by details). */
  const companyCodes = new WeakMap<FastifyRequest, string>();

  /**
   * Every page of a sign-in for one of a company's applications (the form, second factor,
   * password change, refusals) wears the company's brand, in its default language unless the
   * person chose one (the lang cookie or a ?lang= link).
   */
  async function wearBrand(request: FastifyRequest, params: Record<string, unknown> | undefined) {
    const clientId = params?.client_id;
    if (!deps.brandOfClient || typeof clientId !== 'string') return;
    const code = params?.[COMPANY_CODE_PARAM];
    wearPageBrand(request, await deps.brandOfClient(clientId, typeof code === 'string' ? code : undefined));
  }

  /** The interaction the address names (`/interaction/<uid>/...`), for the brand of a page that refuses it. */
  async function interactionOfAddress(request: FastifyRequest) {
    const uid = request.url.slice(INTERACTION_PATH.length + 1).split(/[/?]/)[0] ?? '';
    if (!request.url.startsWith(`${INTERACTION_PATH}/`) || !/^[A-Za-z0-9_-]{1,64}$/.test(uid))
      return undefined;
    return deps.provider().Interaction.find(uid);
  }

  /**
   * The interaction of the browser (its interaction cookie, checked by the provider), once per
   * request: the submission's routes use it to the end, finish included. Sets the page's brand
   * and language.
   */
  async function details(request: FastifyRequest, reply: FastifyReply) {
    let interaction: Interaction;
    try {
      interaction = await deps.provider().interactionDetails(request.raw, reply.raw);
    } catch {
      await wearBrand(request, (await interactionOfAddress(request))?.params);
      const t = portalPhrases[request.lang].signIn;
      sendPage(reply, 400, renderErrorPage(pageContext(request), { message: t.sessionExpired }));
      return undefined;
    }
    await wearBrand(request, interaction.params);
    const code = interaction.params[COMPANY_CODE_PARAM];
    if (typeof code === 'string') companyCodes.set(request, code);
    // The application's ui_locales choose the language, unless the person chose one (the cookie).
    const query = request.query as { lang?: unknown } | undefined;
    const uiLang = languageOfUiLocales(interaction.params.ui_locales);
    if (uiLang && !request.cookies.lang && !query?.lang) request.lang = uiLang;
    return interaction;
  }

  async function clientName(clientId: string, request: FastifyRequest) {
    const own = portalPhrases[request.lang].clients[clientId];
    if (own) return own;
    const client = await deps.provider().Client.find(clientId);
    return client?.clientName ?? clientId;
  }

  async function showSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    uid: string,
    clientId: string,
    extra: { error?: string; identifier?: string; status?: number; notice?: string } = {},
  ) {
    // The shared sign-in page offers a passkey as soon as any company allows passkey sign-in;
    // whether the person's company does is checked once the passkey says whose it is. Codes by
    // email or SMS as the client's company allows them (code-sign-in.ts), read in the same statement.
    const offered = deps.codeSignIn && (await deps.codeSignIn.onPage(await deps.clientCompany(clientId)));
    const passkey =
      deps.passkey && (offered ? offered.passkey : await deps.passkey.passkeyLoginOffered())
        ? {
            action: `${INTERACTION_PATH}/${uid}/passkey`,
            options: JSON.stringify(
              await deps.passkey.authenticationOptions('first_factor', interactionSubject(uid)),
            ),
          }
        : undefined;
    const upstream = await deps.upstream?.onPage(clientId, uid);
    return sendPage(
      reply,
      extra.status ?? 200,
      renderSignInPage(pageContext(request), {
        action: `${INTERACTION_PATH}/${uid}/login`,
        abortAction: `${INTERACTION_PATH}/${uid}/abort`,
        csrfToken: csrfFor(uid),
        clientName: await clientName(clientId, request),
        identifier: extra.identifier,
        error: extra.error,
        notice: extra.notice,
        passkey,
        scan: ((await deps.scanSources?.(clientId)) ?? []).map((source) => ({
          action: `${INTERACTION_PATH}/${uid}/scan/${source.sourceId}`,
          type: source.type,
          name: source.name,
        })),
        upstream: upstream?.buttons,
        upstreamDomains: upstream?.domains,
        codes: (offered?.codes ?? []).map((channel) => ({
          channel,
          href: `${INTERACTION_PATH}/${uid}/code/${channel}`,
        })),
        // Not on the user centre's own sign-in, which already leads there.
        userCentreHref: clientId === PORTAL_CLIENT_ID ? undefined : USER_CENTRE_PATH,
        forgotPasswordHref: (await deps.forgotPasswordOffered?.(clientId, companyCodes.get(request)))
          ? `${INTERACTION_PATH}/${uid}/forgot`
          : undefined,
      }),
    );
  }

  /** The sign-in page's message for a refused first factor. */
  const failureMessage = async (
    request: FastifyRequest,
    clientId: string,
    result: Extract<SignInResult, { ok: false }>,
  ) => failureMessageOf(request.lang, await clientName(clientId, request), result);

  /** Redirects back into the authorization, once the interaction's result is stored. */
  function handBack(reply: FastifyReply, interaction: Interaction) {
    reply.hijack();
    reply.raw.statusCode = 303;
    reply.raw.setHeader('Location', interaction.returnTo);
    reply.raw.setHeader('Content-Length', '0');
    reply.raw.end();
    return reply;
  }

  /**
   * Stores the interaction's result and redirects back into the authorization, as the provider's
   * interactionFinished does, with the interaction this request read already (details) instead
   * of reading it again.
   */
  async function finish(
    _request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    result: InteractionResults,
    mergeWithLastSubmission: boolean,
  ) {
    interaction.result =
      mergeWithLastSubmission && !('error' in result) ? { ...interaction.lastSubmission, ...result } : result;
    await interaction.persist();
    return handBack(reply, interaction);
  }

  /**
   * The sign-in completes with its first factor: the interaction's login, as the statement that
   * stores it, for the success to write in its own statement (SignInAttempt.onSuccess); then
   * handBack. Stored as finishLogin stores it.
   */
  async function loginStatements(interaction: Interaction, login: { accountId: string; amr: string[] }) {
    interaction.result = { login: loginResultOf(interaction, login) };
    return collectUpserts(() => interaction.persist());
  }

  /** The interaction of a submitted form whose CSRF token checks out; otherwise answers and returns undefined. */
  async function submitted(
    request: FastifyRequest<{ Body: Record<string, string | undefined> }>,
    reply: FastifyReply,
  ) {
    const interaction = await details(request, reply);
    if (!interaction) return undefined;
    const csrf = request.body?.csrf;
    if (typeof csrf !== 'string' || !safeEqual(csrf, csrfFor(interaction.uid))) {
      const message = portalPhrases[request.lang].signIn.sessionExpired;
      sendPage(reply, 403, renderErrorPage(pageContext(request), { message }));
      return undefined;
    }
    return interaction;
  }

  /**
   * The sign-in is complete: this browser becomes known to the account (unless the success that
   * completes it remembered it already), and the provider takes over.
   */
  async function finishLogin(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    login: { accountId: string; amr: string[]; acr?: string },
    remembered = false,
  ) {
    if (!remembered) await deps.devices.remember(request, reply, login.accountId);
    return finish(request, reply, interaction, { login }, false);
  }

  /**
   * The steps that apply to the account after a first factor, in order; `facts` when they were
   * read with the account (signInFactsQuery), else the steps ask.
   */
  async function pendingSteps(
    interaction: Interaction,
    account: Account | undefined,
    /** Steps the first factor already satisfied (a user-verified passkey is both factors). */
    skip: StepName[],
    facts?: SignInFacts,
    /** The first factor's methods (a code's channel is then not offered as the second factor). */
    amr?: string[],
  ) {
    // An application that names multi-factor authentication (acr_values) gets a second factor.
    const mfaRequested = multiFactorRequested(requestedAcr(interaction.params));
    const pending: StepName[] = [];
    for (const step of account ? deps.steps : []) {
      if (skip.includes(step.name)) continue;
      if (account && (await step.applies(account, { mfaRequested, amr }, facts))) pending.push(step.name);
    }
    return { pending, mfaRequested };
  }

  /**
   * The first factor passed and its steps are decided: they become the interaction's pending
   * list; without any, the interaction finishes with the login (`remembered`: the success
   * remembered the browser already).
   */
  async function afterFirstFactor(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    login: { accountId: string; amr: string[] },
    account: Account | undefined,
    steps: Awaited<ReturnType<typeof pendingSteps>>,
    remembered = false,
  ) {
    if (!steps.pending.length)
      return finishLogin(request, reply, interaction, loginResultOf(interaction, login), remembered);
    interaction.result = pendingSignInResult({
      ...login,
      pending: steps.pending,
      mfaRequested: steps.mfaRequested,
      credentialsAt: account ? credentialsAtOf(account) : null,
    });
    await interaction.persist();
    return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
  }

  /** The first factor passed (a passkey, a sign-in link, a scan, a step-up): on to its steps. */
  async function firstFactorPassed(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    login: { accountId: string; amr: string[] },
    skip: StepName[] = [],
  ) {
    const account = await deps.accounts.findAccountById(login.accountId);
    const steps = await pendingSteps(interaction, account, skip, undefined, login.amr);
    return afterFirstFactor(request, reply, interaction, login, account, steps);
  }

  return {
    csrfFor,
    details,
    clientName,
    showSignIn,
    failureMessage,
    finish,
    submitted,
    finishLogin,
    handBack,
    loginStatements,
    pendingSteps,
    afterFirstFactor,
    firstFactorPassed,
  };
}

export type InteractionKit = ReturnType<typeof createInteractionKit>;
