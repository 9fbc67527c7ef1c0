import { html, type SafeHtml } from './html.ts';
import type { PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

/** The form that cancels a sign-in from one of its steps (it posts the step's CSRF token). */
export const cancelSignInForm = (ctx: PageContext, abortAction: string, csrfToken: string): SafeHtml =>
  html`<form method="post" action="${abortAction}" class="secondary-form">
<input type="hidden" name="csrf" value="${csrfToken}">
<button type="submit" class="link">${portalPhrases[ctx.lang].signIn.cancel}</button>
</form>`;

/**
 * The way out of a page that serves both the sign-in and the user centre: in the user centre
 * (`backHref`) the link back to the account, at sign-in the form that cancels it (`abortAction`).
 */
export function stepExit(
  ctx: PageContext,
  input: { abortAction?: string; backHref?: string; csrfToken: string },
): SafeHtml | '' {
  if (input.backHref)
    return html`<p class="secondary-form"><a href="${input.backHref}">${portalPhrases[ctx.lang].mfa.back}</a></p>`;
  if (input.abortAction) return cancelSignInForm(ctx, input.abortAction, input.csrfToken);
  return '';
}
