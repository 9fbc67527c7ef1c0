import { settings } from '../app/settings.ts';
import { readCookie } from '../i18n/language.ts';

/** Spec §3 app settings: the sidebar's opened flag (cookie) and the device (desktop or mobile). */
export type Device = 'desktop' | 'mobile';

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/** The sidebar is open unless the cookie says 0. */
export const readSidebarOpened = (cookieHeader: string): boolean =>
  readCookie(cookieHeader, settings.sidebarCookie) !== '0';

export const sidebarCookie = (opened: boolean): string =>
  `${settings.sidebarCookie}=${opened ? 1 : 0}; path=/; max-age=${ONE_YEAR_SECONDS}; samesite=lax`;

export const deviceOf = (width: number): Device => (width < settings.mobileWidth ? 'mobile' : 'desktop');

/** Spec §2, §9: below 992 px the sidebar closes by itself. */
export const closesBySelf = (width: number): boolean => width < settings.sidebarCollapseWidth;

/**
 * Whether the sidebar (or, on mobile, the menu drawer) is open at `width`: the drawer starts
 * closed, a narrow window closes the sidebar, otherwise the person's choice from the cookie.
 */
export function initialOpened(width: number, cookieHeader: string): boolean {
  if (deviceOf(width) === 'mobile' || closesBySelf(width)) return false;
  return readSidebarOpened(cookieHeader);
}
