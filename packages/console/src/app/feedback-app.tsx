import { App } from 'antd';
import { type ReactNode, useLayoutEffect } from 'react';
import { connectFeedback } from './feedback.ts';

/** Connects antd's context-aware message and modal to code outside React. */
function FeedbackBridge() {
  const api = App.useApp();
  useLayoutEffect(() => connectFeedback(api), [api]);
  return null;
}

/**
 * antd's App (message and modal, which follow the theme and language) with the bridge that
 * hands them to the HTTP client. Its own chunk: message, modal and what they pull in (all of
 * rc-form, through the modal's form context) would otherwise double the session root.
 */
export function FeedbackApp({ children }: { children: ReactNode }) {
  return (
    <App style={{ minHeight: '100%' }}>
      <FeedbackBridge />
      {children}
    </App>
  );
}
