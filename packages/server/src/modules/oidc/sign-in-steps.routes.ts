import type { PageContext } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../db/schema.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import { withSecondFactor } from './authentication-context.ts';
import type { Interaction } from './interaction-kit.ts';
import { INTERACTION_PATH } from './provider.ts';
import type { SignInFacts } from './sign-in-facts.ts';
import {
  credentialsAtOf,
  type PendingSignIn,
  pendingSignInResult,
  readPendingSignIn,
  type SignInStep,
} from './sign-in-steps.ts';

/** The kind chosen on a step's page: `?kind=` of the page's address. */
function chosenKindOf(request: FastifyRequest) {
  const kind = (request.query as { kind?: unknown } | undefined)?.kind;
  return typeof kind === 'string' ? kind.slice(0, 32) : undefined;
}

/** What the interaction pages share with the steps (interaction.routes.ts). */
export interface StepsKit {
  steps: SignInStep[];
  accounts: Pick<AccountsRepo, 'findAccountById'>;
  /** The account as it is now with the facts its steps decide on, in one statement (sign-in-facts.ts). */
  accountWithFacts(
    accountId: string,
  ): Promise<{ account: Account; facts: SignInFacts | undefined } | undefined>;
  csrfFor(uid: string): string;
  pageContext(request: FastifyRequest): PageContext;
  sendPage(reply: FastifyReply, status: number, body: string): FastifyReply;
  submitted(
    request: FastifyRequest<{ Body: Record<string, string | undefined> }>,
    reply: FastifyReply,
  ): Promise<Interaction | undefined>;
}

/**
 * The pages of the sign-in pipeline after the first factor (sign-in-steps.ts): the step that is
 * due, and its submission. Each done step leaves the pending list; a second factor adds its
 * methods to the sign-in's `amr` (with `mfa`).
 */
export function signInStepsRoutes(app: FastifyInstance, kit: StepsKit) {
  /**
   * The first pending step that still applies, with its account; undefined when there is no
   * pending sign-in, or when it ended because the account was disabled or its credentials were
   * changed by someone else since the first factor (the sign-in then starts again).
   *
   * The account and, while steps are pending, the facts they decide on (companies, safety
   * settings, bound factors) are read here once, as they are now, and handed to the step's
   * `applies`, `render` and `submit`: the decisions of the request are made on that one read.
   */
  async function currentStep(interaction: Interaction) {
    const state = readPendingSignIn(interaction);
    if (!state) return undefined;
    const read = state.pending.length
      ? await kit.accountWithFacts(state.accountId)
      : { account: await kit.accounts.findAccountById(state.accountId), facts: undefined };
    const account = read?.account;
    if (account?.status !== 'enabled' || credentialsAtOf(account) !== state.credentialsAt) return undefined;
    const facts = read?.facts;
    for (const name of state.pending) {
      const step = kit.steps.find((s) => s.name === name);
      if (step && (await step.applies(account, state, facts))) return { state, step, account, facts };
    }
    return { state, step: undefined, account, facts };
  }

  async function showStep(
    request: FastifyRequest,
    reply: FastifyReply,
    interaction: Interaction,
    current: { step: SignInStep; account: Account; state: PendingSignIn; facts?: SignInFacts },
    extra: { error?: string; status?: number; refused?: Record<string, string | undefined> } = {},
  ) {
    return kit.sendPage(
      reply,
      extra.status ?? 200,
      await current.step.render(kit.pageContext(request), {
        action: `${INTERACTION_PATH}/${interaction.uid}/step/${current.step.name}`,
        abortAction: `${INTERACTION_PATH}/${interaction.uid}/abort`,
        csrfToken: kit.csrfFor(interaction.uid),
        account: current.account,
        error: extra.error,
        interactionId: interaction.uid,
        mfaRequested: current.state.mfaRequested,
        amr: current.state.amr,
        chosenKind: chosenKindOf(request),
        refused: extra.refused,
        facts: current.facts,
      }),
    );
  }

  app.post<{ Params: { uid: string; step: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/step/:step`,
    async (request, reply) => {
      const interaction = await kit.submitted(request, reply);
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
          mfaRequested: current.state.mfaRequested,
          amr: current.state.amr,
          facts: current.facts,
        },
        request.body ?? {},
      );
      if (typeof outcome === 'string') {
        return showStep(
          request,
          reply,
          interaction,
          { ...current, step: current.step },
          { error: outcome, status: 400, refused: current.step.keptOnRefusal?.(request.body ?? {}) },
        );
      }
      const { pending, amr, accountId } = current.state;
      const done = [current.step.name, ...(outcome?.completes ?? [])];
      // A step may have changed the credentials itself (a new password): that change is this
      // sign-in's own. A step that never changes them keeps the account read before it.
      const after = current.step.keepsCredentials
        ? current.account
        : await kit.accounts.findAccountById(accountId);
      interaction.result = pendingSignInResult({
        ...current.state,
        amr: outcome?.amr ? withSecondFactor(amr, outcome.amr) : amr,
        pending: pending.filter((name) => !done.includes(name)),
        credentialsAt: after ? credentialsAtOf(after) : null,
      });
      await interaction.persist();
      const continueAction = `${INTERACTION_PATH}/${interaction.uid}`;
      if (outcome?.page)
        return kit.sendPage(reply, 200, outcome.page(kit.pageContext(request), { continueAction }));
      return reply.redirect(`${INTERACTION_PATH}/${interaction.uid}`, 303);
    },
  );

  return { currentStep, showStep };
}
