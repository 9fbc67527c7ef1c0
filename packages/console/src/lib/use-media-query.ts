import { useSyncExternalStore } from 'react';

/**
 * Whether the CSS media `query` matches, following changes (matchMedia). `fallback` is the
 * answer where there is no window to ask.
 */
export function useMediaQuery(query: string, fallback: boolean): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    () => window.matchMedia(query).matches,
    () => fallback,
  );
}

/**
 * Whether the person has asked their system for less motion (an accessibility setting: motion
 * can make people with vestibular disorders unwell). The console then opens and closes its
 * dialogs, menus and messages without animating them.
 */
export const usePrefersReducedMotion = (): boolean =>
  useMediaQuery('(prefers-reduced-motion: reduce)', false);
