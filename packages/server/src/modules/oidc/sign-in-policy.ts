import { decodeJwt } from 'jose';
import { errors, interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type { Account } from '../../db/schema.ts';
import type { AppAccessRefusal } from '../app/app-access.ts';
import {
  AMR_MFA,
  acrSatisfiedBy,
  acrValuesSupported,
  multiFactorRequested,
  requestedAcr,
} from './authentication-context.ts';
import { appOf, type TesseraAppClient } from './clients.ts';

/** The interaction prompt that refuses a person an application (see signInPolicy). */
export const APP_ACCESS_PROMPT = 'app_access';
export const SELECT_ACCOUNT_PROMPT = 'select_account';
/** Login checks that a signed-in person meets with a second factor alone (interaction.routes.ts). */
export const STEP_UP_REASONS: readonly string[] = ['mfa_required', 'acr_unmet'];

const { Check, Prompt, base } = interactionPolicy;

/** Whether a sign-in happened in this authorization request (its interaction result). */
const signedInNow = (ctx: KoaContextWithOIDC) => Boolean(ctx.oidc.result?.login);

const requestOf = (ctx: KoaContextWithOIDC) =>
  requestedAcr(ctx.oidc.params as { acr_values?: unknown; claims?: unknown });

/**
 * A login check that must hold right after a sign-in: if it still fails then, the person signed
 * in as someone the request did not allow (id_token_hint, a requested `sub`), and the request
 * ends with `login_required` instead of asking again and again.
 */
function endingAfterSignIn(check: interactionPolicy.Check): interactionPolicy.Check {
  return new Check(
    check.reason,
    check.description,
    check.error ?? 'login_required',
    async (ctx) => {
      const prompt = await check.check(ctx);
      if (prompt && signedInNow(ctx)) throw new errors.LoginRequired(check.description);
      return prompt;
    },
    check.details,
  );
}

/**
 * The provider's prompts, with Tessera's rules:
 * - `select_account`: a person signed in chooses to continue or to sign in as someone else;
 * - `login` also when the account was disabled or its credentials changed after the session's
 *   sign-in, when the application asks for multi-factor authentication that the session lacks
 *   (a step-up: the second factor alone), and never twice for the same unmet requirement;
 * - `app_access`: may this person use this application at all (the administrator decides).
 */
export function signInPolicy(
  findAccount: (id: string) => Promise<Account | undefined>,
  appAccess: (app: TesseraAppClient, accountId: string) => Promise<AppAccessRefusal | null>,
  /** A person's pairwise subject in a company (subject.ts). */
  subjectFor: (companyId: string, accountId: string) => string,
) {
  const policy = base();
  const login = policy.get('login')!;

  const subValue = login.checks.get('claims_id_token_sub_value');
  if (subValue) {
    const index = login.checks.indexOf(subValue);
    login.checks.remove(subValue.reason);
    login.checks.add(endingAfterSignIn(subValue), index);
  }
  // oidc-provider checks id_token_hint when the request arrives; after a sign-in in its middle
  // (the hint is not checked again there) the person must be the one the hint names.
  login.checks.add(
    new Check(
      'id_token_hint_signed_in',
      'the signed-in account is not the one of the id_token_hint',
      'login_required',
      async (ctx) => {
        const hint = (ctx.oidc.params as { id_token_hint?: unknown }).id_token_hint;
        const accountId = ctx.oidc.session?.accountId;
        if (typeof hint !== 'string' || !accountId || !signedInNow(ctx)) return Check.NO_NEED_TO_PROMPT;
        const app = appOf(ctx.oidc.client as never);
        const expected = app ? subjectFor(app.companyId, accountId) : accountId;
        if (decodeJwt(hint).sub !== expected)
          throw new errors.LoginRequired('the signed-in account is not the one of the id_token_hint');
        return Check.NO_NEED_TO_PROMPT;
      },
    ),
  );
  // Essential acr values are judged by the strength of the sign-in (acrSatisfiedBy), not by the
  // name the session happens to carry.
  login.checks.remove('essential_acrs');
  login.checks.remove('essential_acr');
  login.checks.add(
    new Check(
      'acr_unmet',
      'none of the requested authentication contexts was met',
      'login_required',
      (ctx) => {
        const { essential } = requestOf(ctx);
        if (!essential.length) return Check.NO_NEED_TO_PROMPT;
        if (!essential.some((value) => (acrValuesSupported as readonly string[]).includes(value)))
          throw new errors.UnmetAuthenticationRequirements('none of the requested acr values is supported');
        const session = ctx.oidc.session;
        if (!session?.accountId) return Check.REQUEST_PROMPT;
        if (essential.some((value) => acrSatisfiedBy(session.amr).includes(value)))
          return Check.NO_NEED_TO_PROMPT;
        if (signedInNow(ctx))
          throw new errors.UnmetAuthenticationRequirements(
            'the requested authentication context was not met',
          );
        return Check.REQUEST_PROMPT;
      },
    ),
  );
  login.checks.add(
    new Check('mfa_required', 'multi-factor authentication is required', 'login_required', (ctx) => {
      const { session } = ctx.oidc;
      if (!session?.accountId || !multiFactorRequested(requestOf(ctx))) return Check.NO_NEED_TO_PROMPT;
      if (session.amr?.includes(AMR_MFA)) return Check.NO_NEED_TO_PROMPT;
      if (signedInNow(ctx))
        throw new errors.UnmetAuthenticationRequirements('multi-factor authentication was not completed');
      return Check.REQUEST_PROMPT;
    }),
  );
  login.checks.add(
    new Check(
      'credentials_changed',
      'The credentials changed since the sign-in',
      'login_required',
      async (ctx) => {
        const { session, result } = ctx.oidc;
        if (!session?.accountId || result?.login) return Check.NO_NEED_TO_PROMPT;
        const account = await findAccount(session.accountId);
        if (account?.status !== 'enabled') return Check.REQUEST_PROMPT;
        const changed = account.credentials_changed_at;
        // Whole seconds, as the session keeps its sign-in time.
        const stale = changed !== null && Math.floor(changed.getTime() / 1000) > (session.loginTs ?? 0);
        return stale ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
      },
    ),
  );

  // After the sign-in, before anything else: may this person use this application at all?
  // The interaction then shows why not (interaction.routes.ts). This runs on every
  // authorization request, also when a single sign-on session skips the sign-in page.
  policy.add(
    new Prompt(
      { name: APP_ACCESS_PROMPT, requestable: false },
      new Check(
        'app_access_denied',
        'The account may not use this application',
        'access_denied',
        async (ctx) => {
          const app = appOf(ctx.oidc.client as never);
          const accountId = ctx.oidc.session?.accountId;
          if (!app || !accountId) return Check.NO_NEED_TO_PROMPT;
          return (await appAccess(app, accountId)) ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
        },
      ),
    ),
    1,
  );

  // Before the sign-in: with someone signed in, the person chooses to go on as them or to sign
  // in as someone else. Nobody signed in, or someone who just signed in: nothing to choose.
  const selectAccount = new Prompt({ name: SELECT_ACCOUNT_PROMPT, requestable: true });
  selectAccount.checks.clear();
  selectAccount.checks.add(
    new Check(
      'select_account_prompt',
      'the End-User chooses the account',
      'account_selection_required',
      (ctx) => {
        const { oidc } = ctx;
        if (!oidc.prompts.has(SELECT_ACCOUNT_PROMPT) || !oidc.promptPending(SELECT_ACCOUNT_PROMPT))
          return Check.NO_NEED_TO_PROMPT;
        return oidc.session?.accountId && !signedInNow(ctx) ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
      },
    ),
  );
  policy.add(selectAccount, 0);
  return policy;
}
