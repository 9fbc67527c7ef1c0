import { interpolate } from '@tessera/contract';
import { html, type SafeHtml } from './html.ts';
import type { PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

/** A scan sign-in the sign-in page offers: a button that starts it (a POST with the page's CSRF token). */
export interface ScanButton {
  action: string;
  /** dingtalk, weixin or work_weixin. */
  type: string;
  /** The source's name, as the company called it. */
  name: string;
}

/** The sign-in page's scan buttons, one per enabled source of the company the sign-in is for. */
export function scanButtons(ctx: PageContext, buttons: ScanButton[], csrfToken: string): SafeHtml {
  if (!buttons.length) return html``;
  const t = portalPhrases[ctx.lang].scan;
  return html`<p class="muted small">${t.or}</p>
<div class="scan-buttons">${buttons.map(
    (button) => html`<form method="post" action="${button.action}">
<input type="hidden" name="csrf" value="${csrfToken}">
<button type="submit" class="secondary scan scan-${button.type}">${t.providers[button.type] ?? button.type}<small>${button.name}</small></button>
</form>`,
  )}</div>`;
}

export interface AccountBinding {
  sourceId: string;
  type: string;
  sourceName: string;
  companyName: string;
  /** The bound account's name at the provider, when bound. */
  bound: { name: string | null } | null;
}

export interface AccountBindingsSection {
  bindings: AccountBinding[];
  bindAction: string;
  unbindAction: string;
  csrfToken: string;
}

/** The user centre's third-party accounts: bind to sign in by scanning, unbind. */
export function renderAccountBindingsSection(ctx: PageContext, input: AccountBindingsSection): SafeHtml {
  const t = portalPhrases[ctx.lang].scan;
  return html`<section id="bindings">
<h2>${t.sectionTitle}</h2>
${
  input.bindings.length
    ? html`<p class="muted small">${t.sectionIntro}</p>
<ul class="list">${input.bindings.map(
        (b) => html`<li><span>${t.providers[b.type] ?? b.type}<small>${interpolate(t.sourceOf, {
          source: b.sourceName,
          company: b.companyName,
        })} · ${b.bound ? (b.bound.name ? interpolate(t.bound, { name: b.bound.name }) : t.boundNoName) : t.notBound}</small></span>
<form method="post" action="${b.bound ? input.unbindAction : input.bindAction}"><input type="hidden" name="csrf" value="${input.csrfToken}"><input type="hidden" name="sourceId" value="${b.sourceId}"><button type="submit" class="link">${b.bound ? t.unbind : t.bind}</button></form></li>`,
      )}</ul>`
    : html`<p class="muted">${t.none}</p>`
}
</section>`;
}
