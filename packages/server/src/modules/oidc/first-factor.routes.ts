import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../db/schema.ts';
import { parseCredential } from '../mfa/fido2.service.ts';
import type { SignInAttempt, SignInResult } from '../signin/signin.service.ts';
import type { Interaction, InteractionDeps, InteractionKit } from './interaction-kit.ts';
import { INTERACTION_PATH, interactionSubject } from './provider.ts';
import { signInFactsOf, signInFactsQuery } from './sign-in-facts.ts';
import type { StepName } from './sign-in-steps.ts';

/** The status of the sign-in page that answers a refused first factor. */
export const refusalStatus = (result: Extract<SignInResult, { ok: false }>) =>
  result.cause === 'throttled' ? 429 : result.cause === 'directory_unavailable' ? 503 : 401;

/**
 * A first factor that the sign-in pipeline checks (a password, a code sent by email or SMS):
 * the attempt's hooks, and what follows its success. The steps are decided before the success
 * is written, from facts read with the account: without a step to follow, the sign-in completes
 * with the success, whose statement also remembers the browser and stores the interaction's login.
 */
export async function pipelineAttempt(
  deps: InteractionDeps,
  kit: InteractionKit,
  at: { request: FastifyRequest; reply: FastifyReply; interaction: Interaction },
  amr: string[],
) {
  const { request, reply, interaction } = at;
  const clientId = String(interaction.params.client_id);
  // A source with the skip-MFA flag vouches for the person on its own.
  const skipOf = (skipMfa?: boolean): StepName[] => (skipMfa ? ['bind_factor', 'second_factor'] : []);
  let steps: Awaited<ReturnType<InteractionKit['pendingSteps']>> | undefined;
  const hooks = {
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    clientId,
    companyId: await deps.clientCompany(clientId),
    deviceId: deps.devices.read(request),
    authorize: (account: Account) =>
      deps.clientAccessDenied(clientId, account) ? 'not_platform_admin' : null,
    prefetch: signInFactsQuery,
    onSuccess: async (account: Account, prefetched: unknown, { skipMfa }: { skipMfa: boolean }) => {
      steps = await kit.pendingSteps(interaction, account, skipOf(skipMfa), signInFactsOf(prefetched), amr);
      if (steps.pending.length) return undefined;
      return {
        rememberDevice: deps.devices.assign(request, reply),
        writes: await kit.loginStatements(interaction, { accountId: account.id, amr }),
      };
    },
  } satisfies Partial<SignInAttempt>;
  /** The first factor passed: on to the steps, or back to the provider when none is due. */
  const passed = (result: Extract<SignInResult, { ok: true }>) => {
    const login = { accountId: result.account.id, amr };
    if (!steps) return kit.firstFactorPassed(request, reply, interaction, login, skipOf(result.skipMfa));
    if (!steps.pending.length) return kit.handBack(reply, interaction);
    return kit.afterFirstFactor(request, reply, interaction, login, result.account, steps);
  };
  return { hooks, passed };
}

/**
 * The submissions of the sign-in form's first factor: a password, or a passkey. Either passes to
 * the same checks (the account's status, the client's access) and then to the sign-in steps.
 */
export function firstFactorRoutes(app: FastifyInstance, deps: InteractionDeps, kit: InteractionKit) {
  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/login`,
    async (request, reply) => {
      const interaction = await kit.submitted(request, reply);
      if (!interaction) return reply;
      const form = request.body ?? {};
      const identifier = String(form.identifier ?? '').slice(0, 254);
      // Home-realm discovery: an address of a domain the company signs in upstream goes there
      // (a password typed with it is never checked).
      if (await deps.upstream?.homeRealm(request, reply, interaction, identifier)) return reply;
      const attempt = await pipelineAttempt(deps, kit, { request, reply, interaction }, ['pwd']);
      const result = await deps.signIn.signInWithPassword({
        ...attempt.hooks,
        identifier,
        password: String(form.password ?? '').slice(0, 1024),
      });
      if (!result.ok) {
        return kit.showSignIn(request, reply, interaction.uid, attempt.hooks.clientId, {
          error: await kit.failureMessage(request, attempt.hooks.clientId, result),
          identifier,
          status: refusalStatus(result),
        });
      }
      return attempt.passed(result);
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
      const interaction = await kit.submitted(request, reply);
      if (!interaction) return reply;
      const clientId = String(interaction.params.client_id);
      const fido2 = deps.passkey;
      const event = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, clientId };
      const refuse = async (result: Extract<SignInResult, { ok: false }>) =>
        kit.showSignIn(request, reply, interaction.uid, clientId, {
          error: await kit.failureMessage(request, clientId, result),
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
        interactionSubject(interaction.uid),
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
        method: 'passkey',
      });
      if (!result.ok) return refuse(result);
      const amr = assertion.userVerified ? ['hwk', 'user', 'mfa'] : ['hwk', 'user'];
      const skip: StepName[] = assertion.userVerified ? ['bind_factor', 'second_factor'] : [];
      return kit.firstFactorPassed(request, reply, interaction, { accountId: account.id, amr }, skip);
    },
  );
}
