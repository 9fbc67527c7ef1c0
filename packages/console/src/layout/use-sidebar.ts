import { useCallback, useEffect, useRef, useState } from 'react';
import { closesBySelf, type Device, deviceOf, initialOpened, sidebarCookie } from './sidebar-state.ts';

export interface SidebarState {
  device: Device;
  /** The sidebar is expanded (desktop) or the menu drawer is open (mobile). */
  opened: boolean;
  toggle(): void;
  close(): void;
}

/**
 * Spec §2, §3: the hamburger toggles the sidebar and the choice is kept in the sidebarStatus
 * cookie; below 992 px the sidebar closes by itself (without changing the kept choice, which
 * comes back on a wide window); below 768 px the menu is a drawer.
 */
export function useSidebar(): SidebarState {
  const [width, setWidth] = useState(() => window.innerWidth);
  const [opened, setOpened] = useState(() => initialOpened(window.innerWidth, document.cookie));
  const previous = useRef(width);

  useEffect(() => {
    const onResize = () => setWidth(window.innerWidth);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  useEffect(() => {
    const before = previous.current;
    previous.current = width;
    if (deviceOf(before) !== deviceOf(width) || closesBySelf(before) !== closesBySelf(width)) {
      setOpened(initialOpened(width, document.cookie));
    }
  }, [width]);

  const toggle = useCallback(() => {
    const next = !opened;
    setOpened(next);
    // Only a choice made on a wide window is kept; narrow windows close the sidebar anyway.
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API needs a secure context, and the console also runs over plain HTTP on internal addresses.
    if (!closesBySelf(width)) document.cookie = sidebarCookie(next);
  }, [opened, width]);
  const close = useCallback(() => setOpened(false), []);

  return { device: deviceOf(width), opened, toggle, close };
}
