import { interpolate } from '@tessera/contract';
import { html, type SafeHtml } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';
import { cancelSignInForm } from './step-parts.ts';

/**
 * One-time codes by email or SMS: the sign-in page's links to them, the page that asks for the
 * person's identifier and the page where the code is typed (login methods `email_code` and
 * `sms_code`), and the second-factor page's part that sends a code to a verified address.
 * Plain forms, without script: pacing is the server's (it names the time of the next code).
 */
export interface CodeLink {
  channel: string;
  href: string;
}

/** The sign-in page's links to signing in with a code (one per channel the company offers). */
export function codeLinks(ctx: PageContext, links: readonly CodeLink[]): SafeHtml | '' {
  if (!links.length) return '';
  const t = portalPhrases[ctx.lang].codes;
  return html`<p class="muted small">${portalPhrases[ctx.lang].passkey.or}</p>
${links.map(
  (link) =>
    html`<p class="code-sign-in"><a class="button secondary" href="${link.href}" data-code-sign-in="${link.channel}">${t.signIn[link.channel] ?? link.channel}</a></p>`,
)}`;
}

/** The form where a sent code is typed, with the hidden fields that go back with it. */
function codeForm(
  ctx: PageContext,
  input: {
    action: string;
    csrfToken: string;
    hidden: Record<string, string>;
    inputId: string;
    submit: string;
  },
): SafeHtml {
  return html`<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
${Object.entries(input.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<label for="${input.inputId}">${portalPhrases[ctx.lang].codes.code}</label>
<input id="${input.inputId}" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" maxlength="8" required autofocus>
<button type="submit" class="primary">${input.submit}</button>
</form>`;
}

interface CodePageCommon {
  channel: string;
  csrfToken: string;
  abortAction: string;
  /** The sign-in form with a password. */
  passwordHref: string;
  error?: string;
}

export interface CodeRequestPageInput extends CodePageCommon {
  /** Where the identifier is posted (the code is sent from there). */
  sendAction: string;
  identifier?: string;
}

/** Signing in with a code, first page: who the person is. */
export function renderCodeRequestPage(ctx: PageContext, input: CodeRequestPageInput): string {
  const t = portalPhrases[ctx.lang].codes;
  const title = t.signIn[input.channel] ?? t.enterTitle;
  return layout(
    ctx,
    title,
    html`<h1>${title}</h1>
<p class="muted">${t.requestIntro[input.channel] ?? ''}</p>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
<form method="post" action="${input.sendAction}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="channel" value="${input.channel}">
<label for="identifier">${portalPhrases[ctx.lang].signIn.identifier}</label>
<input id="identifier" name="identifier" autocomplete="username" required autofocus value="${input.identifier ?? ''}">
<button type="submit" class="primary">${t.send}</button>
</form>
<p class="muted small"><a href="${input.passwordHref}">${t.usePassword}</a></p>
${cancelSignInForm(ctx, input.abortAction, input.csrfToken)}`,
  );
}

export interface CodeEntryPageInput extends CodePageCommon {
  /** Where the code is posted. */
  verifyAction: string;
  /** Where a new code is asked for (the identifier again). */
  sendAction: string;
  identifier: string;
  /** The request the code belongs to (one-time-codes.ts): it goes back with the code. */
  codeId: string;
  minutes: number;
  /** Seconds after sending before a new code may be asked for. */
  resendSeconds: number;
  /** A message that is not an error (a new code was sent). */
  notice?: string;
}

/** Signing in with a code, second page: the code that was sent, and a new one after a minute. */
export function renderCodeEntryPage(ctx: PageContext, input: CodeEntryPageInput): string {
  const t = portalPhrases[ctx.lang].codes;
  return layout(
    ctx,
    t.enterTitle,
    html`<h1>${t.enterTitle}</h1>
<p class="muted" data-code-sent>${interpolate(t.sent[input.channel] ?? '', { identifier: input.identifier, minutes: input.minutes })}</p>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
${codeForm(ctx, {
  action: input.verifyAction,
  csrfToken: input.csrfToken,
  hidden: { channel: input.channel, identifier: input.identifier, codeId: input.codeId },
  inputId: 'code',
  submit: t.submit,
})}
<form method="post" action="${input.sendAction}" class="secondary-form">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="channel" value="${input.channel}">
<input type="hidden" name="identifier" value="${input.identifier}">
<p class="muted small">${interpolate(t.resendAfter, { seconds: input.resendSeconds })}</p>
<button type="submit" class="link" data-resend>${t.resend}</button>
</form>
<p class="muted small"><a href="${input.passwordHref}">${t.usePassword}</a></p>
${cancelSignInForm(ctx, input.abortAction, input.csrfToken)}`,
  );
}

/** The second factor by a code sent to a verified address (SecondFactorPageInput.sentCodes). */
export interface SentCodeFactors {
  /** The verified addresses a code may go to, masked for the page. */
  channels: { channel: string; address: string }[];
  /** A code was sent: its request, typed back with the code. */
  sent?: { codeId: string; channel: string; address: string; minutes: number };
}

/**
 * The second-factor page's part for codes sent by email or SMS: send one (posted to the step's
 * address + `/send`), then type it (posted to the step's address).
 */
export function sentCodeForms(
  ctx: PageContext,
  input: SentCodeFactors & { action: string; csrfToken: string; buttonClass: 'primary' | 'secondary' },
): SafeHtml {
  const t = portalPhrases[ctx.lang].codes;
  const m = portalPhrases[ctx.lang].mfa;
  const entry = input.sent
    ? html`<p class="muted" data-code-sent>${interpolate(t.factorSent, { address: input.sent.address, minutes: input.sent.minutes })}</p>
${codeForm(ctx, {
  action: input.action,
  csrfToken: input.csrfToken,
  hidden: { sentCodeId: input.sent.codeId, sentChannel: input.sent.channel },
  inputId: 'sent-code',
  submit: m.verify,
})}`
    : '';
  const senders = input.channels.map(
    (c) => html`<form method="post" action="${input.action}/send" class="secondary-form">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="hidden" name="sendCode" value="${c.channel}">
<button type="submit" class="${input.sent ? 'link' : input.buttonClass}" data-send-code="${c.channel}">${interpolate(t.sendFactor[c.channel] ?? '', { address: c.address })}</button>
</form>`,
  );
  return html`${entry}${senders}`;
}
