import type { App } from 'antd';
import i18next from 'i18next';

type AppApi = ReturnType<typeof App.useApp>;
let current: AppApi | undefined;
/** Messages raised before the bridge connects (it connects before the session guard runs). */
const early: Array<(api: AppApi) => void> = [];
const withApi = (use: (api: AppApi) => void) => {
  if (current) use(current);
  else early.push(use);
};

/** Called by FeedbackBridge (feedback-app.tsx) with antd's context-aware message and modal. */
export function connectFeedback(api: AppApi) {
  current = api;
  for (const use of early.splice(0)) use(api);
}

/** Hands antd's message and modal to code outside React (the HTTP client). */
export const feedback = {
  error(text: string) {
    withApi((api) => void api.message.error(text));
  },
  /** Spec §8: the "Login Again" alert; resolves when the person presses its button. */
  confirmLoginAgain(): Promise<void> {
    return new Promise((resolve) => {
      withApi((api) =>
        api.modal.warning({
          title: i18next.t('session.loginAgainTitle'),
          content: i18next.t('session.loginAgainContent'),
          okText: i18next.t('session.loginAgainOk'),
          keyboard: false,
          onOk: () => resolve(),
        }),
      );
    });
  },
};
