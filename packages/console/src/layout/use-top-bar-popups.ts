import { useEffect, useState } from 'react';

/**
 * The top bar's popups chunk (top-bar-popups.tsx), loaded apart from the first screen: preloaded
 * once the browser is idle, or at once when a top-bar button is pointed at, focused or clicked.
 */

type Popups = typeof import('./top-bar-popups.tsx');
let popupsModule: Popups | undefined;
let popupsLoading: Promise<Popups> | undefined;
/** Fetches the popups chunk (once); nothing on screen changes. */
const loadPopups = (): Promise<Popups> => {
  popupsLoading ??= import('./top-bar-popups.tsx').then((module) => {
    popupsModule = module;
    return module;
  });
  return popupsLoading;
};
/** Buttons still standing alone; each wraps itself in its popup when told the chunk is there. */
const waitingForPopups = new Set<(module: Popups) => void>();

/**
 * Once the browser is idle after the first screen: loads the popups and wraps every top-bar
 * button in its popup, but never in the middle of a press (the button is re-created inside the
 * popup, which would swallow the click).
 */
export function usePreloadPopups() {
  useEffect(() => {
    let pressing = false;
    let loaded: Popups | undefined;
    const wrapAll = () => {
      if (!loaded || pressing) return;
      for (const ready of waitingForPopups) ready(loaded);
      waitingForPopups.clear();
    };
    const down = () => {
      pressing = true;
    };
    const up = () => {
      pressing = false;
      setTimeout(wrapAll);
    };
    document.addEventListener('pointerdown', down, true);
    document.addEventListener('pointerup', up, true);
    const preload = () =>
      void loadPopups()
        .then((module) => {
          loaded = module;
          wrapAll();
        })
        .catch(() => undefined);
    const idle = 'requestIdleCallback' in window;
    const handle = idle ? window.requestIdleCallback(preload, { timeout: 3000 }) : setTimeout(preload, 1500);
    return () => {
      if (idle) window.cancelIdleCallback(handle as number);
      else clearTimeout(handle);
      document.removeEventListener('pointerdown', down, true);
      document.removeEventListener('pointerup', up, true);
    };
  }, []);
}

/**
 * A top-bar button with a popup. Until the popups chunk is there the button stands alone:
 * pointing at or focusing it fetches the chunk, and a click wraps it in its popup, already open
 * (the click is over by then, so nothing is lost or toggled back).
 */
export function usePopup() {
  const [popups, setPopups] = useState(popupsModule);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (popups) return;
    const ready = (module: Popups) => setPopups(module);
    waitingForPopups.add(ready);
    return () => {
      waitingForPopups.delete(ready);
    };
  }, [popups]);
  const trigger = popups
    ? {}
    : {
        onPointerEnter: () => void loadPopups(),
        onFocus: () => void loadPopups(),
        onClick: () =>
          void loadPopups().then((module) => {
            setPopups(module);
            setOpen(true);
          }),
      };
  return { popups, open, setOpen, trigger };
}
