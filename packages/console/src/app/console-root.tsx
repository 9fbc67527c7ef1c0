import { theme } from 'antd';
import { useEffect } from 'react';
import { SessionGuard } from '../session/session.guard.tsx';
import { ConsoleContext } from './console-context.ts';
import { createConsoleServices } from './console-services.ts';
import { FeedbackHost } from './feedback-host.tsx';
import { RouteProgress } from './route-progress.tsx';
import { variantOf } from './variant.ts';

/**
 * The root route: its own chunk (HTTP client and session logic), which the router fetches in
 * parallel with the first screen's chunk. antd's App (message and modal) is loaded only when
 * something is first shown (feedback.ts).
 */
const services = createConsoleServices(variantOf(window.location.pathname));

/** After the first paint, when the browser is idle: the antd components the other screens share. */
function usePrefetchSharedComponents() {
  useEffect(() => {
    const prefetch = () =>
      void import('./antd-prefetch.ts')
        .then(async (forms) => {
          await forms.displayComponents();
          await forms.choiceComponents();
        })
        .catch(() => undefined);
    if ('requestIdleCallback' in window) {
      const id = window.requestIdleCallback(prefetch, { timeout: 5000 });
      return () => window.cancelIdleCallback(id);
    }
    const timer = setTimeout(prefetch, 2000);
    return () => clearTimeout(timer);
  }, []);
}

export function ConsoleRoot() {
  const { token } = theme.useToken();
  usePrefetchSharedComponents();
  return (
    // The text style antd's App gave the whole console.
    <div
      style={{
        minHeight: '100%',
        color: token.colorText,
        fontSize: token.fontSize,
        lineHeight: token.lineHeight,
        fontFamily: token.fontFamily,
      }}
    >
      <FeedbackHost>
        <RouteProgress />
        <ConsoleContext.Provider value={services}>
          <SessionGuard />
        </ConsoleContext.Provider>
      </FeedbackHost>
    </div>
  );
}
