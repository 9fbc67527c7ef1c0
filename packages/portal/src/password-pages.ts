import { interpolate } from '@tessera/contract';
import { html } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

export interface OwnPasswordPageInput {
  action: string;
  /** Where "back" goes (the account page). */
  backHref: string;
  csrfToken: string;
  username: string;
  /** Already localised message shown above the form. */
  error?: string;
}

/** The user centre's own password change: current password, new password and its confirmation. */
export function renderOwnPasswordPage(ctx: PageContext, input: OwnPasswordPageInput): string {
  const t = portalPhrases[ctx.lang].ownPassword;
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p class="muted">${interpolate(t.intro, { username: input.username })}</p>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="text" name="username" autocomplete="username" value="${input.username}" hidden>
<label for="current-password">${t.current}</label>
<input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required autofocus>
<label for="new-password">${t.newPassword}</label>
<input id="new-password" name="newPassword" type="password" autocomplete="new-password" required>
<label for="confirm-password">${t.confirm}</label>
<input id="confirm-password" name="confirmPassword" type="password" autocomplete="new-password" required>
<button type="submit" class="primary">${t.submit}</button>
</form>
<p><a href="${input.backHref}">${t.back}</a></p>`,
  );
}
