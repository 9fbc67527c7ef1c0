import { interpolate, type Language, type MemberRole, serverPhrases } from '@tessera/contract';
import { type CodeLink, codeLinks } from './code-pages.ts';
import { type AccountDevicesSection, renderAccountDevicesSection } from './device-pages.ts';
import { html, type SafeHtml, trusted } from './html.ts';
import { type AccountMfaSection, renderAccountMfaSection } from './mfa-pages.ts';
import { type PortalNavInput, portalNav } from './nav.ts';
import { passkeyForm } from './passkey-pages.ts';
import { portalPhrases } from './phrases/index.ts';
import { profilePhrases } from './phrases/profile.ts';
import { verifiedBadge } from './profile-pages.ts';
import {
  type AccountBindingsSection,
  renderAccountBindingsSection,
  type ScanButton,
  scanButtons,
} from './scan-pages.ts';
import { cancelSignInForm } from './step-parts.ts';
import { homeRealmScript, type UpstreamButton, upstreamButtons } from './upstream-pages.ts';

export interface PageContext {
  lang: Language;
  /** URL of the current page, used for the language switch link. */
  currentUrl: string;
  /** Path prefix under which the portal's stylesheet is served. */
  assetsBase: string;
  /**
   * The brand of the company the sign-in is for (its logo, title, stylesheet with the primary
   * colour and background, bottom info bar); absent: the platform's own look.
   */
  brand?: PageBrand;
}

export interface PageBrand {
  title: string;
  logoUrl: string | null;
  stylesheetUrl: string;
  /**
   * The brand's stylesheet written into the page instead of linked: the console's preview of
   * values not saved yet (the console's policy allows inline style; the sign-in pages' does not).
   */
  inlineStylesheet?: string;
  footer: { text: string; link: string | null } | null;
}

const brandStylesheet = (brand: PageBrand) =>
  brand.inlineStylesheet !== undefined
    ? html`<style>${trusted(brand.inlineStylesheet.replace(/</g, '\\3c '))}</style>`
    : html`<link rel="stylesheet" href="${brand.stylesheetUrl}">`;

export function layout(
  ctx: PageContext,
  title: string,
  body: SafeHtml,
  options: { wide?: boolean } = {},
): string {
  const t = portalPhrases[ctx.lang];
  const switchUrl = new URL(ctx.currentUrl, 'http://x');
  switchUrl.searchParams.set('lang', t.language.switchCode);
  return html`<!doctype html>
<html lang="${ctx.lang === 'zh' ? 'zh-CN' : 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · ${t.productName}</title>
<link rel="stylesheet" href="${ctx.assetsBase}/styles.css">
${ctx.brand ? brandStylesheet(ctx.brand) : ''}
</head>
<body${ctx.brand ? html` class="branded"` : ''}>
<main class="card${options.wide ? ' wide' : ''}">
<header class="brand">${
    ctx.brand
      ? html`${ctx.brand.logoUrl ? html`<img class="brand-logo" src="${ctx.brand.logoUrl}" alt="" width="36" height="36">` : html`<span class="logo" aria-hidden="true"></span>`}<div><strong>${ctx.brand.title}</strong><small>${t.productName}</small></div>`
      : html`<span class="logo" aria-hidden="true"></span><div><strong>${t.productName}</strong><small>${t.tagline}</small></div>`
  }
<a class="lang" href="${switchUrl.pathname + switchUrl.search}">${t.language.switchTo}</a></header>
${body}
</main>
${
  ctx.brand?.footer
    ? html`<footer class="info-bar">${
        ctx.brand.footer.link
          ? html`<a href="${ctx.brand.footer.link}" target="_blank" rel="noopener noreferrer">${ctx.brand.footer.text}</a>`
          : ctx.brand.footer.text
      }</footer>`
    : ''
}
</body>
</html>`.value;
}

export interface SignInPageInput {
  action: string;
  abortAction: string;
  csrfToken: string;
  clientName: string;
  identifier?: string;
  /** Already localised message shown above the form. */
  error?: string;
  /** Sign in with a passkey instead (shown when a company allows it; passkey-pages.ts). */
  passkey?: { action: string; options: string };
  /** Scan sign-in of the company's enabled DingTalk, WeChat and WeCom sources (scan-pages.ts). */
  scan?: ScanButton[];
  /** The company's upstream identity providers (OpenID Connect, SAML; upstream-pages.ts). */
  upstream?: UpstreamButton[];
  /** Email domains whose people sign in upstream (home-realm discovery): the password is not asked for them. */
  upstreamDomains?: string[];
  /** Sign in with a code by email or SMS instead (the company's login methods; code-pages.ts). */
  codes?: CodeLink[];
  /** The user centre's address, shown where the sign-in is not already on the way there. */
  userCentreHref?: string;
  /** "Forgot password?" (reset-pages.ts), where the company allows self-service reset. */
  forgotPasswordHref?: string;
  /** Already localised confirmation shown above the form (after a password reset). */
  notice?: string;
}

export function renderSignInPage(ctx: PageContext, input: SignInPageInput): string {
  const t = portalPhrases[ctx.lang].signIn;
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p class="muted">${interpolate(t.subtitle, { client: input.clientName })}</p>
${input.notice ? html`<p class="ok" role="status">${input.notice}</p>` : ''}
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
<form method="post" action="${input.action}" autocomplete="on"${input.upstreamDomains?.length ? html` data-upstream-domains="${input.upstreamDomains.join(' ')}"` : ''}>
<input type="hidden" name="csrf" value="${input.csrfToken}">
<label for="identifier">${t.identifier}</label>
<input id="identifier" name="identifier" autocomplete="username" required autofocus value="${input.identifier ?? ''}">
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password"${input.upstreamDomains?.length ? '' : ' required'}>
<button type="submit" class="primary">${t.submit}</button>
</form>
${input.forgotPasswordHref ? html`<p class="muted small forgot-password"><a href="${input.forgotPasswordHref}">${portalPhrases[ctx.lang].forgotPassword.link}</a></p>` : ''}
${
  input.passkey
    ? html`<p class="muted small">${portalPhrases[ctx.lang].passkey.or}</p>
${passkeyForm(ctx, {
  action: input.passkey.action,
  csrfToken: input.csrfToken,
  mode: 'get',
  options: input.passkey.options,
  label: portalPhrases[ctx.lang].passkey.signIn,
})}`
    : ''
}
${codeLinks(ctx, input.codes ?? [])}
${scanButtons(ctx, input.scan ?? [], input.csrfToken)}
${upstreamButtons(ctx, input.upstream ?? [], input.csrfToken)}
${homeRealmScript(ctx, input.upstreamDomains ?? [])}
${cancelSignInForm(ctx, input.abortAction, input.csrfToken)}
${input.userCentreHref ? html`<p class="user-centre-link small"><a href="${input.userCentreHref}">${t.userCentre}</a></p>` : ''}`,
  );
}

export interface SignInLinkPageInput {
  action: string;
  csrfToken: string;
  username: string;
  companyName: string;
}

/** Confirmation of a sign-in link: only the POST of this form uses the link (mail scanners fetch links). */
export function renderSignInLinkPage(ctx: PageContext, input: SignInLinkPageInput): string {
  const t = portalPhrases[ctx.lang].signInLink;
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p>${interpolate(t.intro, { username: input.username, company: input.companyName })}</p>
<p class="muted">${t.hint}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" class="primary">${t.submit}</button>
</form>`,
  );
}

export interface ChangePasswordPageInput {
  action: string;
  abortAction: string;
  csrfToken: string;
  username: string;
  /** Already localised message shown above the form. */
  error?: string;
  /** The password is older than the company's change cycle (password_expired step). */
  expired?: boolean;
}

/** The forced password change of the sign-in pipeline (and the change of an expired password). */
export function renderChangePasswordPage(ctx: PageContext, input: ChangePasswordPageInput): string {
  const t = portalPhrases[ctx.lang].changePassword;
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p class="muted">${interpolate(input.expired ? t.expiredIntro : t.intro, { username: input.username })}</p>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<input type="text" name="username" autocomplete="username" value="${input.username}" hidden>
<label for="new-password">${t.newPassword}</label>
<input id="new-password" name="newPassword" type="password" autocomplete="new-password" required autofocus>
<label for="confirm-password">${t.confirm}</label>
<input id="confirm-password" name="confirmPassword" type="password" autocomplete="new-password" required>
<button type="submit" class="primary">${t.submit}</button>
</form>
${cancelSignInForm(ctx, input.abortAction, input.csrfToken)}`,
  );
}

export function renderErrorPage(ctx: PageContext, input: { message: string; details?: string }): string {
  const t = portalPhrases[ctx.lang].error;
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p class="alert" role="alert">${input.message}</p>
${input.details ? html`<p class="muted small">${input.details}</p>` : ''}
<p class="muted">${t.back}</p>`,
  );
}

/** `form` is oidc-provider's hidden logout form (it carries its own CSRF token). */
export function renderLogoutPage(ctx: PageContext, input: { form: string }): string {
  const t = portalPhrases[ctx.lang].logout;
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p>${t.question}</p>
${trusted(input.form)}
<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout" class="primary">${t.confirm}</button>
<button type="submit" form="op.logoutForm" class="secondary">${t.stay}</button>`,
  );
}

export function renderLoggedOutPage(ctx: PageContext, input: { clientName?: string }): string {
  const t = portalPhrases[ctx.lang].logout;
  return layout(
    ctx,
    t.doneTitle,
    html`<h1>${t.doneTitle}</h1>
<p>${input.clientName ? interpolate(t.doneWithClient, { client: input.clientName }) : t.done}</p>`,
  );
}

export interface AccountPageInput {
  account: {
    username: string;
    name: string | null;
    email: string | null;
    phone: string | null;
    /** Whether the person proved each address theirs (absent: not shown). */
    emailVerified?: boolean;
    phoneVerified?: boolean;
  };
  /** The page where the person edits their own details (profile-pages.ts). */
  profileHref?: string;
  companies: { companyId: string; name: string; role: MemberRole }[];
  currentCompanyId: string | null;
  signIns: {
    at: Date;
    result: 'success' | 'failure';
    cause: string | null;
    ip: string | null;
    application: string | null;
  }[];
  logoutAction: string;
  csrfToken: string;
  /** Second factors (modules/mfa), when the server offers them. */
  mfa?: AccountMfaSection;
  /** Exchange devices (modules/exchange), when the person has any or a company of theirs runs the agent. */
  devices?: AccountDevicesSection;
  /** Third-party accounts bound for scan sign-in (modules/identity-source). */
  bindings?: AccountBindingsSection;
  /** The own password change page (absent for an account without a password yet). */
  passwordHref?: string;
  /** Already localised confirmation shown under the title (for example after a password change). */
  notice?: string;
  /** The user centre's navigation (my account, my apps). */
  nav?: Omit<PortalNavInput, 'current'>;
}

/** The user centre: the signed-in person's own profile, companies and recent sign-ins. */
export function renderAccountPage(ctx: PageContext, input: AccountPageInput): string {
  const t = portalPhrases[ctx.lang].account;
  // The same wording as the administrators' sign-in log.
  const causes: Record<string, string> = serverPhrases[ctx.lang].loginCauses;
  const clientNames = portalPhrases[ctx.lang].clients;
  const when = (date: Date) =>
    date.toLocaleString(ctx.lang === 'zh' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' });
  const value = (text: string | null) => (text ? text : html`<span class="muted-inline">${t.notSet}</span>`);
  return layout(
    ctx,
    t.title,
    html`${input.nav ? portalNav(ctx, { ...input.nav, current: 'account' }) : ''}
<h1>${t.title}</h1>
${input.notice ? html`<p class="ok" role="status">${input.notice}</p>` : ''}
<section>
<h2>${t.profile}</h2>
<dl class="fields">
<dt>${t.username}</dt><dd>${input.account.username}</dd>
<dt>${t.name}</dt><dd>${value(input.account.name)}</dd>
<dt>${t.email}</dt><dd>${value(input.account.email)}${input.account.email && input.account.emailVerified !== undefined ? verifiedBadge(ctx, input.account.emailVerified) : ''}</dd>
<dt>${t.phone}</dt><dd>${value(input.account.phone)}${input.account.phone && input.account.phoneVerified !== undefined ? verifiedBadge(ctx, input.account.phoneVerified) : ''}</dd>
</dl>
${input.profileHref ? html`<p><a href="${input.profileHref}">${profilePhrases[ctx.lang].link}</a></p>` : ''}
${input.passwordHref ? html`<p><a href="${input.passwordHref}">${portalPhrases[ctx.lang].ownPassword.link}</a></p>` : ''}
</section>
<section>
<h2>${t.companies}</h2>
${
  input.companies.length
    ? html`<ul class="list">${input.companies.map(
        (c) =>
          html`<li><span>${c.name}${c.companyId === input.currentCompanyId ? html` <span class="tag">${t.current}</span>` : ''}</span><small>${t.roles[c.role]}</small></li>`,
      )}</ul>`
    : html`<p class="muted">${t.noCompanies}</p>`
}
</section>
${input.mfa ? renderAccountMfaSection(ctx, input.mfa) : ''}
${input.devices?.companies.length ? renderAccountDevicesSection(ctx, input.devices) : ''}
${input.bindings ? renderAccountBindingsSection(ctx, input.bindings) : ''}
<section>
<h2>${t.recentSignIns}</h2>
${
  input.signIns.length
    ? html`<ul class="list">${input.signIns.map(
        (e) =>
          html`<li><span>${when(e.at)}<small>${[e.application ? (clientNames[e.application] ?? e.application) : null, e.ip].filter(Boolean).join(' · ')}</small></span><span class="${e.result === 'success' ? 'ok' : 'bad'}">${
            e.result === 'success' ? t.success : (causes[e.cause ?? ''] ?? t.failure)
          }</span></li>`,
      )}</ul>`
    : html`<p class="muted">${t.noSignIns}</p>`
}
</section>
<form method="post" action="${input.logoutAction}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" class="secondary">${t.signOut}</button>
</form>`,
    { wide: true },
  );
}
