import type { App } from 'antd';
import i18next from 'i18next';

/**
 * antd's message, modal and notification for the whole console, loaded on demand. antd's App
 * (with Modal, the message holder and what they pull in) is a large chunk that the first screen
 * does not need, so it is not on the first-load path: the first message, alert or confirmation
 * asks FeedbackHost (feedback-host.tsx) to load and mount it, and is shown as soon as it is there.
 * Until then calls wait in a queue, in order. The API is antd's own (`App.useApp()`), so screens
 * use it the same way; the host renders inside the locale provider (app/antd-locale.tsx), so the language applies.
 */
export type FeedbackApi = ReturnType<typeof App.useApp>;

let current: FeedbackApi | undefined;
const waiting: Array<(api: FeedbackApi) => void> = [];
let wanted = false;
const listeners = new Set<() => void>();

/** Whether something asked for feedback yet: FeedbackHost mounts antd's App from then on. */
export const feedbackDemand = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  },
  wanted: () => wanted,
};

/** Called by the bridge in feedback-app.tsx with antd's context-aware message, modal and notification. */
export function connectFeedback(api: FeedbackApi) {
  current = api;
  for (const use of waiting.splice(0)) use(api);
}

function withApi<T>(use: (api: FeedbackApi) => T): Promise<T> {
  if (current) return Promise.resolve(use(current));
  return new Promise<T>((resolve, reject) => {
    waiting.push((api) => {
      try {
        resolve(use(api));
      } catch (error) {
        reject(error);
      }
    });
    if (!wanted) {
      wanted = true;
      for (const listener of listeners) listener();
    }
  });
}

type Handle = (() => void) & {
  destroy(): void;
  update(...args: unknown[]): void;
  then<A = unknown, B = never>(
    onDone?: ((value: unknown) => A | PromiseLike<A>) | null,
    onFailed?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B>;
};

/**
 * What antd's methods return, before antd is there: message and notification return a function
 * that closes the notice (and is a thenable that settles when it closes); modal methods return
 * `{ destroy, update }` and a thenable of the person's answer. The handle forwards to the real
 * one once it exists.
 */
function deferred(run: (api: FeedbackApi) => unknown): Handle {
  // Wrapped: the real handles are thenables, which a promise would wait for.
  const real = withApi((api) => ({ handle: run(api) as Record<string, unknown> | undefined }));
  const forward =
    (method?: string) =>
    (...args: unknown[]) => {
      void real.then(({ handle }) => {
        const target = method ? handle?.[method] : handle;
        if (typeof target === 'function') target.apply(handle, args);
      });
    };
  const outcome = real.then(
    ({ handle }) =>
      new Promise<unknown>((resolve, reject) => {
        const then = handle?.then;
        if (typeof then === 'function') then.call(handle, resolve, reject);
        else resolve(handle);
      }),
  );
  return Object.assign(forward(), {
    destroy: forward('destroy'),
    update: forward('update'),
    // biome-ignore lint/suspicious/noThenProperty: antd's message handles are thenable; this one stands in for them.
    then: <A = unknown, B = never>(
      onDone?: ((value: unknown) => A | PromiseLike<A>) | null,
      onFailed?: ((reason: unknown) => B | PromiseLike<B>) | null,
    ) => outcome.then(onDone, onFailed),
  });
}

/** An object with `methods`, each deferred to the method of the same name of `pick(api)`. */
function deferAll<T extends object>(
  pick: (api: FeedbackApi) => T,
  methods: readonly (keyof T & string)[],
): T {
  const out: Record<string, unknown> = {};
  for (const name of methods) {
    out[name] = (...args: unknown[]) =>
      deferred((api) => (pick(api) as Record<string, (...a: unknown[]) => unknown>)[name]?.(...args));
  }
  return out as T;
}

const notices = ['info', 'success', 'error', 'warning', 'open', 'destroy'] as const;

/** antd's message, modal and notification, usable at once from anywhere (React or not). */
export const feedbackApi: FeedbackApi = {
  message: deferAll((api) => api.message, [...notices, 'loading']),
  modal: deferAll((api) => api.modal, ['info', 'success', 'error', 'warning', 'confirm']),
  notification: deferAll((api) => api.notification, notices),
};

/** antd's message, modal and notification for a screen: `const { message, modal } = useFeedback()`. */
export const useFeedback = (): FeedbackApi => feedbackApi;

/** What the HTTP client shows (spec §8). */
export const feedback = {
  error(text: string) {
    void feedbackApi.message.error(text);
  },
  /** Spec §8: the "Login Again" alert; resolves when the person presses its button. */
  confirmLoginAgain(): Promise<void> {
    return new Promise((resolve) => {
      feedbackApi.modal.warning({
        title: i18next.t('session.loginAgainTitle'),
        content: i18next.t('session.loginAgainContent'),
        okText: i18next.t('session.loginAgainOk'),
        keyboard: false,
        onOk: () => resolve(),
      });
    });
  },
};
