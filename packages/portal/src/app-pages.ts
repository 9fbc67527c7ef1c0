import { interpolate } from '@tessera/contract';
import { credentialFields } from './credential-fields.ts';
import { html } from './html.ts';
import { type PortalNavInput, portalNav } from './nav.ts';
import { layout, type PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

/**
 * The user centre's applications: "my apps", the page that opens a form-fill app, the page that
 * signs in to it (an auto-submitting form; the pages' CSP allows no inline script, so
 * `form-launch.js` submits it, and without script the visible Continue button does), and the
 * form-fill sign-in details a person saves for an app.
 */

export interface MyAppsPageInput {
  nav: Omit<PortalNavInput, 'current'>;
  apps: {
    appId: string;
    name: string;
    description: string | null;
    companyName: string;
    /** Address of the logo image, or null (the first letter of the name is shown). */
    logo: string | null;
    /** Launch address: a link (OIDC apps) or a form posted with the CSRF token (form-fill apps). */
    launch: { method: 'get' | 'post'; href: string };
    /** Where the person saves their own sign-in details (form-fill apps of mode user). */
    detailsHref?: string;
  }[];
  csrfToken: string;
  /** Show each app's company (the person belongs to more than one company). */
  showCompany: boolean;
  /** Already localised confirmation shown under the title. */
  notice?: string;
}

export function renderMyAppsPage(ctx: PageContext, input: MyAppsPageInput): string {
  const t = portalPhrases[ctx.lang].apps;
  return layout(
    ctx,
    t.title,
    html`${portalNav(ctx, { ...input.nav, current: 'apps' })}
<h1>${t.title}</h1>
<p class="muted">${t.intro}</p>
${input.notice ? html`<p class="ok" role="status">${input.notice}</p>` : ''}
${
  input.apps.length
    ? html`<ul class="apps">${input.apps.map(
        (app) => html`<li data-app-id="${app.appId}">
${app.logo ? html`<img class="app-logo" src="${app.logo}" alt="">` : html`<span class="app-logo" aria-hidden="true">${[...app.name][0]?.toUpperCase() ?? ''}</span>`}
<span class="app-name"><strong>${app.name}</strong>${
          input.showCompany ? html`<small>${app.companyName}</small>` : ''
        }${app.description ? html`<small>${app.description}</small>` : ''}${
          app.detailsHref ? html`<small><a href="${app.detailsHref}">${t.details}</a></small>` : ''
        }</span>
${
  app.launch.method === 'get'
    ? html`<a class="button primary" href="${app.launch.href}">${t.open}</a>`
    : html`<form method="post" action="${app.launch.href}"><input type="hidden" name="csrf" value="${input.csrfToken}"><button type="submit" class="primary">${t.open}</button></form>`
}
</li>`,
      )}</ul>`
    : html`<p class="muted">${t.none}</p>`
}`,
    { wide: true },
  );
}

export interface AppOpenPageInput {
  appName: string;
  /** The launch address (POST with the CSRF token). */
  action: string;
  csrfToken: string;
  backHref: string;
  detailsHref?: string;
  notice?: string;
}

/** Opening a form-fill app from a link: a button that posts the launch (the sign-in form carries a password). */
export function renderAppOpenPage(ctx: PageContext, input: AppOpenPageInput): string {
  const t = portalPhrases[ctx.lang].apps;
  const title = interpolate(t.openTitle, { app: input.appName });
  return layout(
    ctx,
    title,
    html`<h1>${title}</h1>
${input.notice ? html`<p class="ok" role="status">${input.notice}</p>` : ''}
<p class="muted">${interpolate(t.openIntro, { app: input.appName })}</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" class="primary" autofocus>${t.open}</button>
</form>
${input.detailsHref ? html`<p><a href="${input.detailsHref}">${t.details}</a></p>` : ''}
<p><a href="${input.backHref}">${t.back}</a></p>`,
  );
}

export interface FormLaunchPageInput {
  appName: string;
  /** The app's own sign-in address, where the form posts. */
  action: string;
  fields: { name: string; value: string }[];
}

/**
 * Signs in to a form-fill app: the app's login form with the person's details, submitted by
 * `form-launch.js` at once (or by the Continue button without script). Sent with no-store and
 * no-referrer, with a CSP whose form-action is the app's sign-in origin.
 */
export function renderFormLaunchPage(ctx: PageContext, input: FormLaunchPageInput): string {
  const t = portalPhrases[ctx.lang].apps;
  return renderAutoPostPage(ctx, {
    title: interpolate(t.launchTitle, { app: input.appName }),
    intro: interpolate(t.launchIntro, { app: input.appName }),
    action: input.action,
    fields: input.fields,
  });
}

/**
 * A form of hidden fields posted to another site at once (a form-fill sign-in, a SAML message
 * over HTTP-POST): `form-launch.js` submits it, the visible Continue button does without script.
 */
export function renderAutoPostPage(
  ctx: PageContext,
  input: { title: string; intro: string; action: string; fields: { name: string; value: string }[] },
): string {
  return layout(
    ctx,
    input.title,
    html`<h1>${input.title}</h1>
<p class="muted">${input.intro}</p>
<form method="post" action="${input.action}" accept-charset="utf-8" autocomplete="off" data-auto-submit>
${input.fields.map((field) => html`<input type="hidden" name="${field.name}" value="${field.value}">`)}
<button type="submit" class="primary">${portalPhrases[ctx.lang].apps.continue}</button>
</form>
<script src="${ctx.assetsBase}/form-launch.js" defer></script>`,
  );
}

export interface AppCredentialsPageInput {
  appName: string;
  action: string;
  deleteAction: string;
  csrfToken: string;
  backHref: string;
  /** The stored user name (or the one just typed when the form is shown again). */
  username: string;
  /** A password is stored: leaving the field empty keeps it. */
  passwordSaved: boolean;
  /** Already localised messages per field. */
  errors?: { username?: string; password?: string };
  notice?: string;
  /** Also open the app after saving (the person came from launching it). */
  thenOpen?: boolean;
}

/** A person's own user name and password for a form-fill app; the password is never shown back. */
export function renderAppCredentialsPage(ctx: PageContext, input: AppCredentialsPageInput): string {
  const t = portalPhrases[ctx.lang].apps;
  const title = interpolate(t.credentialsTitle, { app: input.appName });
  return layout(
    ctx,
    title,
    html`<h1>${title}</h1>
${input.notice ? html`<p class="ok" role="status">${input.notice}</p>` : ''}
<p class="muted">${interpolate(t.credentialsIntro, { app: input.appName })}</p>
<form method="post" action="${input.action}" autocomplete="off">
<input type="hidden" name="csrf" value="${input.csrfToken}">
${input.thenOpen ? html`<input type="hidden" name="next" value="open">` : ''}
${credentialFields({ idPrefix: 'app', labels: t, username: input.username, passwordSaved: input.passwordSaved, errors: input.errors })}
<button type="submit" class="primary">${input.thenOpen ? t.saveAndOpen : t.save}</button>
</form>
${
  input.passwordSaved
    ? html`<form method="post" action="${input.deleteAction}" class="secondary-form">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" class="link">${t.remove}</button>
</form>`
    : ''
}
<p><a href="${input.backHref}">${t.back}</a></p>`,
  );
}

/** A refusal or problem with an app (no access, not found, not set up), with the way back. */
export function renderAppProblemPage(
  ctx: PageContext,
  input: { title: string; message: string; backHref: string; appName?: string },
): string {
  const t = portalPhrases[ctx.lang].apps;
  return layout(
    ctx,
    input.title,
    html`<h1>${input.title}</h1>
${input.appName ? html`<p class="muted">${input.appName}</p>` : ''}
<p class="alert" role="alert">${input.message}</p>
<p><a href="${input.backHref}">${t.back}</a></p>`,
  );
}
