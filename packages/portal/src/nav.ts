import { html, type SafeHtml } from './html.ts';
import type { PageContext } from './pages.ts';
import { portalPhrases } from './phrases/index.ts';

export interface PortalNavInput {
  accountHref: string;
  appsHref: string;
  current: 'account' | 'apps';
}

/** The user centre's navigation between "my account" and "my apps". */
export function portalNav(ctx: PageContext, input: PortalNavInput): SafeHtml {
  const t = portalPhrases[ctx.lang].apps;
  const item = (href: string, label: string, current: boolean) =>
    current ? html`<a href="${href}" aria-current="page">${label}</a>` : html`<a href="${href}">${label}</a>`;
  return html`<nav class="tabs">${item(input.accountHref, t.navAccount, input.current === 'account')}${item(
    input.appsHref,
    t.navApps,
    input.current === 'apps',
  )}</nav>`;
}
