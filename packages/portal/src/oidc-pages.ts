import { interpolate } from '@tessera/contract';
import { renderAutoPostPage } from './app-pages.ts';
import { html } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

/**
 * Pages of the OpenID Connect provider beyond signing in: the consent page of a third-party
 * application, choosing the account, confirming a sign-out that comes without a session, and the
 * page that signs the person out of applications in frames (Front-Channel Logout).
 */

export interface ConsentPageInput {
  action: string;
  csrfToken: string;
  clientName: string;
  /** The company the application belongs to. */
  companyName?: string;
  username: string;
  /** Requested scopes (`openid` is always implied and not listed). */
  scopes: string[];
  /** Claims asked for by name (the `claims` request parameter), beyond the scopes. */
  claims: string[];
}

export function renderConsentPage(ctx: PageContext, input: ConsentPageInput): string {
  const t = portalPhrases[ctx.lang].consent;
  const scopes = input.scopes.filter((scope) => scope !== 'openid');
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p>${interpolate(t.intro, { client: input.clientName, username: input.username })}</p>
${input.companyName ? html`<p class="muted small">${interpolate(t.company, { company: input.companyName })}</p>` : ''}
<ul class="list consent">
<li><span>${t.scopes.openid}</span></li>
${scopes.map((scope) => html`<li><span>${t.scopes[scope] ?? scope}</span></li>`)}
${input.claims.map((claim) => html`<li><span>${interpolate(t.claim, { claim: t.claims[claim] ?? claim })}</span></li>`)}
</ul>
<p class="muted small">${t.remembered}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" name="decision" value="allow" class="primary" autofocus>${t.allow}</button>
<button type="submit" name="decision" value="deny" class="secondary">${t.deny}</button>
</form>`,
  );
}

export interface SelectAccountPageInput {
  action: string;
  csrfToken: string;
  clientName: string;
  username: string;
  name: string | null;
}

/** Someone is signed in and the application asked to choose (`prompt=select_account`). */
export function renderSelectAccountPage(ctx: PageContext, input: SelectAccountPageInput): string {
  const t = portalPhrases[ctx.lang].selectAccount;
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p class="muted">${interpolate(t.intro, { client: input.clientName })}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" name="account" value="current" class="primary account" autofocus>${interpolate(t.continueAs, { username: input.username })}${input.name && input.name !== input.username ? html`<small>${input.name}</small>` : ''}</button>
<button type="submit" name="account" value="other" class="secondary">${t.other}</button>
</form>`,
  );
}

export interface LogoutConfirmPageInput {
  /** oidc-provider's end-session confirmation endpoint and its CSRF token. */
  action: string;
  xsrf: string;
  clientName: string;
  /** The host the browser is sent to afterwards. */
  destination: string;
}

/** A sign-out request without a session and without an ID token: the person decides to go on. */
export function renderLogoutConfirmPage(ctx: PageContext, input: LogoutConfirmPageInput): string {
  const t = portalPhrases[ctx.lang].logout;
  return layout(
    ctx,
    t.doneTitle,
    html`<h1>${t.doneTitle}</h1>
<p>${t.notSignedIn}</p>
<p class="muted">${interpolate(t.returnQuestion, { client: input.clientName, host: input.destination })}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="xsrf" value="${input.xsrf}">
<input type="hidden" name="logout" value="yes">
<button type="submit" class="primary">${interpolate(t.returnTo, { client: input.clientName })}</button>
</form>`,
  );
}

/**
 * A sign-out the application asked for with the ID token of this very session: nothing to ask,
 * the end-session form posts itself (`form-launch.js`; without script, the Continue button).
 */
export function renderAutoLogoutPage(ctx: PageContext, input: { action: string; xsrf: string }): string {
  const t = portalPhrases[ctx.lang].logout;
  return renderAutoPostPage(ctx, {
    title: t.signingOutTitle,
    intro: t.signingOutOfTessera,
    action: input.action,
    fields: [
      { name: 'xsrf', value: input.xsrf },
      { name: 'logout', value: 'yes' },
    ],
  });
}

export interface FrontChannelLogoutPageInput {
  /** Front-channel logout URIs, with `iss` and `sid`. */
  frames: string[];
  applications: string[];
  /** Where the sign-out goes on (the application's post-logout address, or Tessera's page). */
  continueUrl: string;
}

/**
 * Loads each application's front-channel logout URI in a frame, then goes on: `logout-frames.js`
 * creates the frames and continues once they have loaded (at most a few seconds); without
 * script, the frames are in the page and the person continues with the link.
 */
export function renderFrontChannelLogoutPage(ctx: PageContext, input: FrontChannelLogoutPageInput): string {
  const t = portalPhrases[ctx.lang].logout;
  const frame = (src: string) =>
    html`<iframe src="${src}" title="${t.signingOutTitle}" sandbox="allow-same-origin allow-scripts" hidden></iframe>`;
  return layout(
    ctx,
    t.signingOutTitle,
    html`<h1>${t.signingOutTitle}</h1>
<p>${t.signingOut}</p>
<ul class="list">${input.applications.map((name) => html`<li><span>${name}</span></li>`)}</ul>
<div id="logout-frames" data-continue="${input.continueUrl}">${input.frames.map((src) => html`<span data-frame="${src}"></span>`)}</div>
<noscript>${input.frames.map(frame)}</noscript>
<p><a id="logout-continue" class="button primary" href="${input.continueUrl}">${t.continue}</a></p>
<script src="${ctx.assetsBase}/logout-frames.js"></script>`,
  );
}
