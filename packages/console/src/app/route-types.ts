import type { ConsoleGroup } from '@tessera/contract/shell-constants';
import type { ParseKeys } from 'i18next';
import type { ComponentType } from 'react';

/** The shapes of the console's route table (route-table.ts): names, sets, screens and groups. */

/** Route names of spec §2, plus the source screens the spec lists without a name (and the SAML source's, issue 33). */
export const routeNames = [
  'dashboard',
  'app',
  'appDetails',
  'selectApp',
  'identitySource',
  'selectIdentitySource',
  'ldapDetail',
  'addLdap',
  'dingtalk',
  'weixin',
  'samlSource',
  'workWeixin',
  'oidcSource',
  'organization',
  'users',
  'userDetails',
  'department',
  'permission',
  'roleDetail',
  'safety',
  'generalSafety',
  'mfa',
  'radius',
  'device',
  'ca',
  'exchange',
  'deviceManage',
  'deviceManageDetail',
  'log',
  'brand',
  'setting',
  'companySettings',
  'license',
  'about',
  'admin',
  'setup',
  'createCompany',
  'notFound',
  'ok',
] as const;
export type RouteName = (typeof routeNames)[number];

/** The two route sets: `full` under the /dev prefix, `reduced` under any other (spec §2). */
export type RouteSet = 'full' | 'reduced';

/** Menu icons of spec §2; the layout maps each to an @ant-design/icons component. */
export type MenuIcon =
  | 'home'
  | 'app'
  | 'identitySource'
  | 'org'
  | 'permission'
  | 'safety'
  | 'log'
  | 'brand'
  | 'setting';

/** Permission groups of spec §6; a route's `access` names the one it needs. */
export type Permission = ConsoleGroup;

/**
 * Loads a screen's chunk. A screen whose phrases are not in the shell (i18n/en/shell.ts) loads
 * its namespaces with it: `withPhrases('org', () => import(...))`.
 */
export type ScreenLoader = () => Promise<ComponentType>;

export interface ScreenRoute {
  kind: 'screen';
  name: RouteName;
  /** Absolute path inside the console (without /dev or /admin); `:id` and `:id?` are parameters. */
  path: string;
  /** Phrase key of the page title, the menu entry, the breadcrumb and the tab. */
  title: ParseKeys;
  icon?: MenuIcon;
  access?: Permission;
  /** Not in the menu (detail and choice screens). */
  hidden?: boolean;
  /** The menu entry to highlight while this hidden screen is open. */
  activeMenu?: string;
  /** Only in the full route set (/dev). */
  fullOnly?: boolean;
  /** Only in the reduced set, the platform console (/admin/), whose every session is a platform administrator's. */
  platformOnly?: boolean;
  /** A tab that cannot be closed. */
  pinned?: boolean;
  /** Outside the navigation: no tab, no sidebar highlight, no trail (status and company creation). */
  standalone?: boolean;
  /** The screen; absent while it is not built yet (see the note at the top). */
  screen?: ScreenLoader;
}

export interface RouteGroup {
  kind: 'group';
  name?: RouteName;
  path: string;
  title: ParseKeys;
  icon: MenuIcon;
  /** Where the group's own path leads. */
  redirect?: string;
  /** The redirect exists in the full set only (spec §2: the reduced set's log is not grouped under one). */
  redirectFullOnly?: boolean;
  fullOnly?: boolean;
  /** A sub-menu even with a single visible entry (otherwise that entry stands alone). */
  alwaysShow?: boolean;
  children: ScreenRoute[];
}

export type RouteNode = ScreenRoute | RouteGroup;
