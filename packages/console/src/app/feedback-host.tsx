import AppContext from 'antd/es/app/context';
import { lazy, type ReactNode, Suspense, useSyncExternalStore } from 'react';
import { feedbackApi, feedbackDemand } from './feedback.ts';

const FeedbackApp = lazy(() => import('./feedback-app.tsx').then((m) => ({ default: m.FeedbackApp })));

/**
 * Gives every screen antd's message, modal and notification (`useFeedback()`, and antd's own
 * `App.useApp()` too) and mounts antd's App for them the first time one is used. Rendered inside
 * the locale provider (app/antd-locale.tsx), so what it shows follows the language.
 */
export function FeedbackHost({ children }: { children: ReactNode }) {
  const wanted = useSyncExternalStore(feedbackDemand.subscribe, feedbackDemand.wanted);
  return (
    <AppContext.Provider value={feedbackApi}>
      {wanted ? (
        <Suspense fallback={null}>
          <FeedbackApp />
        </Suspense>
      ) : null}
      {children}
    </AppContext.Provider>
  );
}
