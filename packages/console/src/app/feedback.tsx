import { App } from 'antd';
import i18next from 'i18next';
import { useLayoutEffect } from 'react';

type AppApi = ReturnType<typeof App.useApp>;
let current: AppApi | undefined;
/** Messages raised before the bridge mounts (it mounts before the router, so none in practice). */
const early: Array<(api: AppApi) => void> = [];
const withApi = (use: (api: AppApi) => void) => {
  if (current) use(current);
  else early.push(use);
};

/** Hands antd's context-aware message and modal to code outside React (the HTTP client). */
export function FeedbackBridge() {
  const api = App.useApp();
  useLayoutEffect(() => {
    current = api;
    for (const use of early.splice(0)) use(api);
  }, [api]);
  return null;
}

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
