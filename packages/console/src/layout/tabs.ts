import type { ParseKeys } from 'i18next';

/** One visited page in the tags view. */
export interface VisitedTab {
  path: string;
  title: ParseKeys;
  /** Cannot be closed (the dashboard). */
  pinned: boolean;
}

/** Adds a visited page at the end unless it is already there. */
export const addTab = (tabs: readonly VisitedTab[], tab: VisitedTab): VisitedTab[] =>
  tabs.some((item) => item.path === tab.path) ? [...tabs] : [...tabs, tab];

/**
 * Closes a tab (pinned tabs stay). When the open page's tab closes, `next` is the page to go
 * to: the tab that took its place from the right, else the one before it.
 */
export function closeTab(
  tabs: readonly VisitedTab[],
  path: string,
  activePath: string,
): { tabs: VisitedTab[]; next?: string } {
  const index = tabs.findIndex((item) => item.path === path);
  const closing = tabs[index];
  if (!closing || closing.pinned) return { tabs: [...tabs] };
  const rest = tabs.filter((item) => item.path !== path);
  if (path !== activePath) return { tabs: rest };
  return { tabs: rest, next: (rest[index] ?? rest[index - 1])?.path };
}
