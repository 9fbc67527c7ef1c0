import { useSyncExternalStore } from 'react';

/** antd's breakpoints (px): the layout switches where antd's grid does. */
export const breakpoints = { sm: 576, md: 768, lg: 992 } as const;

/**
 * Whether the window is at least `px` wide, following resizes (matchMedia; without antd's grid
 * module, which the first screen does not otherwise need).
 */
export function useMinWidth(px: number): boolean {
  const query = `(min-width: ${px}px)`;
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    () => window.matchMedia(query).matches,
    () => true,
  );
}
