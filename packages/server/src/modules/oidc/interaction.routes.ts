import {
  type PageBrand,
  type PageContext,
  portalPhrases,
  renderAppProblemPage,
  renderErrorPage,
  renderSignInPage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Sealer } from '../../lib/crypto.ts';
import { safeEqual } from '../../lib/crypto.ts';
import { languageOfUiLocales } from '../../lib/i18n.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import type { AppAccessRefusal } from '../app/app-access.ts';
import { type Fido2Service, parseCredential } from '../mfa/fido2.service.ts';
import type { DeviceCookies } from '../signin/device-cookie.ts';
import type { SignInResult, SignInService } from '../signin/signin.service.ts';
import { acrFor, multiFactorRequested, requestedAcr } from './authentication-context.ts';
import type { ConsentStore } from './consent.ts';
import { HANDOFF_COOKIE, handoffCookieOptions, openHandoff } from './first-factor-handoff.ts';
import { promptRoutes } from './prompt.routes.ts';
import { APP_ACCESS_PROMPT, INTERACTION_PATH, PORTAL_ASSETS_PATH } from './provider.ts';
import { failureMessageOf } from './sign-in-messages.ts';
import { SELECT_ACCOUNT_PROMPT, STEP_UP_REASONS } from './sign-in-policy.ts';
import { signInStepsRoutes } from './sign-in-steps.routes.ts';
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
  /** The browser's device cookie: known browsers are throttled on their own (signin-throttle.ts). */
  devices: DeviceCookies;
  /** The sign-in pipeline after the first factor, in order (see sign-in-steps.ts). */
  steps: SignInStep[];
  secureCookies: boolean;
  /** Passkeys (modules/mfa/fido2.service.ts): the first factor when a company allows it. */
  passkey?: Fido2Service;
  /**
   * Why a signed-in person may not use an application (modules/app/app-access.ts), recorded as
   * a login event; undefined when they may (or the client is no application).
   */
  /** The company a client belongs to (an application's), for the sign-in log; null for Tessera's own. */
  clientCompany(clientId: string): Promise<string | null>;
  /** The brand of the company a client belongs to (an application's), if it has one. */
  brandOfClient?(clientId: string): Promise<(PageBrand & { defaultLanguage: 'en' | 'zh' }) | null>;
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
  /** The scan sign-ins (DingTalk, WeChat, WeCom) the client's company offers (modules/identity-source). */
  scanSources?(clientId: string): Promise<{ sourceId: string; type: string; name: string }[]>;
}

export type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The `login_hint` of the authorization request: the sign-in form starts with it. */
const loginHintOf = (interaction: Interaction) => {
  const hint = interaction.params.login_hint;
  return typeof hint === 'string' ? hint.slice(0, 254) : undefined;
};

/** The login result of a finished pipeline, with the acr the application asked for when met. */
const loginResultOf = (interaction: Interaction, state: Pick<PendingSignIn, 'accountId' | 'amr'>) => ({
  accountId: state.accountId,
  amr: state.amr,
  acr: acrFor(state.amr, requestedAcr(interaction.params).values),
});

declare module 'fastify' {
  interface FastifyRequest {
    /** The brand of the company a sign-in is for (set for interaction pages; see brandOfInteraction). */
    brand?: PageBrand & { defaultLanguage: 'en' | 'zh' };
  }
}

const pageContext = (request: FastifyRequest): PageContext => ({
  lang: request.lang,
  currentUrl: request.url,
  assetsBase: PORTAL_ASSETS_PATH,
  brand: request.brand,
});

/**
 * The OIDC interaction: the sign-in form (plain HTML, works without JavaScript) and its
 * submission. CSRF: the form carries an HMAC of the interaction id, and the provider only
 * accepts the submission together with its own interaction cookie (SameSite=Lax).
 */
export function interactionRoutes(app: FastifyInstance, deps: InteractionDeps) {
  const csrfFor = (uid: string) => deps.sealer.hmac('interaction-csrf', uid);

  // Every page of a sign-in for one of a company's applications (the form, second factor,
  // password change, refusals) wears the company's brand, in its default language unless the
  // person chose one (the lang cookie or a ?lang= link).
  app.addHook('preHandler', async (request) => {
    if (!deps.brandOfClient || !request.url.startsWith(`${INTERACTION_PATH}/`)) return;
    const uid = request.url.slice(INTERACTION_PATH.length + 1).split(/[/?]/)[0] ?? '';
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(uid)) return;
    const interaction = await deps.provider().Interaction.find(uid);
    const clientId = interaction?.params?.client_id;
    if (typeof clientId !== 'string') return;
    const brand = await deps.brandOfClient(clientId);
    if (!brand) return;
    request.brand = brand;
    const chosen = (request.query as Record<string, unknown> | undefined)?.lang;
    if (!request.cookies.lang && typeof chosen !== 'string') request.lang = brand.defaultLanguage;
  });

  const sendPage = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).type('text/html; charset=utf-8').send(body);

  async function details(request: FastifyRequest, reply: FastifyReply) {
    try {
      const interaction = await deps.provider().interactionDetails(request.raw, reply.raw);
      // The application's ui_locales choose the language, unless the person chose one (the cookie).
      const query = request.query as { lang?: unknown } | undefined;
      const uiLang = languageOfUiLocales(interaction.params.ui_locales);
      if (uiLang && !request.cookies.lang && !query?.lang) request.lang = uiLang;
      return interaction;
    } catch {
      const t = portalPhrases[request.lang].signIn;
      sendPage(reply, 400, renderErrorPage(pageContext(request), { message: t.sessionExpired }));
      return undefined;
    }
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
    extra: { error?: string; identifier?: string; status?: number } = {},
  ) {
    // The shared sign-in page offers a passkey as soon as any company allows passkey sign-in;
    // whether the person's company does is checked once the passkey says whose it is.
    const passkey =
      deps.passkey && (await deps.passkey.passkeyLoginOffered())
        ? {
            action: `${INTERACTION_PATH}/${uid}/passkey`,
            options: JSON.stringify(
              await deps.passkey.authenticationOptions('first_factor', `interaction:${uid}`),
            ),
          }
        : undefined;
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
        passkey,
        scan: ((await deps.scanSources?.(clientId)) ?? []).map((source) => ({
          action: `${INTERACTION_PATH}/${uid}/scan/${source.sourceId}`,
          type: source.type,
          name: source.name,
        })),
      }),
    );
  }

  /** The sign-in page's message for a refused first factor. */
  const failureMessage = async (
    request: FastifyRequest,
    clientId: string,
    result: Extract<SignInResult, { ok: false }>,
  ) => failureMessageOf(request.lang, await clientName(clientId, request), result);

  /** Hands the reply to the provider, which redirects back into the authorization. */
  async function finish(
    request: FastifyRequest,
    reply: FastifyReply,
    result: Parameters<Provider['interactionFinished']>[2],
    mergeWithLastSubmission: boolean,
  ) {
    reply.hijack();
    await deps.provider().interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission });
    return reply;
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

  /** The sign-in is complete: this browser becomes known to the account, and the provider takes over. */
  async function finishLogin(
    request: FastifyRequest,
    reply: FastifyReply,
    login: { accountId: string; amr: string[]; acr?: string },
  ) {
    await deps.devices.remember(request, reply, login.accountId);
    return finish(request, reply, { login }, false);
  }

  /**
   * The first factor passed: the steps that apply to the account become the interaction's
   * pending list; without any, the interaction finishes with the login.
   */
  async function firstFactorPassed(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    login: { accountId: string; amr: string[] },
    /** Steps the first factor already satisfied (a user-verified passkey is both factors). */
    skip: StepName[] = [],
  ) {
    const account = await deps.accounts.findAccountById(login.accountId);
    // An application that names multi-factor authentication (acr_values) gets a second factor.
    const mfaRequested = multiFactorRequested(requestedAcr(interaction.params));
    const pending: StepName[] = [];
    for (const step of account ? deps.steps : []) {
      if (skip.includes(step.name)) continue;
      if (account && (await step.applies(account, { mfaRequested }))) pending.push(step.name);
    }
    if (!pending.length) return finishLogin(request, reply, loginResultOf(interaction, login));
    interaction.result = pendingSignInResult({
      ...login,
      pending,
      mfaRequested,
      credentialsAt: account ? credentialsAtOf(account) : null,
    });
    await interaction.persist();
    return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
  }

  const { currentStep, showStep } = signInStepsRoutes(app, {
    steps: deps.steps,
    accounts: deps.accounts,
    csrfFor,
    pageContext,
    sendPage,
    submitted,
  });
  const prompts = promptRoutes(app, {
    provider: deps.provider,
    accounts: deps.accounts,
    consents: deps.consents,
    companyName: deps.companyName,
    csrfFor,
    pageContext,
    sendPage,
    clientName,
    submitted,
    finish,
  });

  app.get<{ Params: { uid: string } }>(`${INTERACTION_PATH}/:uid`, async (request, reply) => {
    const interaction = await details(request, reply);
    if (!interaction) return reply;
    const clientId = String(interaction.params.client_id);
    // The sign-in pipeline under way (after a first factor), whichever prompt started it.
    const pending = await currentStep(interaction);
    if (pending?.step) return showStep(request, reply, interaction, { ...pending, step: pending.step });
    if (pending) return finishLogin(request, reply, loginResultOf(interaction, pending.state));
    const { name, reasons } = interaction.prompt;
    if (name === 'login') {
      // Signed in, and only the second factor the application asked for is missing: a step-up.
      const session = interaction.session as { accountId?: string; amr?: string[] } | undefined;
      if (session?.accountId && reasons.length && reasons.every((r) => STEP_UP_REASONS.includes(r))) {
        const amr = session.amr ?? [];
        return firstFactorPassed(request, reply, interaction, { accountId: session.accountId, amr });
      }
      // A first factor passed elsewhere (a used sign-in link) for exactly this authorization request.
      const handoff = openHandoff(deps.sealer, request.cookies[HANDOFF_COOKIE]);
      if (handoff && handoff.clientId === clientId && handoff.state === interaction.params.state) {
        reply.clearCookie(HANDOFF_COOKIE, handoffCookieOptions(deps.secureCookies));
        return firstFactorPassed(request, reply, interaction, {
          accountId: handoff.accountId,
          amr: handoff.amr,
        });
      }
      return showSignIn(request, reply, interaction.uid, clientId, { identifier: loginHintOf(interaction) });
    }
    if (name === SELECT_ACCOUNT_PROMPT) {
      // "Use another account": the sign-in form (the provider signs the other one out first).
      if (prompts.switchingAccount(interaction))
        return showSignIn(request, reply, interaction.uid, clientId, {
          identifier: loginHintOf(interaction),
        });
      return prompts.showSelectAccount(request, reply, interaction);
    }
    if (name === APP_ACCESS_PROMPT) {
      const cause =
        interaction.session?.accountId &&
        (await deps.appRefusal({
          clientId,
          accountId: interaction.session.accountId,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
        }));
      // Access came back since the prompt was asked for (an administrator was quick): go on.
      if (!cause) return finish(request, reply, {}, true);
      const t = portalPhrases[request.lang].apps;
      return sendPage(
        reply,
        403,
        renderAppProblemPage(pageContext(request), {
          title: t.refusedTitle,
          appName: await clientName(clientId, request),
          message: t.refused[cause],
          backHref: '/portal/apps',
        }),
      );
    }
    if (name === 'consent') return prompts.consent(request, reply, interaction);
    // No other prompt exists; should one appear, the provider decides again.
    return finish(request, reply, {}, true);
  });

  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/login`,
    async (request, reply) => {
      const interaction = await submitted(request, reply);
      if (!interaction) return reply;
      const clientId = String(interaction.params.client_id);
      const form = request.body ?? {};
      const identifier = String(form.identifier ?? '').slice(0, 254);
      const result = await deps.signIn.signInWithPassword({
        identifier,
        password: String(form.password ?? '').slice(0, 1024),
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        clientId,
        companyId: await deps.clientCompany(clientId),
        deviceId: deps.devices.read(request),
        authorize: (account) => (deps.clientAccessDenied(clientId, account) ? 'not_platform_admin' : null),
      });
      if (!result.ok) {
        const status =
          result.cause === 'throttled' ? 429 : result.cause === 'directory_unavailable' ? 503 : 401;
        return showSignIn(request, reply, interaction.uid, clientId, {
          error: await failureMessage(request, clientId, result),
          identifier,
          status,
        });
      }
      // A source with the skip-MFA flag vouches for the person on its own.
      const skip: StepName[] = result.skipMfa ? ['bind_factor', 'second_factor'] : [];
      return firstFactorPassed(
        request,
        reply,
        interaction,
        { accountId: result.account.id, amr: ['pwd'] },
        skip,
      );
    },
  );

  /**
   * (FIDO2 helper) Passkey as the first factor: the assertion names the account (discoverable
   * credential), whose company must allow login method `passkey`; then the same checks as after
   * a right password. A user-verified passkey is both factors: bind_factor and second_factor
   * are skipped; the other steps (forced password change...) still run.
   */
  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/passkey`,
    async (request, reply) => {
      const interaction = await submitted(request, reply);
      if (!interaction) return reply;
      const clientId = String(interaction.params.client_id);
      const fido2 = deps.passkey;
      const event = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, clientId };
      const refuse = async (result: Extract<SignInResult, { ok: false }>) =>
        showSignIn(request, reply, interaction.uid, clientId, {
          error: await failureMessage(request, clientId, result),
          status: 401,
        });
      const credential = parseCredential(request.body?.credential);
      if (!fido2 || !credential) {
        await fido2?.logFailure(null, 'passkey_failed', event);
        return refuse({ ok: false, cause: 'passkey_failed' });
      }
      const assertion = await fido2.verifyAssertion(
        credential,
        'first_factor',
        `interaction:${interaction.uid}`,
      );
      const account = assertion.accountId
        ? await deps.accounts.findAccountById(assertion.accountId)
        : undefined;
      if (!assertion.ok || !account) {
        const cause = assertion.ok ? 'passkey_failed' : assertion.cause;
        await fido2.logFailure(account ?? null, cause, event);
        return refuse({ ok: false, cause });
      }
      if (!(await fido2.passkeyLoginAllowed(account))) {
        await fido2.logFailure(account, 'passkey_not_allowed', event);
        return refuse({ ok: false, cause: 'passkey_not_allowed' });
      }
      const result = await deps.signIn.signInVerified(account, {
        ...event,
        companyId: await deps.clientCompany(clientId),
        authorize: (a) => (deps.clientAccessDenied(clientId, a) ? 'not_platform_admin' : null),
      });
      if (!result.ok) return refuse(result);
      const amr = assertion.userVerified ? ['hwk', 'user', 'mfa'] : ['hwk', 'user'];
      const skip: StepName[] = assertion.userVerified ? ['bind_factor', 'second_factor'] : [];
      return firstFactorPassed(request, reply, interaction, { accountId: account.id, amr }, skip);
    },
  );

  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/abort`,
    async (request, reply) => {
      const interaction = await submitted(request, reply);
      if (!interaction) return reply;
      return finish(
        request,
        reply,
        { error: 'access_denied', error_description: 'The sign-in was cancelled' },
        false,
      );
    },
  );

  return { details, submitted, showSignIn, failureMessage, firstFactorPassed, sendPage, pageContext };
}

export type InteractionHelpers = ReturnType<typeof interactionRoutes>;
