import { interpolate } from '@tessera/contract';
import { html, type SafeHtml } from './html.ts';
import type { PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

/**
 * An upstream identity provider the sign-in page offers (OpenID Connect, SAML): a button that
 * starts the sign-in there (a POST with the page's CSRF token), with the source's name and logo.
 */
export interface UpstreamButton {
  action: string;
  /** oidc or saml: a class for the stylesheet. */
  type: string;
  /** The source's name, as the company called it. */
  name: string;
  /** An https image, when the company gave one. */
  logoUrl?: string | null;
}

/** The sign-in page's upstream buttons, one per enabled upstream source of the company the sign-in is for. */
export function upstreamButtons(ctx: PageContext, buttons: UpstreamButton[], csrfToken: string): SafeHtml {
  if (!buttons.length) return html``;
  const t = portalPhrases[ctx.lang].upstream;
  return html`<p class="muted small">${t.or}</p>
<div class="scan-buttons upstream-buttons">${buttons.map(
    (button) => html`<form method="post" action="${button.action}">
<input type="hidden" name="csrf" value="${csrfToken}">
<button type="submit" class="secondary upstream upstream-${button.type}">${button.logoUrl ? html`<img src="${button.logoUrl}" alt="" width="20" height="20" referrerpolicy="no-referrer"> ` : ''}${interpolate(t.signInWith, { name: button.name })}</button>
</form>`,
  )}</div>`;
}

/**
 * Home-realm discovery on the sign-in form: the email domains whose people sign in upstream.
 * `home-realm.js` hides the password for such an address (without script, the password typed
 * is ignored and the submission goes upstream all the same).
 */
export function homeRealmScript(ctx: PageContext, domains: string[]): SafeHtml {
  if (!domains.length) return html``;
  return html`<script src="${ctx.assetsBase}/home-realm.js" defer></script>`;
}
