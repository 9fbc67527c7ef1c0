import { interpolate } from '@tessera/contract';
import { html, type SafeHtml } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

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
  backHref: string;
  error?: string;
}

/** The user centre's "add a passkey" page. */
export function renderPasskeyRegisterPage(ctx: PageContext, input: PasskeyRegisterPageInput): string {
  const t = portalPhrases[ctx.lang].passkey;
  return layout(
    ctx,
    t.registerTitle,
    html`<h1>${t.registerTitle}</h1>
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
<p class="secondary-form"><a href="${input.backHref}">${portalPhrases[ctx.lang].mfa.back}</a></p>`,
  );
}
