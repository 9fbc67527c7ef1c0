import { interpolate } from '@tessera/contract';
import { credentialFields } from './credential-fields.ts';
import { html, type SafeHtml } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

/**
 * The user centre's Exchange devices: the person's phones per company, the passwords shown to
 * them once, and their own Exchange sign-in where their company's agent uses it. Forms only
 * (no script), each with the CSRF token of the session.
 */

export interface AccountDevice {
  deviceId: string;
  name: string;
  type: string;
  os: string | null;
  activation: 'to_be_activated' | 'active';
  status: 'enabled' | 'disabled';
  online: boolean;
  registeredAt: Date;
  lastLoginAt: Date | null;
  passwordPending: boolean;
}

export interface AccountDevicesSection {
  companies: {
    companyId: string;
    name: string;
    /** Spec §6: `admin` manages their own devices here; `user` leaves it to administrators. */
    permission: 'user' | 'admin';
    devices: AccountDevice[];
    limit: number;
    /** The agent's address (what the phone's server field takes) and the user name to type. */
    server: string;
    username: string;
    /** The company's registration token, for the first sign-in of a new phone. */
    token: string | null;
    /** Personal credential mode: the saved Exchange user name (null: not saved) and where to save it. */
    ownSignIn?: { username: string | null; href: string };
  }[];
  csrfToken: string;
  actions: { reveal: string; newPassword: string; approve: string; status: string; remove: string };
  /** Show each company's name (the person belongs to more than one with an agent). */
  showCompany: boolean;
}

const actionForm = (action: string, csrf: string, deviceId: string, label: string, extra?: SafeHtml) =>
  html`<form method="post" action="${action}"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="deviceId" value="${deviceId}">${extra ?? ''}<button type="submit" class="link">${label}</button></form>`;

function deviceRow(ctx: PageContext, input: AccountDevicesSection, device: AccountDevice, manages: boolean) {
  const t = portalPhrases[ctx.lang].devices;
  const when = (date: Date) =>
    date.toLocaleString(ctx.lang === 'zh' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' });
  const { csrfToken: csrf, actions } = input;
  const state = device.status === 'disabled' ? 'disabled' : device.activation;
  const details = [
    [device.type, device.os].filter(Boolean).join(' · '),
    interpolate(t.registered, { time: when(device.registeredAt) }),
    device.lastLoginAt ? interpolate(t.lastLogin, { time: when(device.lastLoginAt) }) : null,
  ].filter(Boolean);
  return html`<li data-device-id="${device.deviceId}"><span><strong>${device.name}</strong><small>${details.join(' · ')}</small>
<small><span class="tag">${t.status[state] ?? state}</span> ${device.activation === 'active' ? (device.online ? t.online : t.offline) : ''}${
    device.passwordPending ? html` · <strong>${t.passwordWaiting}</strong>` : ''
  }</small></span>
<span class="device-actions">${[
    device.passwordPending ? actionForm(actions.reveal, csrf, device.deviceId, t.showPassword) : '',
    device.activation === 'active' && device.status === 'enabled'
      ? actionForm(actions.newPassword, csrf, device.deviceId, t.newPassword)
      : '',
    manages && device.activation === 'to_be_activated'
      ? actionForm(actions.approve, csrf, device.deviceId, t.approve)
      : '',
    manages
      ? actionForm(
          actions.status,
          csrf,
          device.deviceId,
          device.status === 'enabled' ? t.disable : t.enable,
          html`<input type="hidden" name="status" value="${device.status === 'enabled' ? 'disabled' : 'enabled'}">`,
        )
      : '',
    manages ? actionForm(actions.remove, csrf, device.deviceId, t.remove) : '',
  ]}</span></li>`;
}

/** The section of the account page. */
export function renderAccountDevicesSection(ctx: PageContext, input: AccountDevicesSection) {
  const t = portalPhrases[ctx.lang].devices;
  return html`<section id="devices">
<h2>${t.sectionTitle}</h2>
${input.companies.map((company) => {
  const manages = company.permission === 'admin';
  const setUp = company.token
    ? interpolate(t.setUp, { server: company.server, username: company.username, token: company.token })
    : interpolate(t.setUpNoToken, { server: company.server, username: company.username });
  return html`<div class="device-company" data-company-id="${company.companyId}">
${input.showCompany ? html`<h3>${company.name}</h3>` : ''}
<p class="muted small">${setUp}</p>
${
  company.ownSignIn
    ? html`<p class="small">${t.exchangeSignIn}: ${
        company.ownSignIn.username
          ? interpolate(t.exchangeSignInSaved, { username: company.ownSignIn.username })
          : html`<span class="bad">${t.exchangeSignInMissing}</span>`
      } <a href="${company.ownSignIn.href}">${t.exchangeSignInEdit}</a></p>`
    : ''
}
${
  company.devices.length
    ? html`<ul class="list">${company.devices.map((device) => deviceRow(ctx, input, device, manages))}</ul>`
    : html`<p class="muted">${t.none}</p>`
}
<p class="muted small">${interpolate(t.count, { count: company.devices.length, limit: company.limit })}${
    manages ? '' : html` · ${t.byAdministrator}`
  }</p>
</div>`;
})}
</section>`;
}

/** A device's password, shown once. */
export function renderDevicePasswordPage(
  ctx: PageContext,
  input: { deviceName: string; password: string | null; backHref: string },
): string {
  const t = portalPhrases[ctx.lang].devices;
  const title = interpolate(t.passwordTitle, { device: input.deviceName });
  return layout(
    ctx,
    title,
    html`<h1>${title}</h1>
${
  input.password
    ? html`<p class="muted">${interpolate(t.passwordIntro, { device: input.deviceName })}</p>
<p><code class="secret" data-device-password="${input.password}">${input.password}</code></p>`
    : html`<p class="alert" role="alert">${t.passwordGone}</p>`
}
<p><a href="${input.backHref}">${t.back}</a></p>`,
  );
}

export interface ExchangeSignInPageInput {
  companyName: string;
  action: string;
  deleteAction: string;
  csrfToken: string;
  backHref: string;
  username: string;
  passwordSaved: boolean;
  errors?: { username?: string; password?: string };
}

/** The person's own Exchange user name and password (credential mode `personal`); the password is never shown back. */
export function renderExchangeSignInPage(ctx: PageContext, input: ExchangeSignInPageInput): string {
  const t = portalPhrases[ctx.lang].devices;
  const title = interpolate(t.signInTitle, { company: input.companyName });
  return layout(
    ctx,
    title,
    html`<h1>${title}</h1>
<p class="muted">${interpolate(t.signInIntro, { company: input.companyName })}</p>
<form method="post" action="${input.action}" autocomplete="off">
<input type="hidden" name="csrf" value="${input.csrfToken}">
${credentialFields({ idPrefix: 'exchange', labels: t, username: input.username, passwordSaved: input.passwordSaved, errors: input.errors })}
<button type="submit" class="primary">${t.save}</button>
</form>
${
  input.passwordSaved
    ? html`<form method="post" action="${input.deleteAction}" class="secondary-form">
<input type="hidden" name="csrf" value="${input.csrfToken}">
<button type="submit" class="link">${t.removeSignIn}</button>
</form>`
    : ''
}
<p><a href="${input.backHref}">${t.back}</a></p>`,
  );
}
