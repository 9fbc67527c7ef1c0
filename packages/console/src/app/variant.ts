import type { ConsoleVariant } from '@tessera/contract/shell-constants';

/** Spec §1: the prefix /admin selects the admin variant; any other prefix the developer one. */
export function variantOf(pathname: string): ConsoleVariant {
  const first = pathname.split('/')[1];
  return first === 'admin' ? 'admin' : 'dev';
}

export const basenameOf = (variant: ConsoleVariant): string => `/${variant}`;

/** True when the page is under the prefix the router is mounted on. */
export const isUnderBasename = (pathname: string, basename: string): boolean =>
  pathname === basename || pathname.startsWith(`${basename}/`);
