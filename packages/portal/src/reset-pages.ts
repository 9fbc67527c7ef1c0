import { interpolate } from '@tessera/contract';
import { html } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

/**
 * The pages of a forgotten password, at the sign-in they started from and in its brand: the
 * identifier, the code that was sent, then the new password with the company's rules. The
 * first two read the same whether or not an account was found.
 */

interface ResetStep {
  action: string;
  csrfToken: string;
  /** Back to the sign-in page. */
  backHref: string;
  /** Already localised message shown above the form. */
  error?: string;
}

const alert = (message: string | undefined) =>
  message ? html`<p class="alert" role="alert">${message}</p>` : '';

export interface ForgotPasswordPageInput extends ResetStep {
  identifier?: string;
}

export function renderForgotPasswordPage(ctx: PageContext, input: ForgotPasswordPageInput): string {
  const t = portalPhrases[ctx.lang].forgotPassword;
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p class="muted">${t.intro}</p>
${alert(input.error)}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="identifier">${t.identifier}</label>
<input id="identifier" name="identifier" autocomplete="username" required autofocus maxlength="254" value="${input.identifier ?? ''}">
<button type="submit" class="primary">${t.submit}</button>
</form>
<p class="muted small">${t.directoryHint}</p>
<p class="muted small"><a href="${input.backHref}">${t.back}</a></p>`,
  );
}

export interface ResetCodePageInput extends ResetStep {
  /** What the person typed, as they typed it. */
  identifier: string;
  /** The sealed request the code is bound to (sent back with the code). */
  request: string;
  /** Asks for a new code (the identifier page's action). */
  resendAction: string;
}

export function renderResetCodePage(ctx: PageContext, input: ResetCodePageInput): string {
  const t = portalPhrases[ctx.lang].forgotPassword;
  return layout(
    ctx,
    t.codeTitle,
    html`<h1>${t.codeTitle}</h1>
<p class="muted">${interpolate(t.codeSent, { identifier: input.identifier })}</p>
${alert(input.error)}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="request" value="${input.request}">
<label for="code">${t.code}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,8}" maxlength="8" required autofocus>
<button type="submit" class="primary">${t.verify}</button>
</form>
<form method="post" action="${input.resendAction}" class="secondary-form">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="identifier" value="${input.identifier}">
<button type="submit" class="link">${t.resend}</button>
</form>
<p class="muted small">${t.resendHint}</p>
<p class="muted small"><a href="${input.backHref}">${t.back}</a></p>`,
  );
}

export interface ResetPasswordPageInput extends ResetStep {
  username: string;
  /** The sealed grant of the verified code (sent back with the password). */
  grant: string;
  /** The company's password rules, already localised, shown before typing. */
  rules: string[];
}

export function renderResetPasswordPage(ctx: PageContext, input: ResetPasswordPageInput): string {
  const t = portalPhrases[ctx.lang].forgotPassword;
  return layout(
    ctx,
    t.passwordTitle,
    html`<h1>${t.passwordTitle}</h1>
<p class="muted">${interpolate(t.passwordIntro, { username: input.username })}</p>
<section class="password-rules" aria-label="${t.rules}">
<p class="small">${t.rules}</p>
<ul class="small">${input.rules.map((rule) => html`<li>${rule}</li>`)}</ul>
</section>
${alert(input.error)}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="grant" value="${input.grant}">
<input type="text" name="username" autocomplete="username" value="${input.username}" hidden>
<label for="new-password">${t.newPassword}</label>
<input id="new-password" name="newPassword" type="password" autocomplete="new-password" required autofocus>
<label for="confirm-password">${t.confirm}</label>
<input id="confirm-password" name="confirmPassword" type="password" autocomplete="new-password" required>
<button type="submit" class="primary">${t.setPassword}</button>
</form>
<p class="muted small"><a href="${input.backHref}">${t.back}</a></p>`,
  );
}
