import { Tag, theme } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { declaredScreens, findScreen } from '../app/route-set.ts';
import type { RouteSet } from '../app/route-table.ts';
import { addTab, closeTab, type VisitedTab } from './tabs.ts';

const pinnedTabs = (set: RouteSet): VisitedTab[] =>
  declaredScreens(set)
    .filter(({ route }) => route.pinned && route.screen)
    .map(({ route }) => ({ path: route.path, title: route.title, pinned: true }));

/** The tabs of visited pages (vue-element-admin's tags view); the dashboard's tab is pinned. */
export function TagsView({ set }: { set: RouteSet }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [tabs, setTabs] = useState(() => pinnedTabs(set));

  useEffect(() => {
    const found = findScreen(set, pathname);
    if (!found || found.route.standalone) return;
    const { route } = found;
    setTabs((current) =>
      addTab(current, { path: pathname, title: route.title, pinned: Boolean(route.pinned) }),
    );
  }, [set, pathname]);

  const close = (path: string) => {
    const result = closeTab(tabs, path, pathname);
    setTabs(result.tabs);
    if (result.next) navigate(result.next);
  };

  return (
    <nav
      aria-label={t('layout.tabs')}
      style={{
        display: 'flex',
        gap: 6,
        alignItems: 'center',
        padding: '6px 16px',
        overflowX: 'auto',
        whiteSpace: 'nowrap',
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorderSecondary}`,
      }}
    >
      {tabs.map((tab) => {
        const active = tab.path === pathname;
        return (
          <Tag
            key={tab.path}
            color={active ? 'blue' : undefined}
            closable={!tab.pinned}
            closeIcon={tab.pinned ? undefined : true}
            onClose={(event) => {
              event.preventDefault();
              close(tab.path);
            }}
            style={{ marginInlineEnd: 0, userSelect: 'none' }}
            data-testid="tab"
            data-path={tab.path}
          >
            <Link to={tab.path} style={{ color: 'inherit' }} aria-current={active ? 'page' : undefined}>
              {t(tab.title)}
            </Link>
          </Tag>
        );
      })}
    </nav>
  );
}
