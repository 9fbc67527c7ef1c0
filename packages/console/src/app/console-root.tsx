import { App } from 'antd';
import { SessionGuard } from '../session/session.guard.tsx';
import { ConsoleContext } from './console-context.ts';
import { createConsoleServices } from './console-services.ts';
import { FeedbackBridge } from './feedback.tsx';
import { variantOf } from './variant.ts';

/**
 * The root route. It is its own chunk (HTTP client, contract schemas, session logic), which
 * the router fetches in parallel with the first screen's chunk.
 */
const services = createConsoleServices(variantOf(window.location.pathname));

export function ConsoleRoot() {
  return (
    <App style={{ minHeight: '100%' }}>
      <FeedbackBridge />
      <ConsoleContext.Provider value={services}>
        <SessionGuard />
      </ConsoleContext.Provider>
    </App>
  );
}
