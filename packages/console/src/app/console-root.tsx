import { lazy, Suspense } from 'react';
import { SessionGuard } from '../session/session.guard.tsx';
import { ConsoleContext } from './console-context.ts';
import { createConsoleServices } from './console-services.ts';
import { FullPageSpinner } from './full-page-spinner.tsx';
import { RouteProgress } from './route-progress.tsx';
import { variantOf } from './variant.ts';

/**
 * The root route. It is its own chunk (HTTP client, contract schemas, session logic), which
 * the router fetches in parallel with the first screen's chunk; antd's App (message and modal)
 * is one more, fetched as soon as this one runs.
 */
const services = createConsoleServices(variantOf(window.location.pathname));
const feedbackApp = import('./feedback-app.tsx');
const FeedbackApp = lazy(() => feedbackApp.then((m) => ({ default: m.FeedbackApp })));

export function ConsoleRoot() {
  return (
    <Suspense fallback={<FullPageSpinner />}>
      <FeedbackApp>
        <RouteProgress />
        <ConsoleContext.Provider value={services}>
          <SessionGuard />
        </ConsoleContext.Provider>
      </FeedbackApp>
    </Suspense>
  );
}
