import { html, type SafeHtml } from './html.ts';
import type { PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

/** Parts shared by the pages of the sign-in's steps and the user centre's factor pages. */

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

/** A factor a person may bind instead of another, with the address of its form. */
export interface BindKindLink {
  type: string;
  href: string;
}

/** The kinds to choose between when binding a factor at sign-in (nothing when there is one). */
export function kindTabs(ctx: PageContext, kinds: readonly BindKindLink[], current: string): SafeHtml | '' {
  const mfa = portalPhrases[ctx.lang].mfa;
  if (kinds.length < 2) return '';
  return html`<nav class="tabs" aria-label="${mfa.bindKind}">${kinds.map((k) =>
    k.type === current
      ? html`<a href="${k.href}" aria-current="page">${mfa.types[k.type] ?? k.type}</a>`
      : html`<a href="${k.href}">${mfa.types[k.type] ?? k.type}</a>`,
  )}</nav>`;
}
