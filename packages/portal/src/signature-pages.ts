import { interpolate, SIGNATURE_CHALLENGE_SECONDS } from '@tessera/contract';
import { html, type SafeHtml } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';
import { type BindKindLink, kindTabs, stepExit } from './step-parts.ts';

/**
 * UKEY and soft-lock factors: the page shows a single-use challenge and takes the signature that
 * the person's key made of it (a vendor's middleware, or the Tessera UKEY helper, signs it).
 */

export interface SignatureFactorView {
  factorId: string;
  type: string;
  name: string;
}

export interface SignatureFormInput {
  action: string;
  csrfToken: string;
  challenge: string;
  factors: SignatureFactorView[];
  buttonClass?: 'primary' | 'secondary';
}

/** The challenge, as text to copy into the signing tool. */
const challengeBlock = (ctx: PageContext, challenge: string) => {
  const t = portalPhrases[ctx.lang].signature;
  return html`<label for="challenge-text">${t.challenge}</label>
<textarea id="challenge-text" class="challenge" rows="2" readonly spellcheck="false" data-challenge>${challenge}</textarea>
<p class="muted small">${interpolate(t.challengeHint, { seconds: SIGNATURE_CHALLENGE_SECONDS })}</p>
<input type="hidden" name="challenge" value="${challenge}">`;
};

/** The second-factor form of the signature kinds. */
export function signatureForm(ctx: PageContext, input: SignatureFormInput): SafeHtml {
  const t = portalPhrases[ctx.lang].signature;
  const kinds = portalPhrases[ctx.lang].mfa.types;
  const [only] = input.factors;
  return html`<form method="post" action="${input.action}" class="signature-form">
<h2>${t.useKey}</h2>
<p class="muted">${t.useKeyIntro}</p>
<input type="hidden" name="csrf" value="${input.csrfToken}">
${
  input.factors.length === 1 && only
    ? html`<input type="hidden" name="signatureFactorId" value="${only.factorId}"><p>${kinds[only.type] ?? only.type}: <strong>${only.name}</strong></p>`
    : html`<label for="signature-factor">${t.key}</label>
<select id="signature-factor" name="signatureFactorId">${input.factors.map(
        (f) => html`<option value="${f.factorId}">${kinds[f.type] ?? f.type}: ${f.name}</option>`,
      )}</select>`
}
${challengeBlock(ctx, input.challenge)}
<label for="signature">${t.signature}</label>
<textarea id="signature" name="signature" rows="3" required spellcheck="false" autocomplete="off" maxlength="2100"></textarea>
<button type="submit" class="${input.buttonClass ?? 'primary'}">${t.verify}</button>
</form>`;
}

export interface SignatureBindPageInput {
  action: string;
  csrfToken: string;
  type: 'ukey_keyid' | 'ukey_pubkey' | 'ukey_cert' | 'soft_lock';
  challenge: string;
  values: { name?: string; keyId?: string; publicKey?: string; certificate?: string };
  error?: string;
  /** User centre: the link back to the account. */
  backHref?: string;
  /** Sign-in (the policy asks for a key and the person has none): the form that cancels the sign-in, instead of a link back. */
  abortAction?: string;
  /** Sign-in: the person signing in, named in the intro. */
  username?: string;
  /** The kinds the person may choose from, each with the address of its form (shown when more than one). */
  kinds?: BindKindLink[];
}

/**
 * Binding a key (UKEY KeyId, public key or certificate, soft lock): the key (public key or
 * certificate), then its signature of the challenge. The user centre's page, and the sign-in's
 * when the policy asks for a key and the person has none.
 */
export function renderSignatureBindPage(ctx: PageContext, input: SignatureBindPageInput): string {
  const t = portalPhrases[ctx.lang].signature;
  const mfa = portalPhrases[ctx.lang].mfa;
  const kind = mfa.types[input.type] ?? input.type;
  const keyIdLabel = input.type === 'soft_lock' ? t.softLockId : t.keyId;
  const kinds = input.kinds ?? [];
  return layout(
    ctx,
    t.bindTitle,
    html`<h1>${t.bindTitle}</h1>
${input.username ? html`<p>${interpolate(t.bindAtSignIn, { username: input.username })}</p>` : ''}
${kindTabs(ctx, kinds, input.type)}
<p class="muted">${kind}: ${t.bindIntro}</p>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="type" value="${input.type}">
<label for="key-name">${t.name}</label>
<input id="key-name" name="name" maxlength="50" placeholder="${t.namePlaceholder}" value="${input.values.name ?? ''}">
${
  input.type === 'ukey_keyid' || input.type === 'soft_lock'
    ? html`<label for="key-id">${keyIdLabel}</label>
<input id="key-id" name="keyId" maxlength="64" required autocomplete="off" spellcheck="false" value="${input.values.keyId ?? ''}">`
    : ''
}
${
  input.type === 'ukey_cert'
    ? html`<label for="certificate">${t.certificate}</label>
<textarea id="certificate" name="certificate" rows="6" required spellcheck="false">${input.values.certificate ?? ''}</textarea>`
    : html`<label for="public-key">${t.publicKey}</label>
<textarea id="public-key" name="publicKey" rows="5" required spellcheck="false">${input.values.publicKey ?? ''}</textarea>`
}
${challengeBlock(ctx, input.challenge)}
<label for="signature">${t.signature}</label>
<textarea id="signature" name="signature" rows="3" required spellcheck="false" autocomplete="off" maxlength="2100"></textarea>
<button type="submit" class="primary">${t.bind}</button>
</form>
${stepExit(ctx, input)}`,
  );
}
