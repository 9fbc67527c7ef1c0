import { SIDEBAR_COLLAPSE_WIDTH_PX } from '@tessera/contract/shell-constants';

/** Console settings (spec §3, §9): the page title suffix and the layout's widths. */
export const settings = {
  /** The document title is the page title, ' - ', then this. */
  title: 'Tessera',
  /** Below this width the sidebar closes by itself (spec §9). */
  sidebarCollapseWidth: SIDEBAR_COLLAPSE_WIDTH_PX,
  /** Below this width the console is in its narrow "device" mode: the menu is a drawer. */
  mobileWidth: 768,
  /** Cookie holding the sidebar state as 1 (open) or 0 (closed). */
  sidebarCookie: 'sidebarStatus',
} as const;

/** "Company settings - Tessera". */
export const documentTitleOf = (pageTitle: string | undefined): string =>
  pageTitle ? `${pageTitle} - ${settings.title}` : settings.title;
