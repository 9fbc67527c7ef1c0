import type { FastifyInstance } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import type { MfaService } from '../mfa/mfa.service.ts';
import { codeChannelOf } from './code-sign-in.ts';
import type { InteractionKit } from './interaction-kit.ts';
import { INTERACTION_PATH } from './provider.ts';
import type { SentCodeFactor } from './sign-in-code-factor.ts';
import { requirementOfSignIn } from './sign-in-facts.ts';
import type { signInStepsRoutes } from './sign-in-steps.routes.ts';

/**
 * The second-factor step's "send a code" (sign-in-code-factor.ts): a code goes to the chosen
 * verified address and the step's page comes back with the field to type it, bound to the
 * code's request. Too soon after the last code, or past the hour's budget: the page says so.
 */
export function sentCodeFactorRoutes(
  app: FastifyInstance,
  deps: {
    kit: Pick<InteractionKit, 'submitted'>;
    steps: ReturnType<typeof signInStepsRoutes>;
    sentCodes: SentCodeFactor;
    mfa: MfaService;
  },
) {
  const { kit, steps } = deps;
  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/step/second_factor/send`,
    async (request, reply) => {
      const interaction = await kit.submitted(request, reply);
      if (!interaction) return reply;
      const current = await steps.currentStep(interaction);
      const channel = codeChannelOf(request.body?.sendCode);
      if (current?.step?.name !== 'second_factor' || !channel)
        return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
      const due = { ...current, step: current.step };
      const requirement = await requirementOfSignIn(deps.mfa, current.account, current.state, current.facts);
      try {
        const issued = await deps.sentCodes.send(current.account, requirement, {
          channel,
          amr: current.state.amr,
          lang: request.lang,
        });
        return steps.showStep(request, reply, interaction, due, {
          refused: { sentCodeId: issued.codeId, sentChannel: channel },
        });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return steps.showStep(request, reply, interaction, due, {
          error: translateError(request.lang, error.reason, error.params),
          status: error.status,
        });
      }
    },
  );
}
