import { interpolate } from '@tessera/contract';
import { html, type SafeHtml } from './html.ts';
import { layout, type PageContext } from './pages.ts';
import { profilePhrases } from './phrases/profile.ts';

export type ProfileField = 'name' | 'email' | 'phone';
export type AddressChannel = 'email' | 'sms';

export interface ProfilePageInput {
  /** Where each form posts. */
  actions: { names: string; photo: string; address: string };
  backHref: string;
  csrfToken: string;
  account: {
    name: string | null;
    nickname: string | null;
    photoUrl: string | null;
    email: string | null;
    phone: string | null;
    emailVerified: boolean;
    phoneVerified: boolean;
  };
  /** The person's directory and the fields it owns (they are shown, not editable). */
  directory?: { source: string; fields: ProfileField[] };
  /** Whether codes can go to each channel on this server. */
  channels: { email: boolean; sms: boolean };
  /** Already localised messages. */
  notice?: string;
  error?: string;
  /** What the person typed in the address forms, shown again with an error. */
  typed?: { email?: string; phone?: string };
}

/** "Verified" or "not verified", as the account page and this page show it next to an address. */
export function verifiedBadge(ctx: PageContext, verified: boolean): SafeHtml {
  const t = profilePhrases[ctx.lang];
  return verified
    ? html` <span class="ok" data-verified="yes">${t.verified}</span>`
    : html` <span class="bad" data-verified="no">${t.notVerified}</span>`;
}

const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;

/** One address (email or phone): its value and mark, the verify button and the change form. */
function addressSection(ctx: PageContext, input: ProfilePageInput, channel: AddressChannel): SafeHtml {
  const t = profilePhrases[ctx.lang];
  const field = channel === 'email' ? 'email' : 'phone';
  const current = input.account[field];
  const verified = channel === 'email' ? input.account.emailVerified : input.account.phoneVerified;
  const managedByDirectory = input.directory?.fields.includes(field) ?? false;
  const available = input.channels[channel];
  const csrf = hidden('csrf', input.csrfToken);
  const verifyForm =
    current && !verified && available
      ? html`<form method="post" action="${input.actions.address}" class="secondary-form">
${csrf}${hidden('channel', channel)}${hidden('intent', 'verify')}
<button type="submit" class="secondary">${t.verify}</button>
</form>`
      : '';
  const label = current
    ? channel === 'email'
      ? t.newEmail
      : t.newPhone
    : channel === 'email'
      ? t.addEmail
      : t.addPhone;
  const changeForm =
    !managedByDirectory && available
      ? html`<form method="post" action="${input.actions.address}">
${csrf}${hidden('channel', channel)}${hidden('intent', 'change')}
<label for="new-${field}">${label}</label>
<input id="new-${field}" name="address" ${channel === 'email' ? html`type="email" autocomplete="email" maxlength="254"` : html`type="tel" autocomplete="tel" maxlength="30"`} required value="${input.typed?.[field] ?? ''}">
<button type="submit" class="primary">${t.change}</button>
<p class="muted small">${t.changeHint}</p>
</form>`
      : '';
  return html`<section id="${field}">
<h2>${channel === 'email' ? t.email : t.phone}</h2>
<p>${current ?? html`<span class="muted-inline">${t.notSet}</span>`}${current ? verifiedBadge(ctx, verified) : ''}</p>
${available ? '' : html`<p class="muted small">${channel === 'email' ? t.mailOff : t.smsOff}</p>`}
${verifyForm}
${changeForm}
</section>`;
}

/** "name, email and phone" in the page's language. */
const listOf = (items: string[], t: { comma: string; and: string }) =>
  items.length > 1 ? `${items.slice(0, -1).join(t.comma)}${t.and}${items.at(-1)}` : (items[0] ?? '');

/** The person's own details in the user centre. */
export function renderProfilePage(ctx: PageContext, input: ProfilePageInput): string {
  const t = profilePhrases[ctx.lang];
  const owned = input.directory?.fields ?? [];
  const nameOwned = owned.includes('name');
  const csrf = hidden('csrf', input.csrfToken);
  return layout(
    ctx,
    t.title,
    html`<h1>${t.title}</h1>
<p class="muted">${t.intro}</p>
${input.notice ? html`<p class="ok" role="status">${input.notice}</p>` : ''}
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
${
  input.directory && owned.length
    ? html`<p class="muted" data-directory-fields="${owned.join(' ')}">${interpolate(t.directory, {
        source: input.directory.source,
        fields: listOf(
          owned.map((f) => t.fields[f]),
          t,
        ),
      })}</p>`
    : ''
}
<section id="names">
<h2>${t.names}</h2>
<form method="post" action="${input.actions.names}">
${csrf}
<label for="name">${t.name}</label>
<input id="name" name="name" maxlength="64" autocomplete="name" value="${input.account.name ?? ''}"${nameOwned ? html` readonly aria-readonly="true"` : ''}>
<label for="nickname">${t.nickname}</label>
<input id="nickname" name="nickname" maxlength="64" autocomplete="nickname" value="${input.account.nickname ?? ''}">
<button type="submit" class="primary">${t.save}</button>
</form>
</section>
<section id="photo">
<h2>${t.photo}</h2>
${input.account.photoUrl ? html`<p><img src="${input.account.photoUrl}" alt="" width="64" height="64"></p>` : html`<p class="muted">${t.noPhoto}</p>`}
<form method="post" action="${input.actions.photo}" enctype="multipart/form-data">
${csrf}
<label for="photo-file">${t.photoFile}</label>
<input id="photo-file" name="photo" type="file" accept="image/png,image/jpeg,image/gif,image/webp" required>
<button type="submit" class="secondary">${t.upload}</button>
</form>
</section>
${addressSection(ctx, input, 'email')}
${addressSection(ctx, input, 'sms')}
<p><a href="${input.backHref}">${t.back}</a></p>`,
    { wide: true },
  );
}

export interface AddressCodePageInput {
  action: string;
  /** The start form again, to ask for a new code. */
  resendAction: string;
  cancelHref: string;
  csrfToken: string;
  /** The sealed request the code belongs to (server-side binding of the code to this page). */
  request: string;
  channel: AddressChannel;
  intent: 'verify' | 'change';
  address: string;
  minutes: number;
  error?: string;
}

/** The code sent to an address: the person types it to prove the address theirs. */
export function renderAddressCodePage(ctx: PageContext, input: AddressCodePageInput): string {
  const t = profilePhrases[ctx.lang];
  const field = input.channel === 'email' ? t.fields.email : t.fields.phone;
  return layout(
    ctx,
    t.code.title,
    html`<h1>${t.code.title}</h1>
<p>${interpolate(input.channel === 'email' ? t.code.sentEmail : t.code.sentSms, { address: input.address })}</p>
<p class="muted">${interpolate(t.code.validity, { minutes: input.minutes })}${
      input.intent === 'change'
        ? html` ${interpolate(t.code.changeNote, { field, address: input.address })}`
        : ''
    }</p>
${input.error ? html`<p class="alert" role="alert">${input.error}</p>` : ''}
<form method="post" action="${input.action}">
${hidden('csrf', input.csrfToken)}${hidden('request', input.request)}
<label for="code">${t.code.label}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus>
<button type="submit" class="primary">${t.code.submit}</button>
</form>
<form method="post" action="${input.resendAction}" class="secondary-form">
${hidden('csrf', input.csrfToken)}${hidden('channel', input.channel)}${hidden('intent', input.intent)}${
  input.intent === 'change' ? hidden('address', input.address) : ''
}
<button type="submit" class="link">${t.code.resend}</button>
</form>
<p><a href="${input.cancelHref}">${t.code.cancel}</a></p>`,
  );
}
