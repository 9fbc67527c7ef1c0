import { portalPhrases, renderAppProblemPage } from '@tessera/portal';
import type { FastifyInstance } from 'fastify';
import { codeSignInRoutes } from './code-sign-in.routes.ts';
import { firstFactorRoutes } from './first-factor.routes.ts';
import { HANDOFF_COOKIE, handoffCookieOptions, openHandoff } from './first-factor-handoff.ts';
import { createInteractionKit, type InteractionDeps, loginHintOf, loginResultOf } from './interaction-kit.ts';
import { pageContext, sendPage } from './interaction-page.ts';
import { promptRoutes } from './prompt.routes.ts';
import { APP_ACCESS_PROMPT, INTERACTION_PATH } from './provider.ts';
import { sentCodeFactorRoutes } from './sign-in-code-factor.routes.ts';
import { SELECT_ACCOUNT_PROMPT, STEP_UP_REASONS } from './sign-in-policy.ts';
import { signInStepsRoutes } from './sign-in-steps.routes.ts';

/**
 * The OIDC interaction: the sign-in form (plain HTML, works without JavaScript) and its
 * submission. CSRF: the form carries an HMAC of the interaction id, and the provider only
 * accepts the submission together with its own interaction cookie (SameSite=Lax).
 */
export function interactionRoutes(app: FastifyInstance, deps: InteractionDeps) {
  const kit = createInteractionKit(deps);
  const { details, submitted, showSignIn, finish, finishLogin, firstFactorPassed } = kit;

  const stepRoutes = signInStepsRoutes(app, {
    steps: deps.steps,
    accounts: deps.accounts,
    accountWithFacts: deps.accountWithFacts,
    csrfFor: kit.csrfFor,
    pageContext,
    sendPage,
    submitted,
  });
  const { currentStep, showStep } = stepRoutes;
  if (deps.sentCodes)
    sentCodeFactorRoutes(app, { kit, steps: stepRoutes, sentCodes: deps.sentCodes, mfa: deps.sentCodes.mfa });
  const prompts = promptRoutes(app, {
    provider: deps.provider,
    accounts: deps.accounts,
    consents: deps.consents,
    companyName: deps.companyName,
    csrfFor: kit.csrfFor,
    pageContext,
    sendPage,
    clientName: kit.clientName,
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
    if (pending) return finishLogin(request, reply, interaction, loginResultOf(interaction, pending.state));
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
      if (!cause) return finish(request, reply, interaction, {}, true);
      const t = portalPhrases[request.lang].apps;
      return sendPage(
        reply,
        403,
        renderAppProblemPage(pageContext(request), {
          title: t.refusedTitle,
          appName: await kit.clientName(clientId, request),
          message: t.refused[cause],
          backHref: '/portal/apps',
        }),
      );
    }
    if (name === 'consent') return prompts.consent(request, reply, interaction);
    // No other prompt exists; should one appear, the provider decides again.
    return finish(request, reply, interaction, {}, true);
  });

  firstFactorRoutes(app, deps, kit);
  if (deps.codeSignIn) codeSignInRoutes(app, { ...deps, codeSignIn: deps.codeSignIn }, kit);

  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/abort`,
    async (request, reply) => {
      const interaction = await submitted(request, reply);
      if (!interaction) return reply;
      return finish(
        request,
        reply,
        interaction,
        { error: 'access_denied', error_description: 'The sign-in was cancelled' },
        false,
      );
    },
  );

  return {
    csrfFor: kit.csrfFor,
    details,
    submitted,
    showSignIn,
    failureMessage: kit.failureMessage,
    firstFactorPassed,
    sendPage,
    pageContext,
  };
}

export type InteractionHelpers = ReturnType<typeof interactionRoutes>;
