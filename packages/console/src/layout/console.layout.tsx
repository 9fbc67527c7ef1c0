import { Drawer, Grid, Layout, theme } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { useSession } from '../app/console-context.ts';
import { findScreen } from '../app/route-set.ts';
import { Breadcrumbs } from './breadcrumbs.tsx';
import { SideMenu } from './side-menu.tsx';
import { TagsView } from './tags-view.tsx';
import { TOP_BAR_HEIGHT, TopBar } from './top-bar.tsx';
import { useDocumentTitle } from './use-document-title.ts';
import { useRouteSet } from './use-route-set.ts';
import { useSidebar } from './use-sidebar.ts';

const SIDER_WIDTH = 220;
/** antd's collapsed inline menu is 80 px wide; the sidebar matches it. */
const SIDER_COLLAPSED_WIDTH = 80;

/**
 * Spec §2 layout: the top bar, the sidebar menu (a drawer in the narrow device mode), the tabs
 * of visited pages, the breadcrumbs and the main area. A person without a company (on
 * /create-company) sees the top bar only.
 */
export function ConsoleLayout() {
  const { t } = useTranslation();
  const set = useRouteSet();
  useDocumentTitle(set);
  const { token } = theme.useToken();
  const { company } = useSession();
  const { pathname } = useLocation();
  const sidebar = useSidebar();
  const { close } = sidebar;
  const narrow = !(Grid.useBreakpoint().sm ?? true);
  const mobile = sidebar.device === 'mobile';
  const navigation = company !== undefined;
  const standalone = findScreen(set, pathname)?.route.standalone ?? false;

  // The menu drawer closes once a page is chosen.
  useEffect(() => {
    if (mobile && pathname) close();
  }, [mobile, pathname, close]);

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <TopBar menu={navigation ? { opened: sidebar.opened, onToggle: sidebar.toggle } : undefined} />
      <Layout hasSider={navigation && !mobile}>
        {navigation && !mobile ? (
          <Layout.Sider
            theme="light"
            width={SIDER_WIDTH}
            collapsedWidth={SIDER_COLLAPSED_WIDTH}
            collapsed={!sidebar.opened}
            trigger={null}
            data-testid="sidebar"
            data-collapsed={!sidebar.opened}
            style={{ borderInlineEnd: `1px solid ${token.colorBorderSecondary}` }}
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
          </Layout.Sider>
        ) : null}
        {navigation && mobile ? (
          <Drawer
            placement="left"
            open={sidebar.opened}
            onClose={close}
            title={t('layout.menu')}
            size={SIDER_WIDTH + 20}
            styles={{ body: { padding: 0 } }}
          >
            <nav aria-label={t('layout.menu')}>
              <SideMenu set={set} collapsed={false} onNavigate={close} />
            </nav>
          </Drawer>
        ) : null}
        <Layout style={{ minWidth: 0 }}>
          {navigation ? <TagsView set={set} /> : null}
          <Layout.Content style={{ padding: narrow ? 12 : 24 }}>
            {navigation && !standalone ? <Breadcrumbs set={set} /> : null}
            {/* Keyed by company: switching companies loads the open screen again for the new one. */}
            <Outlet key={company?.companyId ?? 'no-company'} />
          </Layout.Content>
        </Layout>
      </Layout>
    </Layout>
  );
}
