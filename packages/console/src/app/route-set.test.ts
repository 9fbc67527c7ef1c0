import { matchRoutes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { en } from '../i18n/en/index.ts';
import {
  breadcrumbOf,
  declaredScreens,
  findScreen,
  grantedPermissions,
  isPermitted,
  menuOf,
  menuSelectionOf,
  redirectsOf,
  routedScreens,
  routeSetOf,
} from './route-set.ts';
import { type RouteNode, routeNames, routeTable, type ScreenRoute } from './route-table.ts';
import { consoleRoutes } from './routes.tsx';

const namesOf = (set: 'full' | 'reduced') => declaredScreens(set).map(({ route }) => route.name);
const built = async () => () => null;

/** Spec §2: what the reduced set lacks. */
const fullOnly = [
  'selectApp',
  'workWeixin',
  'department',
  'permission',
  'roleDetail',
  'radius',
  'device',
  'ca',
  'exchange',
  'deviceManage',
  'deviceManageDetail',
  'license',
  'about',
];

/** Where a path ends up in the router of a set: a screen's name, a redirect target, or /404. */
function landing(set: 'full' | 'reduced', path: string): string {
  const matches = matchRoutes(consoleRoutes(set), path) ?? [];
  const leaf = matches.at(-1)?.route;
  if (!leaf) return 'nothing';
  if (leaf.path === '*') return '→ /404';
  const element = leaf.element as { props?: { to?: string } } | undefined;
  if (element?.props?.to) return `→ ${element.props.to}`;
  return (leaf.handle as { name?: string } | undefined)?.name ?? 'unnamed';
}

describe('route table (spec §2)', () => {
  it('picks the full set under /dev and the reduced set under any other prefix', () => {
    expect(routeSetOf('/dev')).toBe('full');
    expect(routeSetOf('/admin')).toBe('reduced');
  });

  it('declares every route name once, and every screen has a title phrase in English', () => {
    const groupNames = routeTable.flatMap((node) => (node.kind === 'group' && node.name ? [node.name] : []));
    // The platform console's setup page is in the reduced set only.
    const names = [...new Set([...namesOf('full'), ...namesOf('reduced')]), ...groupNames];
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...routeNames].sort());
    for (const { route } of [...declaredScreens('full'), ...declaredScreens('reduced')]) {
      const [area = '', key = ''] = route.title.split('.');
      expect(typeof (en as Record<string, Record<string, unknown>>)[area]?.[key], route.title).toBe('string');
    }
  });

  it('declares every route name of spec §2', () => {
    const spec =
      'dashboard, app, appDetails, selectApp, identitySource, selectIdentitySource, ldapDetail, addLdap, organization, users, userDetails, department, permission, roleDetail, safety, generalSafety, mfa, radius, device, ca, log, setting, license, companySettings, about, admin, brand, exchange, deviceManage, deviceManageDetail, createCompany'.split(
        ', ',
      );
    const declared: readonly string[] = routeNames;
    expect(spec.filter((name) => !declared.includes(name))).toEqual([]);
  });

  // Regression guard of issue 22: §2 names device and admin without a path; they sit where its
  // list puts them, device after radius in the safety group, admin after about in the settings one.
  it('declares device among the safety screens (full set) and admin among the settings (both sets)', () => {
    const declaredIn = (set: 'full' | 'reduced') =>
      Object.fromEntries(
        declaredScreens(set).map(({ route, group }) => [route.name, [group?.path, route.path, route.access]]),
      );
    const groupOrder = (set: 'full' | 'reduced', path: string) =>
      declaredScreens(set)
        .filter(({ group }) => group?.path === path)
        .map(({ route }) => route.name);
    expect(declaredIn('full')).toMatchObject({
      device: ['/safety-management', '/safety-management/device', 'security'],
      admin: ['/setting', '/setting/admin', 'companySettings'],
    });
    expect(declaredIn('reduced')).toMatchObject({ admin: ['/setting', '/setting/admin', 'companySettings'] });
    expect(declaredIn('reduced')).not.toHaveProperty('device');
    expect(groupOrder('full', '/safety-management').slice(0, 5)).toEqual([
      'generalSafety',
      'mfa',
      'radius',
      'device',
      'ca',
    ]);
    expect(groupOrder('full', '/setting')).toEqual(['companySettings', 'license', 'about', 'admin']);
    expect(groupOrder('reduced', '/setting')).toEqual(['companySettings', 'admin', 'setup']);
  });

  it('leaves department, permission, radius, ca, exchange, devices, licence, about, WorkWeixin and select-app out of the reduced set', () => {
    const reduced = namesOf('reduced');
    for (const name of fullOnly) expect(reduced, name).not.toContain(name);
    expect(
      namesOf('full')
        .filter((name) => !reduced.includes(name))
        .sort(),
    ).toEqual([...fullOnly].sort());
  });

  it('declares the spec paths', () => {
    const paths = Object.fromEntries(declaredScreens('full').map(({ route }) => [route.name, route.path]));
    expect(paths).toMatchObject({
      dashboard: '/dashboard',
      app: '/application/index',
      appDetails: '/application/detail',
      selectApp: '/application/select-app',
      identitySource: '/identity-source/index',
      selectIdentitySource: '/identity-source/select-identity-source',
      ldapDetail: '/identity-source/ldap-detail/:id',
      addLdap: '/identity-source/add-ldap',
      dingtalk: '/identity-source/dingtalk/:id?',
      weixin: '/identity-source/weixin/:id?',
      samlSource: '/identity-source/saml/:id?',
      workWeixin: '/identity-source/WorkWeixin/:id?',
      users: '/org/user',
      userDetails: '/org/user-detail',
      department: '/org/department',
      permission: '/permission/index',
      roleDetail: '/permission/role-detail',
      generalSafety: '/safety-management/general',
      mfa: '/safety-management/mfa',
      radius: '/safety-management/radius',
      ca: '/safety-management/ca',
      exchange: '/safety-management/exchange',
      deviceManage: '/safety-management/deviceManage',
      deviceManageDetail: '/safety-management/deviceManageDetail',
      log: '/log/index',
      brand: '/brand/index',
      companySettings: '/setting/basic-set',
      license: '/setting/license',
      about: '/setting/about',
      createCompany: '/create-company',
    });
  });

  it('hides detail and choice screens from the menu', () => {
    const hidden = declaredScreens('full')
      .filter(({ route }) => route.hidden && !route.standalone)
      .map(({ route }) => route.name);
    expect(hidden.sort()).toEqual(
      [
        'addLdap',
        'appDetails',
        'deviceManageDetail',
        'dingtalk',
        'ldapDetail',
        'roleDetail',
        'selectApp',
        'selectIdentitySource',
        'userDetails',
        'weixin',
        'samlSource',
        'workWeixin',
        'oidcSource',
      ].sort(),
    );
    const appDetails = declaredScreens('full').find(({ route }) => route.name === 'appDetails');
    expect(appDetails?.route.activeMenu).toBe('/application/index');
  });

  it('pins the dashboard tab', () => {
    expect(
      declaredScreens('full')
        .filter(({ route }) => route.pinned)
        .map(({ route }) => route.name),
    ).toEqual(['dashboard']);
  });

  it('routes only the screens that are built', () => {
    expect(routedScreens('full').map(({ route }) => route.name)).toEqual([
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
      'oidcSource',
      'samlSource',
      'workWeixin',
      'users',
      'userDetails',
      'department',
      'permission',
      'roleDetail',
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
      'companySettings',
      'license',
      'about',
      'createCompany',
      'notFound',
      'ok',
    ]);
    expect(routedScreens('reduced').map(({ route }) => route.name)).toEqual([
      'dashboard',
      'app',
      'appDetails',
      'identitySource',
      'selectIdentitySource',
      'ldapDetail',
      'addLdap',
      'dingtalk',
      'weixin',
      'oidcSource',
      'samlSource',
      'users',
      'userDetails',
      'generalSafety',
      'mfa',
      'log',
      'brand',
      'companySettings',
      'setup',
      'createCompany',
      'notFound',
      'ok',
    ]);
  });
});

describe('redirects and unknown paths', () => {
  it('redirects / to the dashboard and the groups to their first screen', () => {
    expect(redirectsOf('full')).toEqual([
      { from: '/', to: '/dashboard' },
      { from: '/org', to: '/org/user' },
      { from: '/permission', to: '/permission/index' },
      { from: '/safety-management', to: '/safety-management/general' },
      { from: '/log', to: '/log/index' },
    ]);
  });

  it('has no permission redirect and no log group redirect in the reduced set', () => {
    expect(redirectsOf('reduced')).toEqual([
      { from: '/', to: '/dashboard' },
      { from: '/org', to: '/org/user' },
      { from: '/safety-management', to: '/safety-management/general' },
    ]);
  });

  it('sends the router where the table says', () => {
    expect(landing('full', '/')).toBe('→ /dashboard');
    expect(landing('full', '/dashboard')).toBe('dashboard');
    expect(landing('full', '/org')).toBe('→ /org/user');
    expect(landing('full', '/permission')).toBe('→ /permission/index');
    expect(landing('full', '/safety-management')).toBe('→ /safety-management/general');
    expect(landing('full', '/setting/basic-set')).toBe('companySettings');
    expect(landing('full', '/setting/license')).toBe('license');
    expect(landing('full', '/404')).toBe('notFound');
    expect(landing('full', '/200')).toBe('ok');
    expect(landing('reduced', '/setting/basic-set')).toBe('companySettings');
    expect(landing('full', '/org/user')).toBe('users');
    expect(landing('full', '/org/user-detail')).toBe('userDetails');
    expect(landing('full', '/org/department')).toBe('department');
    expect(landing('reduced', '/org/user')).toBe('users');
    expect(landing('full', '/safety-management/general')).toBe('generalSafety');
    expect(landing('full', '/safety-management/mfa')).toBe('mfa');
    expect(landing('reduced', '/safety-management')).toBe('→ /safety-management/general');
    expect(landing('reduced', '/safety-management/general')).toBe('generalSafety');
    expect(landing('reduced', '/safety-management/mfa')).toBe('mfa');
    expect(landing('full', '/application/index')).toBe('app');
    expect(landing('full', '/application/detail')).toBe('appDetails');
    expect(landing('full', '/application/select-app')).toBe('selectApp');
    expect(landing('reduced', '/application/index')).toBe('app');
    expect(landing('reduced', '/application/detail')).toBe('appDetails');
  });

  it('sends unknown paths, screens of the other set and screens not built yet to /404', () => {
    expect(landing('full', '/no/such/page')).toBe('→ /404');
    expect(landing('reduced', '/setting/license')).toBe('→ /404');
    expect(landing('reduced', '/setting/about')).toBe('→ /404');
    expect(landing('reduced', '/permission')).toBe('→ /404');
    expect(landing('reduced', '/log')).toBe('→ /404');
    expect(landing('reduced', '/org/department')).toBe('→ /404');
    expect(landing('reduced', '/application/select-app')).toBe('→ /404');
    for (const name of ['radius', 'device', 'ca', 'exchange', 'deviceManage', 'deviceManageDetail']) {
      expect(landing('reduced', `/safety-management/${name}`), name).toBe('→ /404');
    }
    // The safety screens of the full set are built.
    for (const name of ['radius', 'device', 'ca', 'exchange', 'deviceManage', 'deviceManageDetail']) {
      expect(landing('full', `/safety-management/${name}`), name).toBe(name);
    }
    expect(landing('full', '/setting/admin')).toBe('→ /404');
    expect(landing('reduced', '/setting/admin')).toBe('→ /404');
  });
});

describe('menu and breadcrumbs derived from the table', () => {
  it('shows only built screens: the full set has departments, licence and about, the reduced set does not; both have the safety screens', () => {
    expect(menuOf('full')).toEqual([
      { key: '/dashboard', title: 'route.dashboard', icon: 'home' },
      { key: '/application/index', title: 'route.app', icon: 'app' },
      { key: '/identity-source/index', title: 'route.identitySource', icon: 'identitySource' },
      {
        key: '/org',
        title: 'route.organization',
        icon: 'org',
        children: [
          { key: '/org/user', title: 'route.users', icon: undefined },
          { key: '/org/department', title: 'route.department', icon: undefined },
        ],
      },
      { key: '/permission/index', title: 'route.permission', icon: 'permission' },
      {
        key: '/safety-management',
        title: 'route.safety',
        icon: 'safety',
        children: [
          { key: '/safety-management/general', title: 'route.generalSafety', icon: undefined },
          { key: '/safety-management/mfa', title: 'route.mfa', icon: undefined },
          { key: '/safety-management/radius', title: 'route.radius', icon: undefined },
          { key: '/safety-management/device', title: 'route.device', icon: undefined },
          { key: '/safety-management/ca', title: 'route.ca', icon: undefined },
          { key: '/safety-management/exchange', title: 'route.exchange', icon: undefined },
          { key: '/safety-management/deviceManage', title: 'route.deviceManage', icon: undefined },
        ],
      },
      { key: '/log/index', title: 'route.log', icon: 'log' },
      { key: '/brand/index', title: 'route.brand', icon: 'brand' },
      {
        key: '/setting',
        title: 'route.setting',
        icon: 'setting',
        children: [
          { key: '/setting/basic-set', title: 'route.companySettings', icon: undefined },
          { key: '/setting/license', title: 'route.license', icon: undefined },
          { key: '/setting/about', title: 'route.about', icon: undefined },
        ],
      },
    ]);
    expect(menuOf('reduced')[1]?.key).toBe('/application/index');
    expect(menuOf('reduced')[3]?.children?.map((entry) => entry.key)).toEqual(['/org/user']);
    expect(menuOf('reduced')[4]?.children?.map((entry) => entry.key)).toEqual([
      '/safety-management/general',
      '/safety-management/mfa',
    ]);
    expect(
      menuOf('reduced')
        .at(-1)
        ?.children?.map((entry) => entry.key),
    ).toEqual(['/setting/basic-set', '/setting/setup']);
  });

  it("builds the permission groups from the server's answer: a help desk sees the user screens only", () => {
    const helpDesk = grantedPermissions({ groups: { user: 'read' }, abilities: ['resetCredentials'] });
    expect([...helpDesk]).toEqual(['user']);
    expect(menuOf('full', helpDesk).map((entry) => entry.key)).toEqual(['/dashboard', '/org']);
    expect(isPermitted('full', '/org/user-detail', helpDesk)).toBe(true);
    expect(isPermitted('full', '/permission/index', helpDesk)).toBe(false);
    expect(isPermitted('full', '/dashboard', helpDesk)).toBe(true);
    // A credential reset alone brings the user group's screens along.
    expect([...grantedPermissions({ groups: {}, abilities: ['resetCredentials'] })]).toEqual(['user']);
    expect(grantedPermissions(undefined).size).toBe(11);
  });

  it('leaves out screens without the permission', () => {
    expect(
      menuOf('full', new Set(['companySettings']))
        .at(-1)
        ?.children?.map((entry) => entry.key),
    ).toEqual(['/setting/basic-set']);
  });

  it('shows a group with one screen as that screen, unless it is always a sub-menu', () => {
    const table: RouteNode[] = routeTable.map((node) =>
      node.kind === 'group'
        ? { ...node, children: node.children.map((route): ScreenRoute => ({ ...route, screen: built })) }
        : node,
    );
    const menu = menuOf('reduced', undefined, table);
    expect(menu.map((entry) => [entry.key, entry.icon, entry.children?.length ?? 0])).toEqual([
      ['/dashboard', 'home', 0],
      ['/application/index', 'app', 0],
      ['/identity-source/index', 'identitySource', 0],
      ['/org', 'org', 1],
      ['/safety-management', 'safety', 2],
      ['/log/index', 'log', 0],
      ['/brand/index', 'brand', 0],
      ['/setting', 'setting', 3],
    ]);
    expect(menuOf('full', undefined, table).map((entry) => entry.key)).toContain('/permission/index');
    // Once built, device and admin are menu entries of their groups, where §2's list puts them.
    const children = (set: 'full' | 'reduced', key: string) =>
      menuOf(set, undefined, table)
        .find((entry) => entry.key === key)
        ?.children?.map((entry) => entry.key);
    expect(children('full', '/safety-management')?.slice(2, 5)).toEqual([
      '/safety-management/radius',
      '/safety-management/device',
      '/safety-management/ca',
    ]);
    expect(children('full', '/setting')?.at(-1)).toBe('/setting/admin');
    expect(children('reduced', '/setting')).toEqual([
      '/setting/basic-set',
      '/setting/admin',
      '/setting/setup',
    ]);
    expect(breadcrumbOf('full', '/application/detail', table)).toEqual([
      { title: 'route.dashboard', path: '/dashboard' },
      { title: 'route.app', path: '/application/index' },
      { title: 'route.appDetails' },
    ]);
    expect(menuSelectionOf(findScreen('full', '/identity-source/ldap-detail/7', table))).toEqual({
      selected: '/identity-source/index',
      open: '/identity-source',
    });
  });

  it('builds breadcrumbs from the dashboard through the group', () => {
    expect(breadcrumbOf('full', '/setting/license')).toEqual([
      { title: 'route.dashboard', path: '/dashboard' },
      { title: 'route.setting', path: undefined },
      { title: 'route.license' },
    ]);
    expect(breadcrumbOf('full', '/dashboard')).toEqual([{ title: 'route.dashboard' }]);
    expect(breadcrumbOf('full', '/404')).toEqual([{ title: 'status.notFoundTitle' }]);
    expect(breadcrumbOf('full', '/nowhere')).toEqual([]);
  });

  it('highlights the open screen and opens its group', () => {
    expect(menuSelectionOf(findScreen('full', '/setting/about'))).toEqual({
      selected: '/setting/about',
      open: '/setting',
    });
    expect(menuSelectionOf(findScreen('full', '/create-company'))).toEqual({});
  });
});
