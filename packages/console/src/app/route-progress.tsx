import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigation } from 'react-router';

/** How far the bar creeps while a screen's chunk loads: ever slower, never quite to the end. */
const creep = (value: number) => value + (90 - value) * 0.12;

/**
 * Spec §9: a thin bar at the top of the page on route changes, without a spinner (what
 * nprogress did for the original console, in a few lines). It creeps while the router loads
 * a screen and runs to the end when the new screen is in place.
 */
export function RouteProgress() {
  const { t } = useTranslation();
  const busy = useNavigation().state !== 'idle';
  const { key } = useLocation();
  const [value, setValue] = useState<number | null>(null);
  const lastKey = useRef(key);

  useEffect(() => {
    if (!busy) return;
    setValue(10);
    const timer = window.setInterval(() => setValue((current) => creep(current ?? 10)), 200);
    return () => window.clearInterval(timer);
  }, [busy]);

  useEffect(() => {
    if (busy) return;
    const moved = key !== lastKey.current;
    lastKey.current = key;
    setValue((current) => (moved || current !== null ? 100 : null));
    const timer = window.setTimeout(() => setValue(null), 400);
    return () => window.clearTimeout(timer);
  }, [busy, key]);

  if (value === null) return null;
  return (
    <div
      role="progressbar"
      aria-label={t('layout.pageLoading')}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(value)}
      data-testid="route-progress"
      style={{
        position: 'fixed',
        top: 0,
        left: 0,
        zIndex: 2000,
        height: 2,
        width: `${value}%`,
        background: '#1677ff',
        boxShadow: '0 0 6px #1677ff',
        opacity: value >= 100 ? 0 : 1,
        transition: 'width 200ms ease-out, opacity 300ms ease-in 100ms',
        pointerEvents: 'none',
      }}
    />
  );
}
