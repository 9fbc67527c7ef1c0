import DownOutlined from '@ant-design/icons/DownOutlined';
import { type CSSProperties, type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { useSession } from '../app/console-context.ts';
import { findScreen, grantedPermissions, type MenuEntry, menuOf, menuSelectionOf } from '../app/route-set.ts';
import type { RouteSet } from '../app/route-table.ts';
import { menuIcons } from './menu-icons.tsx';

/** What floats beside the collapsed sidebar: an entry's name, or a group's entries. */
interface Floating {
  key: string;
  top: number;
  left: number;
}

/**
 * The sidebar menu, derived from the route table (permitted, built, visible screens). antd's
 * inline Menu look, hand-written so the first screen does not load rc-menu and its motion and
 * popup machinery: groups open in place; when the sidebar is collapsed, an entry's name shows
 * beside its icon on hover or focus, and a group's entries fly out beside it.
 */
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
  const { pathname } = useLocation();
  const { grants } = useSession();
  const entries = useMemo(() => menuOf(set, grantedPermissions(grants)), [set, grants]);
  const { selected, open } = menuSelectionOf(findScreen(set, pathname));
  const [openKeys, setOpenKeys] = useState<string[]>(() => (open ? [open] : []));
  const [floating, setFloating] = useState<Floating | null>(null);
  const leaveTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    if (open) setOpenKeys((keys) => (keys.includes(open) ? keys : [...keys, open]));
  }, [open]);
  useEffect(() => () => clearTimeout(leaveTimer.current), []);
  // A page change or an expanded sidebar puts the floating name or group away.
  // biome-ignore lint/correctness/useExhaustiveDependencies: both are triggers, not inputs.
  useEffect(() => setFloating(null), [pathname, collapsed]);

  const float = (key: string, target: HTMLElement) => {
    if (!collapsed) return;
    clearTimeout(leaveTimer.current);
    const box = target.getBoundingClientRect();
    setFloating({ key, top: box.top, left: box.right + 4 });
  };
  const sink = () => {
    clearTimeout(leaveTimer.current);
    leaveTimer.current = setTimeout(() => setFloating(null), 150);
  };
  const hold = () => clearTimeout(leaveTimer.current);
  const toggle = (key: string) =>
    setOpenKeys((keys) => (keys.includes(key) ? keys.filter((k) => k !== key) : [...keys, key]));

  const icon = (entry: MenuEntry): ReactNode => (entry.icon ? menuIcons[entry.icon] : null);
  const contains = (entry: MenuEntry): boolean =>
    entry.key === selected || (entry.children ?? []).some(contains);

  const item = (entry: MenuEntry, level: number, inFlyout = false): ReactNode => {
    const label = t(entry.title);
    const indent = { '--tl-indent': `${24 * level}px` } as CSSProperties;
    const iconOnly = collapsed && level === 1 && !inFlyout;
    if (!entry.children) {
      return (
        <div key={entry.key} role="none">
          <Link
            role="menuitem"
            to={entry.key}
            className="tl-menu-item"
            style={indent}
            aria-current={entry.key === selected ? 'page' : undefined}
            aria-label={iconOnly ? label : undefined}
            onClick={() => {
              setFloating(null);
              onNavigate?.();
            }}
            onMouseEnter={(event) => float(entry.key, event.currentTarget)}
            onMouseLeave={sink}
            onFocus={(event) => float(entry.key, event.currentTarget)}
            onBlur={sink}
          >
            {icon(entry)}
            {iconOnly ? null : <span className="tl-menu-label">{label}</span>}
          </Link>
          {iconOnly && floating?.key === entry.key ? (
            <div
              role="tooltip"
              className="tl-tooltip"
              style={{ top: floating.top + 20, left: floating.left }}
            >
              {label}
            </div>
          ) : null}
        </div>
      );
    }
    const expanded = collapsed && !inFlyout ? floating?.key === entry.key : openKeys.includes(entry.key);
    const active = contains(entry);
    return (
      <div
        key={entry.key}
        role="none"
        onMouseEnter={iconOnly ? (event) => float(entry.key, event.currentTarget) : undefined}
        onMouseLeave={iconOnly ? sink : undefined}
      >
        <button
          type="button"
          role="menuitem"
          aria-haspopup={iconOnly ? 'menu' : undefined}
          aria-expanded={expanded}
          aria-label={iconOnly ? label : undefined}
          className={`tl-menu-item${active ? ' tl-menu-group-active' : ''}`}
          style={indent}
          onClick={(event) => {
            if (!iconOnly) return toggle(entry.key);
            if (expanded) return setFloating(null);
            float(entry.key, event.currentTarget);
          }}
        >
          {icon(entry)}
          {iconOnly ? null : (
            <>
              <span className="tl-menu-label">{label}</span>
              <DownOutlined className={`tl-menu-arrow${expanded ? ' tl-menu-arrow-open' : ''}`} />
            </>
          )}
        </button>
        {expanded && iconOnly && floating ? (
          <div
            role="menu"
            aria-label={label}
            className="tl-menu-flyout"
            style={{ top: floating.top, left: floating.left }}
            onMouseEnter={hold}
            onMouseLeave={sink}
          >
            {entry.children.map((child) => item(child, 1, true))}
          </div>
        ) : expanded ? (
          <div role="menu" aria-label={label}>
            {entry.children.map((child) => item(child, level + 1, inFlyout))}
          </div>
        ) : null}
      </div>
    );
  };

  return (
    <div role="menu" className={`tl-menu${collapsed ? ' tl-menu-collapsed' : ''}`}>
      {entries.map((entry) => item(entry, 1))}
    </div>
  );
}
