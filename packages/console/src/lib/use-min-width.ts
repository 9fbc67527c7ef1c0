import { useMediaQuery } from './use-media-query.ts';

/** antd's breakpoints (px): the layout switches where antd's grid does. */
export const breakpoints = { sm: 576, md: 768, lg: 992 } as const;

/**
 * Whether the window is at least `px` wide, following resizes (matchMedia; without antd's grid
 * module, which the first screen does not otherwise need).
 */
export const useMinWidth = (px: number): boolean => useMediaQuery(`(min-width: ${px}px)`, true);
