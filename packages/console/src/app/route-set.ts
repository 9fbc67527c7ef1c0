import { type ConsoleGrants, consoleAbilityGroup, consoleGroups } from '@tessera/contract/shell-constants';
import type { ParseKeys } from 'i18next';
import { matchPath } from 'react-router';
import { HOME_PATH } from '../session/navigation.guard.ts';
import {
  type MenuIcon,
  type Permission,
  type RouteGroup,
  type RouteNode,
  type RouteSet,
  routeTable,
  type ScreenLoader,
  type ScreenRoute,
} from './route-table.ts';

/**
 * Everything the shell derives from the route table: the route set of a prefix, the screens and
 * redirects the router gets, the sidebar menu, the breadcrumbs. Pure functions of the table, so
 * they are tested without a browser.
 */

/** Spec §2: the full set under /dev, the reduced set under any other prefix. */
export const routeSetOf = (basename: string): RouteSet => (basename === '/dev' ? 'full' : 'reduced');

const inSet = (set: RouteSet, route: { fullOnly?: boolean; platformOnly?: boolean }) =>
  set === 'full' ? !route.platformOnly : !route.fullOnly;

/** A screen of a route set, with the group it sits in. */
export interface SetScreen {
  route: ScreenRoute;
  group?: RouteGroup;
}

/** Every screen the set declares, built or not. */
export function declaredScreens(set: RouteSet, table: readonly RouteNode[] = routeTable): SetScreen[] {
  const out: SetScreen[] = [];
  for (const node of table) {
    if (!inSet(set, node)) continue;
    if (node.kind === 'screen') out.push({ route: node });
    else for (const route of node.children) if (inSet(set, route)) out.push({ route, group: node });
  }
  return out;
}

/** A screen whose chunk exists. */
export interface BuiltScreen extends SetScreen {
  route: ScreenRoute & { screen: ScreenLoader };
}

const isBuilt = (screen: SetScreen): screen is BuiltScreen => screen.route.screen !== undefined;

/** The screens the router serves: declared in the set and built. */
export const routedScreens = (set: RouteSet, table: readonly RouteNode[] = routeTable): BuiltScreen[] =>
  declaredScreens(set, table).filter(isBuilt);

export interface Redirect {
  from: string;
  to: string;
}

/** `/` → the dashboard, and each group path with a redirect in this set. */
export function redirectsOf(set: RouteSet, table: readonly RouteNode[] = routeTable): Redirect[] {
  const out: Redirect[] = [{ from: '/', to: HOME_PATH }];
  for (const node of table) {
    if (node.kind !== 'group' || !node.redirect || !inSet(set, node)) continue;
    if (node.redirectFullOnly && set !== 'full') continue;
    out.push({ from: node.path, to: node.redirect });
  }
  return out;
}

/**
 * Spec §6: the permission groups a person holds in the selected company, from what the server
 * answers (`company/my/access`): owners and administrators hold all of them, a delegated
 * administrator those of their console role (read or manage), and the group of each ability
 * (a help desk's credential resets show the user screens). Without an answer: all of them.
 */
export function grantedPermissions(grants?: ConsoleGrants): ReadonlySet<Permission> {
  if (!grants) return new Set(consoleGroups);
  const held = new Set<Permission>();
  for (const permission of consoleGroups) if (grants.groups[permission]) held.add(permission);
  for (const ability of grants.abilities) held.add(consoleAbilityGroup[ability]);
  return held;
}

/** Whether the screen at `pathname` may be opened with these permission groups (unknown paths: yes, they end on /404). */
export function isPermitted(set: RouteSet, pathname: string, granted: ReadonlySet<Permission>): boolean {
  const access = findScreen(set, pathname)?.route.access;
  return access === undefined || granted.has(access);
}

export interface MenuEntry {
  /** The path the entry opens; a sub-menu's key is its group path. */
  key: string;
  title: ParseKeys;
  icon?: MenuIcon;
  children?: MenuEntry[];
}

const visible = (set: RouteSet, granted: ReadonlySet<Permission>) => (route: ScreenRoute) =>
  inSet(set, route) &&
  !route.hidden &&
  route.screen !== undefined &&
  (route.access === undefined || granted.has(route.access));

/**
 * The sidebar: built, permitted, visible screens. A group with one visible screen shows that
 * screen alone with the group's icon, unless the group is always a sub-menu (vue-element-admin's
 * rule); a group with none is left out.
 */
export function menuOf(
  set: RouteSet,
  granted: ReadonlySet<Permission> = grantedPermissions(),
  table: readonly RouteNode[] = routeTable,
): MenuEntry[] {
  const show = visible(set, granted);
  const out: MenuEntry[] = [];
  for (const node of table) {
    if (!inSet(set, node)) continue;
    if (node.kind === 'screen') {
      if (show(node)) out.push({ key: node.path, title: node.title, icon: node.icon });
      continue;
    }
    const children = node.children.filter(show);
    const [only] = children;
    if (!only) continue;
    if (children.length === 1 && !node.alwaysShow) {
      out.push({ key: only.path, title: only.title, icon: only.icon ?? node.icon });
    } else {
      out.push({
        key: node.path,
        title: node.title,
        icon: node.icon,
        children: children.map((route) => ({ key: route.path, title: route.title, icon: route.icon })),
      });
    }
  }
  return out;
}

/** The routed screen whose path matches `pathname`. */
export function findScreen(
  set: RouteSet,
  pathname: string,
  table: readonly RouteNode[] = routeTable,
): SetScreen | undefined {
  return routedScreens(set, table).find(({ route }) => matchPath({ path: route.path, end: true }, pathname));
}

/** The menu entry to highlight for a screen and the sub-menu to open. */
export function menuSelectionOf(found: SetScreen | undefined): { selected?: string; open?: string } {
  if (!found || found.route.standalone) return {};
  return { selected: found.route.activeMenu ?? found.route.path, open: found.group?.path };
}

export interface Crumb {
  title: ParseKeys;
  /** Where the crumb leads; absent for the current page and for groups without a page of their own. */
  path?: string;
}

/**
 * Breadcrumbs: the dashboard, the group (when it is a sub-menu), the list a hidden screen belongs
 * to, then the screen itself. Standalone screens stand alone.
 */
export function breadcrumbOf(
  set: RouteSet,
  pathname: string,
  table: readonly RouteNode[] = routeTable,
  granted: ReadonlySet<Permission> = grantedPermissions(),
): Crumb[] {
  const found = findScreen(set, pathname, table);
  if (!found) return [];
  const { route, group } = found;
  if (route.standalone || route.path === HOME_PATH) return [{ title: route.title }];
  const crumbs: Crumb[] = [{ title: 'route.dashboard', path: HOME_PATH }];
  const routed = routedScreens(set, table);
  const isRouted = (path: string | undefined) =>
    path !== undefined && routed.some((screen) => screen.route.path === path);
  if (group) {
    const shown = group.children.filter(visible(set, granted));
    if (group.alwaysShow || shown.length > 1) {
      crumbs.push({ title: group.title, path: isRouted(group.redirect) ? group.redirect : undefined });
    }
  }
  if (route.activeMenu) {
    const list = routed.find((screen) => screen.route.path === route.activeMenu);
    if (list) crumbs.push({ title: list.route.title, path: list.route.path });
  }
  crumbs.push({ title: route.title });
  return crumbs;
}
