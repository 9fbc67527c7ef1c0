import { interpolate, type Language } from '@tessera/contract';
import { portalPhrases } from '@tessera/portal';
import { translateError } from '../../lib/i18n.ts';
import type { LoginFailureCause } from '../signin/login-events.repo.ts';
import type { SignInResult } from '../signin/signin.service.ts';

/** The sign-in page's message for a refused first factor (password, passkey, scan). */
export function failureMessageOf(
  lang: Language,
  clientName: string,
  result: Extract<SignInResult, { ok: false }>,
): string {
  const t = portalPhrases[lang].signIn;
  const p = portalPhrases[lang].passkey;
  const refused = portalPhrases[lang].apps.refused;
  const messages: Record<LoginFailureCause, string> = {
    missing_credentials: t.missingFields,
    unknown_account: t.invalidCredentials,
    wrong_password: t.invalidCredentials,
    throttled: t.throttled,
    account_disabled: t.accountDisabled,
    // An automatic lock-out ends at a known time; a lock set by an administrator does not.
    account_locked: result.lockedUntil
      ? interpolate(t.accountLocked, {
          until: result.lockedUntil.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-GB'),
        })
      : t.accountLockedByAdmin,
    not_platform_admin: interpolate(t.notAllowed, { client: clientName }),
    // The second factor has its own step (sign-in-steps.ts); the password form never answers these.
    mfa_failed: portalPhrases[lang].mfa.wrongCode,
    mfa_locked: portalPhrases[lang].mfa.wrongCode,
    // A forgotten password's code has its own page (modules/password-reset).
    reset_code_wrong: portalPhrases[lang].forgotPassword.expired,
    // The password_expired step logs its own refusals; the password form never answers it.
    password_expired: t.invalidCredentials,
    passkey_failed: p.rejected,
    passkey_cloned: p.rejected,
    passkey_not_allowed: p.notAllowed,
    // Refused applications have their own page (the app_access prompt); never the password form's answer.
    app_disabled: refused.app_disabled,
    app_not_assigned: refused.app_not_assigned,
    app_assignment_expired: refused.app_assignment_expired,
    directory_unavailable: t.directoryUnavailable,
    // A disabled source cannot check the password: answered like a wrong one (the log says why).
    source_disabled: t.invalidCredentials,
    directory_conflict: t.directoryConflict,
    // The scan routes answer these on pages of their own; the password form never does.
    scan_failed: portalPhrases[lang].scan.expired,
    scan_not_linked: portalPhrases[lang].scan.expired,
    // The upstream sources' routes answer these on pages of their own too.
    upstream_failed: portalPhrases[lang].samlSource.expired,
    upstream_not_linked: portalPhrases[lang].samlSource.expired,
    // RADIUS and signature factors answer these elsewhere; the password form never does.
    radius_not_allowed: t.invalidCredentials,
    mfa_not_bound: t.invalidCredentials,
    mfa_unavailable: t.invalidCredentials,
    challenge_expired: t.invalidCredentials,
    signature_failed: portalPhrases[lang].mfa.wrongCode,
    certificate_invalid: portalPhrases[lang].mfa.wrongCode,
    // Codes by email or SMS: the code pages answer these themselves (code-sign-in.routes.ts).
    code_failed: translateError(lang, 'code.wrong', { remaining: 0 }),
    code_expired: translateError(lang, 'code.expired'),
    code_not_allowed: portalPhrases[lang].codes.notOffered,
  };
  return messages[result.cause];
}
