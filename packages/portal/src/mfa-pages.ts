import { interpolate } from '@tessera/contract';
import { type SentCodeFactors, sentCodeForms } from './code-pages.ts';
import { html } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { passkeyForm } from './passkey-pages.ts';
import { portalPhrases } from './phrases/index.ts';
import { type SignatureFactorView, signatureForm } from './signature-pages.ts';
import { cancelSignInForm, stepExit } from './step-parts.ts';

/** Second-factor pages of the sign-in pipeline (bind_factor and second_factor steps). */

export interface BindFactorPageInput {
  action: string;
  abortAction: string;
  csrfToken: string;
  username: string;
  type: 'otp' | 'otp_sm3';
  factorId: string;
  /** SVG data URI rendered by the server. */
  qrCode: string;
  /** Base32 key, for typing in by hand. */
  secret: string;
  error?: string;
  /** User centre: a plain intro, and a link back instead of cancelling a sign-in. */
  backHref?: string;
}

export function renderBindFactorPage(ctx: PageContext, input: BindFactorPageInput): string {
  const t = portalPhrases[ctx.lang].mfa;
  const grouped = input.secret.replace(/(.{4})/g, '$1 ').trim();
  return layout(
    ctx,
    t.bindTitle,
    html`<h1>${t.bindTitle}</h1>
<p class="muted">${
      input.backHref
        ? `${t.types[input.type]}: ${t.bindIntroSelf}`
        : interpolate(input.type === 'otp' ? t.bindIntro : t.bindIntroSm3, { username: input.username })
    }</p>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
<p class="qr"><img src="${input.qrCode}" alt="${t.qrAlt}" width="200" height="200"></p>
<p class="muted small">${t.secret}: <code data-secret="${input.secret}">${grouped}</code></p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="factorId" value="${input.factorId}">
<label for="code">${t.code}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required autofocus>
<button type="submit" class="primary">${t.confirm}</button>
</form>
${stepExit(ctx, input)}`,
  );
}

export interface AccountMfaSection {
  factors: {
    factorId: string;
    type: string;
    name: string;
    status: 'bound' | 'unbound';
    boundAt: Date | null;
    lastUsedAt: Date | null;
  }[];
  recoveryCodesLeft: number;
  /** The kinds the person may bind. */
  bindTypes: string[];
  bindAction: string;
  unbindAction: string;
  csrfToken: string;
}

/** The user centre's section: my factors, unbind, bind another, recovery codes left. */
export function renderAccountMfaSection(ctx: PageContext, input: AccountMfaSection) {
  const t = portalPhrases[ctx.lang].mfa;
  const when = (date: Date) =>
    date.toLocaleString(ctx.lang === 'zh' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' });
  const bound = input.factors.filter((f) => f.status === 'bound');
  return html`<section id="mfa">
<h2>${t.sectionTitle}</h2>
${
  bound.length
    ? html`<ul class="list">${bound.map(
        (f) => html`<li><span>${t.types[f.type] ?? f.name}<small>${[
          f.boundAt ? interpolate(t.boundAt, { time: when(f.boundAt) }) : null,
          f.lastUsedAt ? interpolate(t.lastUsed, { time: when(f.lastUsedAt) }) : null,
        ]
          .filter(Boolean)
          .join(' · ')}</small></span>
<form method="post" action="${input.unbindAction}"><input type="hidden" name="csrf" value="${input.csrfToken}"><input type="hidden" name="factorId" value="${f.factorId}"><button type="submit" class="link">${t.unbind}</button></form></li>`,
      )}</ul>
<p class="muted small">${interpolate(t.recoveryLeft, { count: input.recoveryCodesLeft })}</p>`
    : html`<p class="muted">${t.noFactors}</p>`
}
${
  input.bindTypes.length
    ? html`<form method="post" action="${input.bindAction}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="bind-type">${t.bindKind}</label>
<select id="bind-type" name="type">${input.bindTypes.map((type) => html`<option value="${type}">${t.types[type] ?? type}</option>`)}</select>
<button type="submit" class="secondary">${t.bind}</button>
</form>`
    : ''
}
</section>`;
}

export interface RecoveryCodesPageInput {
  codes: string[];
  continueAction: string;
}

/** Shown once, right after the first binding. */
export function renderRecoveryCodesPage(ctx: PageContext, input: RecoveryCodesPageInput): string {
  const t = portalPhrases[ctx.lang].mfa;
  return layout(
    ctx,
    t.recoveryTitle,
    html`<h1>${t.recoveryTitle}</h1>
<p class="muted">${t.recoveryIntro}</p>
<ul class="list recovery-codes">${input.codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a class="button primary" href="${input.continueAction}">${t.continue}</a></p>`,
  );
}

export interface SecondFactorPageInput {
  action: string;
  abortAction: string;
  csrfToken: string;
  username: string;
  factors: { factorId: string; type: string; name: string }[];
  error?: string;
  /** The person has a passkey of an allowed kind: assertion options (JSON) for the passkey form. */
  passkey?: { options: string };
  /** The person has UKEY or soft-lock factors of allowed kinds: a fresh challenge for them to sign. */
  signature?: { challenge: string; factors: SignatureFactorView[] };
  /** Codes sent to the person's verified email address or phone, when allowed (code-pages.ts). */
  sentCodes?: SentCodeFactors;
}

export function renderSecondFactorPage(ctx: PageContext, input: SecondFactorPageInput): string {
  const t = portalPhrases[ctx.lang].mfa;
  const abort = cancelSignInForm(ctx, input.abortAction, input.csrfToken);
  const passkey = input.passkey
    ? passkeyForm(ctx, {
        action: input.action,
        csrfToken: input.csrfToken,
        mode: 'get',
        options: input.passkey.options,
        label: portalPhrases[ctx.lang].passkey.use,
        buttonClass: 'primary',
      })
    : '';
  const recovery = html`<details>
<summary>${t.useRecovery}</summary>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="recovery-code">${t.recoveryCode}</label>
<input id="recovery-code" name="recoveryCode" autocomplete="off" maxlength="64" required>
<button type="submit" class="secondary">${t.useRecoverySubmit}</button>
</form>
</details>`;
  const codeFactors = input.factors.filter((f) => f.type === 'otp' || f.type === 'otp_sm3');
  const signature = input.signature?.factors.length
    ? signatureForm(ctx, {
        action: input.action,
        csrfToken: input.csrfToken,
        challenge: input.signature.challenge,
        factors: input.signature.factors,
        buttonClass: input.passkey ? 'secondary' : 'primary',
      })
    : '';
  const sent = input.sentCodes?.channels.length
    ? sentCodeForms(ctx, {
        ...input.sentCodes,
        action: input.action,
        csrfToken: input.csrfToken,
        buttonClass: input.passkey || signature || codeFactors.length ? 'secondary' : 'primary',
      })
    : '';
  if ((input.passkey || signature || sent) && !codeFactors.length) {
    return layout(
      ctx,
      t.challengeTitle,
      html`<h1>${t.challengeTitle}</h1>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
${passkey}
${signature}
${sent}
${recovery}
${abort}`,
    );
  }
  if (!codeFactors.length) {
    return layout(
      ctx,
      t.challengeTitle,
      html`<h1>${t.challengeTitle}</h1>
<p class="alert" role="alert">${t.noFactor}</p>
${abort}`,
    );
  }
  const [only] = codeFactors;
  return layout(
    ctx,
    t.challengeTitle,
    html`<h1>${t.challengeTitle}</h1>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
${passkey}
${signature}
<p class="muted">${interpolate(t.challengeIntro, { username: input.username })}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
${
  codeFactors.length === 1 && only
    ? html`<input type="hidden" name="factorId" value="${only.factorId}">`
    : html`<label for="factor">${t.factor}</label>
<select id="factor" name="factorId">${codeFactors.map(
        (f) => html`<option value="${f.factorId}">${t.types[f.type] ?? f.name}</option>`,
      )}</select>`
}
<label for="code">${t.code}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required autofocus>
<button type="submit" class="${input.passkey || signature || input.sentCodes?.sent ? 'secondary' : 'primary'}">${t.verify}</button>
</form>
${sent ? html`<p class="muted small">${portalPhrases[ctx.lang].codes.factorOr}</p>${sent}` : ''}
${recovery}
${abort}`,
  );
}
