import { Menu, type MenuProps } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { findScreen, type MenuEntry, menuOf, menuSelectionOf } from '../app/route-set.ts';
import type { RouteSet } from '../app/route-table.ts';
import { menuIcons } from './menu-icons.tsx';

type MenuItem = NonNullable<MenuProps['items']>[number];

/** The sidebar menu, derived from the route table (permitted, built, visible screens). */
export function SideMenu({
  set,
  collapsed,
  onNavigate,
}: {
  set: RouteSet;
  collapsed: boolean;
  onNavigate?(): void;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const entries = useMemo(() => menuOf(set), [set]);
  const { selected, open } = menuSelectionOf(findScreen(set, pathname));
  const [openKeys, setOpenKeys] = useState<string[]>(() => (open ? [open] : []));

  useEffect(() => {
    if (open) setOpenKeys((keys) => (keys.includes(open) ? keys : [...keys, open]));
  }, [open]);

  const toItem = (entry: MenuEntry): MenuItem => ({
    key: entry.key,
    icon: entry.icon ? menuIcons[entry.icon] : undefined,
    label: t(entry.title),
    children: entry.children?.map(toItem),
  });

  return (
    <Menu
      mode="inline"
      style={{ borderInlineEnd: 'none' }}
      items={entries.map(toItem)}
      selectedKeys={selected ? [selected] : []}
      // A collapsed sidebar shows sub-menus as pop-ups, which open on hover by themselves.
      {...(collapsed ? {} : { openKeys, onOpenChange: setOpenKeys })}
      onClick={({ key }) => {
        if (key !== pathname) navigate(key);
        onNavigate?.();
      }}
    />
  );
}
