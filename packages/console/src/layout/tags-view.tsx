import CloseOutlined from '@ant-design/icons/CloseOutlined';
import { theme } from 'antd';
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

/**
 * The tabs of visited pages (vue-element-admin's tags view); the dashboard's tab is pinned.
 * antd's Tag look, hand-written (layout.css) so the first screen does not load the Tag module.
 */
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
          <span
            key={tab.path}
            className={`tl-tag${active ? ' tl-tag-active' : ''}`}
            data-testid="tab"
            data-path={tab.path}
          >
            <Link to={tab.path} aria-current={active ? 'page' : undefined}>
              {t(tab.title)}
            </Link>
            {tab.pinned ? null : (
              <button
                type="button"
                className="tl-tag-close"
                aria-label={`${t('layout.closeTab')} ${t(tab.title)}`}
                onClick={() => close(tab.path)}
              >
                <CloseOutlined />
              </button>
            )}
          </span>
        );
      })}
    </nav>
  );
}
