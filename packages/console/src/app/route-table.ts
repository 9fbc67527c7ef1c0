import { withPhrases } from '../i18n/i18n.ts';
import { CREATE_COMPANY_PATH, HOME_PATH, SETUP_PATH } from '../session/navigation.guard.ts';
import type { RouteGroup, RouteNode, ScreenRoute } from './route-types.ts';

/**
 * The one route table of the console (spec §2), Keycloak / Ant Design Pro style: the router,
 * the sidebar menu, the breadcrumbs, the tabs and the page title are all derived from it
 * (see route-set.ts). There is no second menu list.
 *
 * A screen is built when it has a `screen` loader: that is the single switch. A route without
 * one is declared (so the route sets and names are known and tested) but is neither routed nor
 * shown in the menu; opening it ends on /404 like any unknown path.
 */

export * from './route-types.ts';

const screen = (route: Omit<ScreenRoute, 'kind'>): ScreenRoute => ({ kind: 'screen', ...route });
const group = (route: Omit<RouteGroup, 'kind'>): RouteGroup => ({ kind: 'group', ...route });

export const routeTable: readonly RouteNode[] = [
  screen({
    name: 'dashboard',
    path: HOME_PATH,
    title: 'route.dashboard',
    icon: 'home',
    pinned: true,
    screen: () => import('../pages/dashboard/dashboard.page.tsx').then((m) => m.DashboardPage),
  }),
  group({
    path: '/application',
    title: 'route.app',
    icon: 'app',
    children: [
      screen({
        name: 'app',
        path: '/application/index',
        title: 'route.app',
        access: 'app',
        screen: withPhrases('apps', () =>
          import('../pages/application/apps.page.tsx').then((m) => m.AppsPage),
        ),
      }),
      screen({
        name: 'appDetails',
        path: '/application/detail',
        title: 'route.appDetails',
        access: 'app',
        hidden: true,
        activeMenu: '/application/index',
        screen: withPhrases('apps', () =>
          import('../pages/application/app-detail.page.tsx').then((m) => m.AppDetailPage),
        ),
      }),
      screen({
        name: 'selectApp',
        path: '/application/select-app',
        title: 'route.selectApp',
        access: 'app',
        hidden: true,
        fullOnly: true,
        activeMenu: '/application/index',
        screen: withPhrases('apps', () =>
          import('../pages/application/select-app.page.tsx').then((m) => m.SelectAppPage),
        ),
      }),
    ],
  }),
  group({
    path: '/identity-source',
    title: 'route.identitySource',
    icon: 'identitySource',
    children: [
      screen({
        name: 'identitySource',
        path: '/identity-source/index',
        title: 'route.identitySource',
        access: 'identitySource',
        screen: withPhrases('sources', () =>
          import('../pages/identity-source/identity-sources.page.tsx').then((m) => m.IdentitySourcesPage),
        ),
      }),
      ...(
        [
          [
            'selectIdentitySource',
            '/identity-source/select-identity-source',
            () =>
              import('../pages/identity-source/select-identity-source.page.tsx').then(
                (m) => m.SelectIdentitySourcePage,
              ),
          ],
          [
            'ldapDetail',
            '/identity-source/ldap-detail/:id',
            () => import('../pages/identity-source/ldap-source.page.tsx').then((m) => m.LdapSourcePage),
          ],
          [
            'addLdap',
            '/identity-source/add-ldap',
            () => import('../pages/identity-source/ldap-source.page.tsx').then((m) => m.LdapSourcePage),
          ],
          [
            'dingtalk',
            '/identity-source/dingtalk/:id?',
            () => import('../pages/identity-source/scan-source.page.tsx').then((m) => m.DingtalkSourcePage),
          ],
          [
            'weixin',
            '/identity-source/weixin/:id?',
            () => import('../pages/identity-source/scan-source.page.tsx').then((m) => m.WeixinSourcePage),
          ],
          [
            'oidcSource',
            '/identity-source/oidc/:id?',
            () => import('../pages/identity-source/oidc-source.page.tsx').then((m) => m.OidcSourcePage),
          ],
          [
            'samlSource',
            '/identity-source/saml/:id?',
            () => import('../pages/identity-source/saml-source.page.tsx').then((m) => m.SamlSourcePage),
          ],
        ] as const
      ).map(([name, path, page]) =>
        screen({
          name,
          path,
          title: `route.${name}`,
          access: 'identitySource',
          hidden: true,
          activeMenu: '/identity-source/index',
          screen: withPhrases('sources', page),
        }),
      ),
      screen({
        name: 'workWeixin',
        path: '/identity-source/WorkWeixin/:id?',
        title: 'route.workWeixin',
        access: 'identitySource',
        hidden: true,
        fullOnly: true,
        activeMenu: '/identity-source/index',
        screen: withPhrases('sources', () =>
          import('../pages/identity-source/scan-source.page.tsx').then((m) => m.WorkWeixinSourcePage),
        ),
      }),
    ],
  }),
  group({
    name: 'organization',
    path: '/org',
    title: 'route.organization',
    icon: 'org',
    redirect: '/org/user',
    alwaysShow: true,
    children: [
      screen({
        name: 'users',
        path: '/org/user',
        title: 'route.users',
        access: 'user',
        screen: withPhrases('org', () => import('../pages/org/users.page.tsx').then((m) => m.UsersPage)),
      }),
      screen({
        name: 'userDetails',
        path: '/org/user-detail',
        title: 'route.userDetails',
        access: 'user',
        hidden: true,
        activeMenu: '/org/user',
        // settings: the role names of the account card (pages/settings/member-roles.ts).
        // devices: the user's devices card (pages/devices/user-devices.card.tsx).
        screen: withPhrases(['org', 'settings', 'devices'], () =>
          import('../pages/org/user-detail.page.tsx').then((m) => m.UserDetailPage),
        ),
      }),
      screen({
        name: 'department',
        path: '/org/department',
        title: 'route.department',
        access: 'department',
        fullOnly: true,
        screen: withPhrases('org', () =>
          import('../pages/org/department.page.tsx').then((m) => m.DepartmentPage),
        ),
      }),
    ],
  }),
  group({
    path: '/permission',
    title: 'route.permission',
    icon: 'permission',
    redirect: '/permission/index',
    fullOnly: true,
    children: [
      screen({
        name: 'permission',
        path: '/permission/index',
        title: 'route.permission',
        access: 'authority',
        screen: withPhrases(['permission', 'org'], () =>
          import('../pages/permission/permission.page.tsx').then((m) => m.PermissionPage),
        ),
      }),
      screen({
        name: 'roleDetail',
        path: '/permission/role-detail',
        title: 'route.roleDetail',
        access: 'authority',
        hidden: true,
        activeMenu: '/permission/index',
        screen: withPhrases(['permission', 'org'], () =>
          import('../pages/permission/role-detail.page.tsx').then((m) => m.RoleDetailPage),
        ),
      }),
    ],
  }),
  group({
    name: 'safety',
    path: '/safety-management',
    title: 'route.safety',
    icon: 'safety',
    redirect: '/safety-management/general',
    alwaysShow: true,
    children: [
      screen({
        name: 'generalSafety',
        path: '/safety-management/general',
        title: 'route.generalSafety',
        access: 'security',
        screen: withPhrases('safety', () =>
          import('../pages/safety/general-safety.page.tsx').then((m) => m.GeneralSafetyPage),
        ),
      }),
      screen({
        name: 'mfa',
        path: '/safety-management/mfa',
        title: 'route.mfa',
        access: 'security',
        screen: withPhrases('safety', () =>
          import('../pages/safety/mfa-safety.page.tsx').then((m) => m.MfaSafetyPage),
        ),
      }),
      screen({
        name: 'radius',
        path: '/safety-management/radius',
        title: 'route.radius',
        access: 'security',
        fullOnly: true,
        screen: withPhrases(['radius', 'apps'], () =>
          import('../pages/radius/radius.page.tsx').then((m) => m.RadiusPage),
        ),
      }),
      // `device` (spec §2 names it between radius and ca, with no path in its table): the
      // company's device rules that §3, §5 and §6 describe apart from the device list of
      // deviceManage: device password digits and rotation, and the registration token. The
      // agent itself, the user device limit and the new-user default permission on device
      // management are on `exchange`. Full set only, as all device management is (§2).
      screen({
        name: 'device',
        path: '/safety-management/device',
        title: 'route.device',
        access: 'security',
        fullOnly: true,
        screen: withPhrases(['safety', 'devices'], () =>
          import('../pages/devices/device-safety.page.tsx').then((m) => m.DeviceSafetyPage),
        ),
      }),
      screen({
        name: 'ca',
        path: '/safety-management/ca',
        title: 'route.ca',
        access: 'security',
        fullOnly: true,
        screen: withPhrases(['ca', 'apps'], () => import('../pages/ca/ca.page.tsx').then((m) => m.CaPage)),
      }),
      screen({
        name: 'exchange',
        path: '/safety-management/exchange',
        title: 'route.exchange',
        access: 'security',
        fullOnly: true,
        screen: withPhrases(['safety', 'devices'], () =>
          import('../pages/devices/exchange.page.tsx').then((m) => m.ExchangePage),
        ),
      }),
      screen({
        name: 'deviceManage',
        path: '/safety-management/deviceManage',
        title: 'route.deviceManage',
        access: 'security',
        fullOnly: true,
        screen: withPhrases('devices', () =>
          import('../pages/devices/device-manage.page.tsx').then((m) => m.DeviceManagePage),
        ),
      }),
      screen({
        name: 'deviceManageDetail',
        path: '/safety-management/deviceManageDetail',
        title: 'route.deviceManageDetail',
        access: 'security',
        hidden: true,
        fullOnly: true,
        activeMenu: '/safety-management/deviceManage',
        screen: withPhrases('devices', () =>
          import('../pages/devices/device-detail.page.tsx').then((m) => m.DeviceDetailPage),
        ),
      }),
    ],
  }),
  group({
    path: '/log',
    title: 'route.log',
    icon: 'log',
    redirect: '/log/index',
    redirectFullOnly: true,
    children: [
      screen({
        name: 'log',
        path: '/log/index',
        title: 'route.log',
        access: 'log',
        screen: withPhrases('log', () => import('../pages/log/log.page.tsx').then((m) => m.LogPage)),
      }),
    ],
  }),
  group({
    path: '/brand',
    title: 'route.brand',
    icon: 'brand',
    children: [
      screen({
        name: 'brand',
        path: '/brand/index',
        title: 'route.brand',
        access: 'branding',
        screen: withPhrases('brand', () => import('../pages/brand/brand.page.tsx').then((m) => m.BrandPage)),
      }),
    ],
  }),
  group({
    name: 'setting',
    path: '/setting',
    title: 'route.setting',
    icon: 'setting',
    alwaysShow: true,
    children: [
      screen({
        name: 'companySettings',
        path: '/setting/basic-set',
        title: 'route.companySettings',
        access: 'companySettings',
        screen: withPhrases('settings', () =>
          import('../pages/settings/company-settings.page.tsx').then((m) => m.CompanySettingsPage),
        ),
      }),
      screen({
        name: 'license',
        path: '/setting/license',
        title: 'route.license',
        access: 'licence',
        fullOnly: true,
        screen: withPhrases('license', () =>
          import('../pages/license/license.page.tsx').then((m) => m.LicensePage),
        ),
      }),
      screen({
        name: 'about',
        path: '/setting/about',
        title: 'route.about',
        access: 'about',
        fullOnly: true,
        screen: withPhrases(['about', 'license'], () =>
          import('../pages/about/about.page.tsx').then((m) => m.AboutPage),
        ),
      }),
      // `admin` (spec §2 names it after about, with no path in its table): the company's
      // administrators, the company and external administrators of §6 that the company/user
      // calls of §7 list, add and remove. Both route sets: §2 does not take it from the reduced
      // one. The administrators are managed on the company settings screen (§3 counts them among
      // the company's settings), so this route has no screen of its own.
      screen({
        name: 'admin',
        path: '/setting/admin',
        title: 'route.admin',
        access: 'companySettings',
      }),
      // The installation's setup (issue 35): the platform console only, where every session is a
      // platform administrator's; the server refuses its calls to anyone else.
      screen({
        name: 'setup',
        path: SETUP_PATH,
        title: 'route.setup',
        platformOnly: true,
        screen: withPhrases('setup', () => import('../pages/setup/setup.page.tsx').then((m) => m.SetupPage)),
      }),
    ],
  }),
  screen({
    name: 'createCompany',
    path: CREATE_COMPANY_PATH,
    title: 'company.createTitle',
    hidden: true,
    standalone: true,
    // setup: the refusal shown where only platform administrators create companies.
    screen: withPhrases('setup', () =>
      import('../pages/create-company/create-company.page.tsx').then((m) => m.CreateCompanyPage),
    ),
  }),
  screen({
    name: 'notFound',
    path: '/404',
    title: 'status.notFoundTitle',
    hidden: true,
    standalone: true,
    screen: () => import('../pages/status/not-found.page.tsx').then((m) => m.NotFoundPage),
  }),
  screen({
    name: 'ok',
    path: '/200',
    title: 'status.okTitle',
    hidden: true,
    standalone: true,
    screen: () => import('../pages/status/ok.page.tsx').then((m) => m.OkPage),
  }),
];
