import { interpolate } from '@tessera/contract';
import {
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
import type { AccountsRepo } from '../account/account.repo.ts';
import type { AppAccessRefusal } from '../app/app-access.ts';
import { type Fido2Service, parseCredential } from '../mfa/fido2.service.ts';
import type { DeviceCookies } from '../signin/device-cookie.ts';
import type { LoginFailureCause } from '../signin/login-events.repo.ts';
import type { SignInResult, SignInService } from '../signin/signin.service.ts';
import { HANDOFF_COOKIE, handoffCookieOptions, openHandoff } from './first-factor-handoff.ts';
import { APP_ACCESS_PROMPT, INTERACTION_PATH, PORTAL_ASSETS_PATH } from './provider.ts';
import {
  credentialsAtOf,
  pendingSignInResult,
  readPendingSignIn,
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
  appRefusal(input: {
    clientId: string;
    accountId: string;
    ip: string;
    userAgent: string | null;
  }): Promise<AppAccessRefusal | undefined>;
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

const pageContext = (request: FastifyRequest): PageContext => ({
  lang: request.lang,
  currentUrl: request.url,
  assetsBase: PORTAL_ASSETS_PATH,
});

const securityHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

/**
 * The OIDC interaction: the sign-in form (plain HTML, works without JavaScript) and its
 * submission. CSRF: the form carries an HMAC of the interaction id, and the provider only
 * accepts the submission together with its own interaction cookie (SameSite=Lax).
 */
export function interactionRoutes(app: FastifyInstance, deps: InteractionDeps) {
  const csrfFor = (uid: string) => deps.sealer.hmac('interaction-csrf', uid);

  const sendPage = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).headers(securityHeaders).send(body);

  async function details(request: FastifyRequest, reply: FastifyReply) {
    try {
      return await deps.provider().interactionDetails(request.raw, reply.raw);
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
      }),
    );
  }

  /** The sign-in page's message for a refused first factor. */
  async function failureMessage(
    request: FastifyRequest,
    clientId: string,
    result: Extract<SignInResult, { ok: false }>,
  ) {
    const t = portalPhrases[request.lang].signIn;
    const p = portalPhrases[request.lang].passkey;
    const messages: Record<LoginFailureCause, string> = {
      missing_credentials: t.missingFields,
      unknown_account: t.invalidCredentials,
      wrong_password: t.invalidCredentials,
      throttled: t.throttled,
      account_disabled: t.accountDisabled,
      // An automatic lock-out ends at a known time; a lock set by an administrator does not.
      account_locked: result.lockedUntil
        ? interpolate(t.accountLocked, {
            until: result.lockedUntil.toLocaleString(request.lang === 'zh' ? 'zh-CN' : 'en-GB'),
          })
        : t.accountLockedByAdmin,
      not_platform_admin: interpolate(t.notAllowed, { client: await clientName(clientId, request) }),
      // The second factor has its own step (sign-in-steps.ts); the password form never answers these.
      mfa_failed: portalPhrases[request.lang].mfa.wrongCode,
      mfa_locked: portalPhrases[request.lang].mfa.wrongCode,
      // The password_expired step logs its own refusals; the password form never answers it.
      password_expired: t.invalidCredentials,
      passkey_failed: p.rejected,
      passkey_cloned: p.rejected,
      passkey_not_allowed: p.notAllowed,
      // Refused applications have their own page (the app_access prompt); never the password form's answer.
      app_disabled: portalPhrases[request.lang].apps.refused.app_disabled,
      app_not_assigned: portalPhrases[request.lang].apps.refused.app_not_assigned,
      app_assignment_expired: portalPhrases[request.lang].apps.refused.app_assignment_expired,
      // RADIUS and signature factors answer these elsewhere; the password form never does.
      radius_not_allowed: t.invalidCredentials,
      mfa_not_bound: t.invalidCredentials,
      mfa_unavailable: t.invalidCredentials,
      challenge_expired: t.invalidCredentials,
      signature_failed: portalPhrases[request.lang].mfa.wrongCode,
      certificate_invalid: portalPhrases[request.lang].mfa.wrongCode,
    };
    return messages[result.cause];
  }

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
    login: { accountId: string; amr: string[] },
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
    const pending: StepName[] = [];
    for (const step of account ? deps.steps : []) {
      if (skip.includes(step.name)) continue;
      if (account && (await step.applies(account))) pending.push(step.name);
    }
    if (!pending.length) return finishLogin(request, reply, login);
    interaction.result = pendingSignInResult({
      ...login,
      pending,
      credentialsAt: account ? credentialsAtOf(account) : null,
    });
    await interaction.persist();
    return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
  }

  /**
   * The first pending step that still applies, with its account; undefined when there is no
   * pending sign-in, or when it ended because the account was disabled or its credentials were
   * changed by someone else since the first factor (the sign-in then starts again).
   */
  async function currentStep(interaction: Interaction) {
    const state = readPendingSignIn(interaction);
    if (!state) return undefined;
    const account = await deps.accounts.findAccountById(state.accountId);
    if (account?.status !== 'enabled' || credentialsAtOf(account) !== state.credentialsAt) return undefined;
    for (const name of state.pending) {
      const step = deps.steps.find((s) => s.name === name);
      if (step && (await step.applies(account))) return { state, step, account };
    }
    return { state, step: undefined, account };
  }

  async function showStep(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    current: { step: SignInStep; account: import('../../db/schema.ts').Account },
    extra: { error?: string; status?: number } = {},
  ) {
    return sendPage(
      reply,
      extra.status ?? 200,
      await current.step.render(pageContext(request), {
        action: `${INTERACTION_PATH}/${interaction.uid}/step/${current.step.name}`,
        abortAction: `${INTERACTION_PATH}/${interaction.uid}/abort`,
        csrfToken: csrfFor(interaction.uid),
        account: current.account,
        error: extra.error,
        interactionId: interaction.uid,
      }),
    );
  }

  app.get<{ Params: { uid: string } }>(`${INTERACTION_PATH}/:uid`, async (request, reply) => {
    const interaction = await details(request, reply);
    if (!interaction) return reply;
    if (interaction.prompt.name === 'login') {
      const pending = await currentStep(interaction);
      if (pending?.step) return showStep(request, reply, interaction, { ...pending, step: pending.step });
      if (pending) {
        const { accountId, amr } = pending.state;
        return finishLogin(request, reply, { accountId, amr });
      }
      // A first factor passed elsewhere (a used sign-in link) for exactly this authorization request.
      const handoff = openHandoff(deps.sealer, request.cookies[HANDOFF_COOKIE]);
      if (
        handoff &&
        handoff.clientId === interaction.params.client_id &&
        handoff.state === interaction.params.state
      ) {
        reply.clearCookie(HANDOFF_COOKIE, handoffCookieOptions(deps.secureCookies));
        return firstFactorPassed(request, reply, interaction, {
          accountId: handoff.accountId,
          amr: handoff.amr,
        });
      }
      return showSignIn(request, reply, interaction.uid, String(interaction.params.client_id));
    }
    if (interaction.prompt.name === APP_ACCESS_PROMPT) {
      const clientId = String(interaction.params.client_id);
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
    // Consent is granted by loadExistingGrant; any other prompt ends the interaction as it is.
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
        const status = result.cause === 'throttled' ? 429 : 401;
        return showSignIn(request, reply, interaction.uid, clientId, {
          error: await failureMessage(request, clientId, result),
          identifier,
          status,
        });
      }
      return firstFactorPassed(request, reply, interaction, { accountId: result.account.id, amr: ['pwd'] });
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

  app.post<{ Params: { uid: string; step: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/step/:step`,
    async (request, reply) => {
      const interaction = await submitted(request, reply);
      if (!interaction) return reply;
      const current = await currentStep(interaction);
      // Not the step that is due (an old tab, or a guessed URL): show whatever is due now.
      if (!current?.step || current.step.name !== request.params.step) {
        return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
      }
      const outcome = await current.step.submit(
        {
          account: current.account,
          lang: request.lang,
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
          clientId: String(interaction.params.client_id),
          interactionId: interaction.uid,
        },
        request.body ?? {},
      );
      if (typeof outcome === 'string') {
        return showStep(
          request,
          reply,
          interaction,
          { ...current, step: current.step },
          { error: outcome, status: 400 },
        );
      }
      const { accountId, amr, pending } = current.state;
      const done = [current.step.name, ...(outcome?.completes ?? [])];
      const rest = pending.filter((name) => !done.includes(name));
      // A step may have changed the credentials itself (a new password): that change is this sign-in's own.
      const after = await deps.accounts.findAccountById(accountId);
      interaction.result = pendingSignInResult({
        accountId,
        amr,
        pending: rest,
        credentialsAt: after ? credentialsAtOf(after) : null,
      });
      await interaction.persist();
      const continueAction = `${INTERACTION_PATH}/${interaction.uid}`;
      if (outcome?.page) return sendPage(reply, 200, outcome.page(pageContext(request), { continueAction }));
      return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
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
}
