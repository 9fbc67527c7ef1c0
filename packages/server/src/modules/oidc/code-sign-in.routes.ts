import { type CodeChannel, oneTimeCodeRules } from '@tessera/contract';
import { portalPhrases, renderCodeEntryPage, renderCodeRequestPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { CODE_AMR, CODE_METHOD, type CodeSignIn, codeChannelOf } from './code-sign-in.ts';
import { pipelineAttempt, refusalStatus } from './first-factor.routes.ts';
import type { Interaction, InteractionDeps, InteractionKit } from './interaction-kit.ts';
import { pageContext, sendPage } from './interaction-page.ts';
import { INTERACTION_PATH } from './provider.ts';

type CodeRequest = FastifyRequest<{
  Params: { uid: string; channel: string };
  Body: Record<string, string | undefined>;
}>;

/**
 * Signing in with a code by email or SMS, from the sign-in page's link: the person types who
 * they are, a code goes to their verified address (or a decoy is made: code-sign-in.ts), they
 * type it, and the sign-in pipeline checks it as it checks a password (budgets, lock-out, the
 * refusals, the application's access rule, the steps after the first factor, the login events).
 */
export function codeSignInRoutes(
  app: FastifyInstance,
  deps: InteractionDeps & { codeSignIn: CodeSignIn },
  kit: InteractionKit,
) {
  const base = (uid: string, channel: CodeChannel) => `${INTERACTION_PATH}/${uid}/code/${channel}`;

  /** The channel of the address, when the sign-in page of the interaction's client offers it. */
  async function offeredChannel(request: CodeRequest, reply: FastifyReply, interaction: Interaction) {
    const channel = codeChannelOf(request.params.channel);
    const clientId = String(interaction.params.client_id);
    const companyId = await deps.clientCompany(clientId);
    if (channel && (await deps.codeSignIn.offered(companyId)).includes(channel))
      return { channel, clientId, companyId };
    const identifier = String(request.body?.identifier ?? '').slice(0, 254);
    if (identifier) {
      await deps.signIn.recordLoginEvent({
        companyId,
        accountId: null,
        identifier,
        clientId,
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        result: 'failure',
        failureCause: 'code_not_allowed',
        method: channel ? CODE_METHOD[channel] : null,
      });
    }
    await kit.showSignIn(request, reply, interaction.uid, clientId, {
      error: portalPhrases[request.lang].codes.notOffered,
      status: 403,
    });
    return undefined;
  }

  const common = (interaction: Interaction, channel: CodeChannel) => ({
    channel,
    csrfToken: kit.csrfFor(interaction.uid),
    abortAction: `${INTERACTION_PATH}/${interaction.uid}/abort`,
    passwordHref: `${INTERACTION_PATH}/${interaction.uid}`,
    sendAction: `${base(interaction.uid, channel)}/send`,
    verifyAction: `${base(interaction.uid, channel)}/verify`,
    minutes: oneTimeCodeRules.lifetimeSeconds.sign_in / 60,
    resendSeconds: oneTimeCodeRules.resendAfterSeconds,
  });

  app.get<{ Params: { uid: string; channel: string } }>(
    `${INTERACTION_PATH}/:uid/code/:channel`,
    async (request, reply) => {
      const interaction = await kit.details(request, reply);
      if (!interaction) return reply;
      const offered = await offeredChannel(request as CodeRequest, reply, interaction);
      if (!offered) return reply;
      return sendPage(
        reply,
        200,
        renderCodeRequestPage(pageContext(request), { ...common(interaction, offered.channel) }),
      );
    },
  );

  app.post<{ Params: { uid: string; channel: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/code/:channel/send`,
    async (request, reply) => {
      const interaction = await kit.submitted(request, reply);
      if (!interaction) return reply;
      const offered = await offeredChannel(request, reply, interaction);
      if (!offered) return reply;
      const { channel, companyId } = offered;
      const identifier = String(request.body?.identifier ?? '')
        .trim()
        .slice(0, 254);
      const page = common(interaction, channel);
      try {
        const issued = await deps.codeSignIn.send({
          identifier,
          channel,
          companyId,
          companyName: companyId ? await deps.companyName(companyId) : undefined,
          lang: request.lang,
          afterAnswer: (work) => reply.raw.once('close', work),
        });
        return sendPage(
          reply,
          200,
          renderCodeEntryPage(pageContext(request), { ...page, identifier, codeId: issued.codeId }),
        );
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        // Too soon or past the hour's budget: said on the first page. (A provider's refusal comes
        // after the answer, for the person's existence not to show: it is logged and audited.)
        return sendPage(
          reply,
          error.status,
          renderCodeRequestPage(pageContext(request), {
            ...page,
            identifier,
            error: translateError(request.lang, error.reason, error.params),
          }),
        );
      }
    },
  );

  app.post<{ Params: { uid: string; channel: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/code/:channel/verify`,
    async (request, reply) => {
      const interaction = await kit.submitted(request, reply);
      if (!interaction) return reply;
      const offered = await offeredChannel(request, reply, interaction);
      if (!offered) return reply;
      const { channel } = offered;
      const form = request.body ?? {};
      const identifier = String(form.identifier ?? '')
        .trim()
        .slice(0, 254);
      const codeId = String(form.codeId ?? '').slice(0, 64);
      let remaining: number | undefined;
      const attempt = await pipelineAttempt(deps, kit, { request, reply, interaction }, [CODE_AMR[channel]]);
      const result = await deps.signIn.signInWithCode(
        { ...attempt.hooks, identifier },
        deps.codeSignIn.credential(
          { codeId, code: String(form.code ?? '').slice(0, 16), channel },
          (left) => {
            remaining = left;
          },
        ),
      );
      if (result.ok) return attempt.passed(result);
      const error =
        result.cause === 'code_failed' || (result.cause === 'unknown_account' && remaining !== undefined)
          ? translateError(request.lang, 'code.wrong', { remaining: remaining ?? 0 })
          : result.cause === 'code_expired'
            ? translateError(request.lang, 'code.expired')
            : await kit.failureMessage(request, offered.clientId, result);
      // The code page again while the code may still be typed; else the first page.
      if (remaining) {
        return sendPage(
          reply,
          refusalStatus(result),
          renderCodeEntryPage(pageContext(request), {
            ...common(interaction, channel),
            identifier,
            codeId,
            error,
          }),
        );
      }
      return sendPage(
        reply,
        refusalStatus(result),
        renderCodeRequestPage(pageContext(request), { ...common(interaction, channel), identifier, error }),
      );
    },
  );
}
