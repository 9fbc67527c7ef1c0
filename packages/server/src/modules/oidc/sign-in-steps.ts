import type { Language } from '@tessera/contract';
import {
  type PageContext,
  portalPhrases,
  renderBindFactorPage,
  renderChangePasswordPage,
} from '@tessera/portal';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { changeOwnPassword } from '../account/own-password.ts';
import { verifyPassword } from '../account/password.ts';
import { assertPasswordAllowed, passwordPolicyFor } from '../account/password-policy.ts';
import type { Fido2Service } from '../mfa/fido2.service.ts';
import type { MfaService } from '../mfa/mfa.service.ts';
import type { SignatureFactors } from '../mfa/signature-factors.service.ts';
import { insertLoginEvent } from '../signin/login-events.repo.ts';
import { codesPage, withFactorBinding } from './sign-in-binding.ts';
import type { SentCodeFactor } from './sign-in-code-factor.ts';
import { hasBoundFactor, passwordExpired, requirementOfSignIn, type SignInFacts } from './sign-in-facts.ts';
import { secondFactorStep } from './sign-in-second-factor.ts';

/**
 * The sign-in pipeline after the first factor (password or sign-in link): an ordered list of
 * steps, each with its own page. Once the first factor passes, the steps that apply to the
 * account are stored on the OIDC interaction as its pending list; the interaction finishes
 * (and the provider issues its session) only when that list is empty, so no other URL skips a
 * step. To add a step (password expired, second factor...), add its name to `StepName` and an
 * entry to the list returned by `createSignInSteps`, in the position it must run.
 */
export type StepName = 'change_password' | 'password_expired' | 'bind_factor' | 'second_factor';

/** What the sign-in is for, beyond the account's own rules. */
export interface StepContext {
  /** The application asked for multi-factor authentication (acr_values): a second factor is due. */
  mfaRequested?: boolean;
  /**
   * The methods of the sign-in so far (RFC 8176): a code sent by email or SMS as the first
   * factor is not offered again as the second.
   */
  amr?: readonly string[];
}

export interface StepRequest extends StepContext {
  account: Account;
  lang: Language;
  ip: string | null;
  userAgent: string | null;
  clientId: string;
  /** The OIDC interaction (a passkey challenge is bound to it). */
  interactionId?: string;
  /** The account's facts as this request read them with it (accountWithFacts): no query needed. */
  facts?: SignInFacts;
}

export interface StepView extends StepContext {
  /** Where the step's form posts to. */
  action: string;
  abortAction: string;
  csrfToken: string;
  account: Account;
  /** Localised message of a refused submission. */
  error?: string;
  /** The OIDC interaction (a passkey challenge is bound to it). */
  interactionId?: string;
  /** The kind the person chose on the page (`?kind=` of its address). */
  chosenKind?: string;
  /** What the step keeps of its refused submission (SignInStep.keptOnRefusal). */
  refused?: Record<string, string | undefined>;
  /** The account's facts as this request read them with it (accountWithFacts): no query needed. */
  facts?: SignInFacts;
}

/**
 * A step that is done but has something to show once before the sign-in goes on (recovery
 * codes after binding a factor): `page` is sent instead of the redirect, and its continue link
 * goes back to the interaction. `completes` names later steps that this one also satisfied
 * (binding a factor with a code proves the second factor).
 */
export interface StepDone {
  page?: (page: PageContext, view: { continueAction: string }) => string;
  completes?: StepName[];
  /** The authentication methods the step added (RFC 8176: `otp`, `hwk`); a second factor adds `mfa`. */
  amr?: string[];
}

export interface SignInStep {
  readonly name: StepName;
  /**
   * Whether the account has to go through the step; checked again on every request, so a step
   * done elsewhere drops out. `facts`, when the caller read them already (right after the first
   * factor), answer without a query.
   */
  applies(account: Account, context?: StepContext, facts?: SignInFacts): boolean | Promise<boolean>;
  render(page: PageContext, view: StepView): string | Promise<string>;
  /** Handles the submitted form: undefined (or a StepDone) when the step is done, otherwise the localised error for the page. */
  submit(
    request: StepRequest,
    form: Record<string, string | undefined>,
  ): Promise<string | undefined | StepDone>;
  /** What of a refused form the page shows again (StepView.refused): never a secret. Nothing by default. */
  keptOnRefusal?(form: Record<string, string | undefined>): Record<string, string | undefined>;
  /**
   * The step never changes the account's credentials (credential_version), so the account read
   * before its submission is still the sign-in's own afterwards: no second read.
   */
  readonly keepsCredentials?: boolean;
}

/** What the interaction remembers between the first factor and the end of the pipeline. */
export interface PendingSignIn extends StepContext {
  accountId: string;
  amr: string[];
  /** Steps still to do, in order. */
  pending: StepName[];
  /**
   * When the account's credentials last changed, as of the first factor (or the last step that
   * changed them): a change by anyone else meanwhile (an administrator's reset, a disable) ends
   * the pending sign-in.
   */
  credentialsAt: string | null;
}

/** The `credentialsAt` of a pending sign-in for the account as it is now. */
export const credentialsAtOf = (account: Pick<Account, 'credentials_changed_at'>) =>
  account.credentials_changed_at?.toISOString() ?? null;

/** The pending sign-in is kept in the interaction's `result` under this key (the provider ignores it). */
const RESULT_KEY = 'tessera';

export const readPendingSignIn = (interaction: { result?: Record<string, unknown> }) =>
  interaction.result?.[RESULT_KEY] as PendingSignIn | undefined;

export const pendingSignInResult = (pending: PendingSignIn) => ({ [RESULT_KEY]: pending });

/**
 * A password that the person chooses for themselves: required, confirmed, within the rules of
 * the home company (the defaults without one), new. `change_password` runs when an
 * administrator asked for it, `password_expired` when the company's change cycle ran out.
 */
function changePasswordStep(
  deps: { db: Db },
  name: 'change_password' | 'password_expired' = 'change_password',
): SignInStep {
  const expired = name === 'password_expired';
  return {
    name,
    applies: (account, _context, facts) =>
      expired ? passwordExpired(deps.db, account, facts) : account.must_change_password,
    render: (page, view) =>
      renderChangePasswordPage(page, {
        action: view.action,
        abortAction: view.abortAction,
        csrfToken: view.csrfToken,
        username: view.account.username,
        error: view.error,
        expired,
      }),
    async submit(request, form) {
      const refusal = await submitNewPassword(request, form);
      if (refusal && expired) {
        // The sign-in is held until the expired password is replaced: the log says why.
        await insertLoginEvent(deps.db, {
          companyId: request.account.home_company_id,
          accountId: request.account.id,
          identifier: request.account.username,
          clientId: request.clientId,
          ip: request.ip,
          userAgent: request.userAgent,
          result: 'failure',
          failureCause: 'password_expired',
        });
      }
      return refusal;
    },
  };

  async function submitNewPassword(
    { account, lang, ip }: StepRequest,
    form: Record<string, string | undefined>,
  ) {
    const password = String(form.newPassword ?? '').slice(0, 1024);
    const confirmation = String(form.confirmPassword ?? '').slice(0, 1024);
    if (!password) return translateError(lang, 'user.password_required');
    if (password !== confirmation) return translateError(lang, 'user.password_mismatch');
    try {
      assertPasswordAllowed(
        password,
        { username: account.username, lang, field: 'newPassword' },
        await passwordPolicyFor(deps.db, account.home_company_id),
      );
    } catch (error) {
      if (error instanceof AppError)
        return error.localisedMessage ?? translateError(lang, error.reason, error.params);
      throw error;
    }
    if (await verifyPassword(account.password_hash, password)) {
      return translateError(lang, 'password.same_as_current');
    }
    await changeOwnPassword(deps.db, {
      account,
      newPassword: password,
      audit: {
        before: expired ? { passwordExpired: true } : { mustChangePassword: true },
        after: expired ? { passwordExpired: false } : { mustChangePassword: false },
        ip,
      },
    });
    return undefined;
  }
}

/**
 * Binding a first factor when the policy requires one and the person has none of an allowed
 * kind: QR code and key, a confirming code, the recovery codes once. The confirming code
 * proves the factor, so the second_factor step is done with it.
 */
function bindFactorStep(deps: { mfa: MfaService; sentCodes?: SentCodeFactor }): SignInStep {
  const { mfa, sentCodes } = deps;
  const needsBinding = async (account: Account, context?: StepContext, facts?: SignInFacts) => {
    const requirement = await requirementOfSignIn(mfa, account, context, facts);
    if (requirement.mode !== 'required') return false;
    // A bound passkey or key of an allowed kind counts (they are bound in the user centre, or
    // keys by an administrator).
    const kinds = [...requirement.types, ...(requirement.fido2 ? ['fido2'] : []), ...requirement.signature];
    if (await hasBoundFactor(mfa, account.id, kinds, facts)) return false;
    // A verified address of an allowed code kind is a factor already (sign-in-code-factor.ts).
    return !(sentCodes && (await sentCodes.channels(account, requirement, context?.amr)).length);
  };
  return {
    name: 'bind_factor',
    applies: needsBinding,
    async render(page, view) {
      const requirement = await requirementOfSignIn(mfa, view.account, view, view.facts);
      const type = requirement.types.includes('otp') ? 'otp' : 'otp_sm3';
      // A reloaded page shows the same key again, so an app that already scanned it still works.
      const pending = await mfa.pendingBinding(view.account);
      const binding = pending?.type === type ? pending : await mfa.startBinding(view.account, type);
      return renderBindFactorPage(page, {
        action: view.action,
        abortAction: view.abortAction,
        csrfToken: view.csrfToken,
        username: view.account.username,
        type: binding.type,
        factorId: binding.factorId,
        qrCode: binding.qrCode,
        secret: binding.secret,
        error: view.error,
      });
    },
    async submit({ account, lang, ip }, form) {
      const confirmed = await mfa.confirmBinding(
        account,
        String(form.factorId ?? '').slice(0, 64),
        String(form.code ?? '').slice(0, 16),
        ip,
      );
      if (!confirmed) return portalPhrases[lang].mfa.wrongCode;
      return { completes: ['second_factor'], amr: ['otp'], page: codesPage(confirmed.recoveryCodes) };
    },
  };
}

/** The steps in the order they run. */
export function createSignInSteps(deps: {
  db: Db;
  mfa: MfaService;
  fido2?: Fido2Service;
  signatures?: SignatureFactors;
  sentCodes?: SentCodeFactor;
}): SignInStep[] {
  return [
    changePasswordStep(deps),
    changePasswordStep(deps, 'password_expired'),
    withFactorBinding(bindFactorStep(deps), deps),
    secondFactorStep(deps),
  ];
}
