import { theme } from 'antd';
import { type CSSProperties, lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { useSession, useSystemInfo } from '../app/console-context.ts';
import { findScreen } from '../app/route-set.ts';
import { withPhrases } from '../i18n/i18n.ts';
import { breakpoints, useMinWidth } from '../lib/use-min-width.ts';
import { Breadcrumbs } from './breadcrumbs.tsx';
import { SideMenu } from './side-menu.tsx';
import { TagsView } from './tags-view.tsx';
import { TOP_BAR_HEIGHT, TopBar } from './top-bar.tsx';
import { useDocumentTitle } from './use-document-title.ts';
import { useRouteSet } from './use-route-set.ts';
import { useSidebar } from './use-sidebar.ts';
import './layout.css';

/** The drawer is only for the narrow device mode: its own chunk, loaded there. */
const MenuDrawer = lazy(async () => ({ default: (await import('./menu-drawer.tsx')).MenuDrawer }));
/** Shown only while mail is off: its own chunk, with the phrases of the people screens it is about. */
const MailOffNotice = lazy(async () => ({
  default: (await withPhrases('org', () => import('./mail-off-notice.tsx'))()).MailOffNotice,
}));

const SIDER_WIDTH = 220;
/** antd's collapsed sidebar is 80 px wide; the sidebar keeps that width. */
const SIDER_COLLAPSED_WIDTH = 80;

/**
 * Spec §2 layout (antd's Layout look, in plain elements: the first screen loads no antd layout
 * component): the top bar, the sidebar menu (a drawer in the narrow device mode), the tabs
 * of visited pages, the breadcrumbs and the main area. A person without a company (on
 * /create-company) sees the top bar only.
 */
export function ConsoleLayout() {
  const { t } = useTranslation();
  const set = useRouteSet();
  useDocumentTitle(set);
  const { token } = theme.useToken();
  const { company, grants } = useSession();
  const system = useSystemInfo();
  // For the administrators who manage people: they are the ones who would send the mails.
  const asksAboutMail = grants?.groups.user === 'manage';
  const mailOff = asksAboutMail && system?.mailEnabled === false;
  const { pathname } = useLocation();
  const sidebar = useSidebar();
  const { close } = sidebar;
  const narrow = !useMinWidth(breakpoints.sm);
  const mobile = sidebar.device === 'mobile';
  const navigation = company !== undefined;
  const standalone = findScreen(set, pathname)?.route.standalone ?? false;

  // The drawer's chunk is loaded when it first opens, and then kept for its closing motion.
  const [drawerUsed, setDrawerUsed] = useState(false);
  useEffect(() => {
    if (mobile && sidebar.opened) setDrawerUsed(true);
  }, [mobile, sidebar.opened]);

  // The menu drawer closes once a page is chosen.
  useEffect(() => {
    if (mobile && pathname) close();
  }, [mobile, pathname, close]);

  // Theme tokens for layout.css.
  const tokens = {
    '--tl-text': token.colorText,
    '--tl-text-secondary': token.colorTextDescription,
    '--tl-icon': token.colorIcon,
    '--tl-hover': token.colorBgTextHover,
    '--tl-active': token.colorBgTextActive,
    '--tl-focus': token.colorPrimaryBorder,
    '--tl-primary': token.colorPrimary,
    '--tl-primary-text': token.blue7,
    '--tl-primary-border': token.blue3,
    '--tl-selected-bg': token.controlItemBgActive,
    '--tl-border': token.colorBorder,
    '--tl-fill': token.colorFillQuaternary,
    '--tl-bg': token.colorBgElevated,
    '--tl-shadow': token.boxShadowSecondary,
    '--tl-radius': `${token.borderRadius}px`,
    '--tl-radius-sm': `${token.borderRadiusSM}px`,
    '--tl-radius-lg': `${token.borderRadiusLG}px`,
  } as CSSProperties;

  return (
    <div
      style={{
        ...tokens,
        display: 'flex',
        flexDirection: 'column',
        minHeight: '100vh',
        background: token.colorBgLayout,
      }}
    >
      <TopBar menu={navigation ? { opened: sidebar.opened, onToggle: sidebar.toggle } : undefined} />
      <div style={{ display: 'flex', flex: 'auto' }}>
        {navigation && !mobile ? (
          <aside
            data-testid="sidebar"
            data-collapsed={!sidebar.opened}
            style={{
              flex: `0 0 ${sidebar.opened ? SIDER_WIDTH : SIDER_COLLAPSED_WIDTH}px`,
              width: sidebar.opened ? SIDER_WIDTH : SIDER_COLLAPSED_WIDTH,
              background: token.colorBgContainer,
              borderInlineEnd: `1px solid ${token.colorBorderSecondary}`,
              boxSizing: 'border-box',
              transition: 'all 0.2s',
            }}
          >
            {/* The sidebar runs the page's full length; its menu stays in view while the page scrolls. */}
            <nav
              aria-label={t('layout.menu')}
              style={{
                position: 'sticky',
                top: TOP_BAR_HEIGHT,
                maxHeight: `calc(100vh - ${TOP_BAR_HEIGHT}px)`,
                overflowY: 'auto',
                overflowX: 'hidden',
              }}
            >
              <SideMenu set={set} collapsed={!sidebar.opened} />
            </nav>
          </aside>
        ) : null}
        {navigation && mobile && (drawerUsed || sidebar.opened) ? (
          <Suspense fallback={null}>
            <MenuDrawer set={set} open={sidebar.opened} width={SIDER_WIDTH + 20} onClose={close} />
          </Suspense>
        ) : null}
        <div style={{ display: 'flex', flexDirection: 'column', flex: 'auto', minWidth: 0 }}>
          {navigation ? <TagsView set={set} /> : null}
          <main style={{ flex: 'auto', padding: narrow ? 12 : 24 }}>
            {navigation && !standalone ? <Breadcrumbs set={set} /> : null}
            {/*
             * The notice stands above the screen, so the screen waits for it: until the platform
             * has said whether mail is on, and while the notice's chunk loads (one boundary for
             * both). Nothing then moves down under the pointer once the screen is shown.
             */}
            <Suspense fallback={null}>
              {navigation && mailOff ? <MailOffNotice /> : null}
              {/* Keyed by company: switching companies loads the open screen again for the new one. */}
              {navigation && asksAboutMail && system === undefined ? null : (
                <Outlet key={company?.companyId ?? 'no-company'} />
              )}
            </Suspense>
          </main>
        </div>
      </div>
    </div>
  );
}
