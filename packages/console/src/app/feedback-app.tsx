import { App } from 'antd';
import { useLayoutEffect } from 'react';
import { connectFeedback } from './feedback.ts';

/** Hands antd's context-aware message, modal and notification to feedback.ts. */
function FeedbackBridge() {
  const api = App.useApp();
  useLayoutEffect(() => connectFeedback(api), [api]);
  return null;
}

/**
 * antd's App without a wrapper element: the holders of its message, modal and notification, and
 * the bridge. Its own chunk, loaded the first time something is shown (see feedback.ts): message,
 * modal and what they pull in would otherwise be a good part of the first load.
 */
export function FeedbackApp() {
  return (
    <App component={false}>
      <FeedbackBridge />
    </App>
  );
}
