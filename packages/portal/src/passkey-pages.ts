import { interpolate } from '@tessera/contract';
import { html, type SafeHtml } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';
import { type BindKindLink, kindTabs, stepExit } from './step-parts.ts';

/**
 * Passkey (FIDO2 / WebAuthn) forms. The pages' CSP allows no inline script, so the ceremony runs
 * in `webauthn.js` served with the stylesheet: it reads the options from `data-options`, calls
 * `navigator.credentials.create/get`, puts the JSON result in the form's `credential` field and
 * submits the form (with its CSRF token) as any other form.
 */
export interface PasskeyFormInput {
  action: string;
  csrfToken: string;
  mode: 'create' | 'get';
  /** The server's options, JSON (PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON). */
  options: string;
  label: string;
  buttonClass?: 'primary' | 'secondary';
}

export function passkeyForm(ctx: PageContext, input: PasskeyFormInput): SafeHtml {
  const t = portalPhrases[ctx.lang].passkey;
  return html`<form method="post" action="${input.action}" class="passkey-form" data-webauthn="${input.mode}" data-options="${input.options}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="credential" value="">
<p class="alert" role="alert" data-webauthn-error hidden>${t.failed}</p>
<button type="submit" class="${input.buttonClass ?? 'secondary'}" data-passkey-button>${input.label}</button>
</form>
<script src="${ctx.assetsBase}/webauthn.js" defer></script>`;
}

export interface PasskeyRegisterPageInput {
  action: string;
  csrfToken: string;
  username: string;
  options: string;
  /** User centre: the link back to the account. */
  backHref?: string;
  /**
   * Sign-in (the policy asks for a passkey or a key and the person has none): the form that
   * cancels the sign-in, instead of a link back.
   */
  abortAction?: string;
  /** Sign-in: the kinds the person may bind instead (shown when more than one). */
  kinds?: BindKindLink[];
  error?: string;
}

/** The "add a passkey" page: the user centre's, and the sign-in's when the policy asks for one. */
export function renderPasskeyRegisterPage(ctx: PageContext, input: PasskeyRegisterPageInput): string {
  const t = portalPhrases[ctx.lang].passkey;
  const atSignIn = input.abortAction !== undefined;
  return layout(
    ctx,
    t.registerTitle,
    html`<h1>${t.registerTitle}</h1>
${atSignIn ? html`<p>${interpolate(t.bindAtSignIn, { username: input.username })}</p>` : ''}
${kindTabs(ctx, input.kinds ?? [], 'fido2')}
<p class="muted">${interpolate(t.registerIntro, { username: input.username })}</p>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
${passkeyForm(ctx, {
  action: input.action,
  csrfToken: input.csrfToken,
  mode: 'create',
  options: input.options,
  label: t.register,
  buttonClass: 'primary',
})}
${stepExit(ctx, input)}`,
  );
}
