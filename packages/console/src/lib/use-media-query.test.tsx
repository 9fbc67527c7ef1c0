import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { usePrefersReducedMotion } from './use-media-query.ts';

/** A window whose "reduce motion" setting the test turns on and off. */
function systemSetting(initially: boolean) {
  const original = window.matchMedia;
  let reduce = initially;
  const listeners = new Set<() => void>();
  window.matchMedia = (query: string) =>
    ({
      ...original(query),
      get matches() {
        return query === '(prefers-reduced-motion: reduce)' && reduce;
      },
      addEventListener: (_type: string, listener: () => void) => {
        listeners.add(listener);
      },
      removeEventListener: (_type: string, listener: () => void) => {
        listeners.delete(listener);
      },
    }) as unknown as MediaQueryList;
  return {
    set(value: boolean) {
      reduce = value;
      for (const listener of listeners) listener();
    },
    listeners,
    restore: () => {
      window.matchMedia = original;
    },
  };
}

function Motion() {
  return <span>{usePrefersReducedMotion() ? 'still' : 'moving'}</span>;
}

describe('usePrefersReducedMotion', () => {
  let setting: ReturnType<typeof systemSetting> | undefined;
  afterEach(() => setting?.restore());

  it('follows the system setting as it changes, and stops listening when unmounted', () => {
    setting = systemSetting(false);
    const { unmount } = render(<Motion />);
    expect(screen.getByText('moving')).toBeTruthy();
    act(() => setting?.set(true));
    expect(screen.getByText('still')).toBeTruthy();
    act(() => setting?.set(false));
    expect(screen.getByText('moving')).toBeTruthy();
    unmount();
    expect(setting.listeners.size).toBe(0);
  });

  it('reads the setting on the first render', () => {
    setting = systemSetting(true);
    render(<Motion />);
    expect(screen.getByText('still')).toBeTruthy();
  });
});
