import ValidateMessagesContext from 'antd/es/form/validateMessagesContext';
import type { Locale } from 'antd/es/locale';
import LocaleProvider, { ANT_MARK } from 'antd/es/locale';
import enUS from 'antd/es/locale/en_US';
import { type ReactNode, useMemo } from 'react';

type Messages = Record<string, unknown>;
const isObject = (value: unknown): value is Messages =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function merge(base: Messages, over: Messages): Messages {
  const out: Messages = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const before = out[key];
    out[key] = isObject(before) && isObject(value) ? merge(before, value) : value;
  }
  return out;
}

/**
 * antd in the console's language: exactly the locale part of antd's ConfigProvider (the locale
 * context, the confirm dialogs' texts and the form's validation messages), without the rest of
 * ConfigProvider, which the console does not configure and which would add 13 KiB (gzip) to the
 * first load.
 */
export function AntdLocale({ locale, children }: { locale: Locale; children: ReactNode }) {
  const validateMessages = useMemo(
    () =>
      merge(
        (enUS.Form?.defaultValidateMessages ?? {}) as Messages,
        (locale.Form?.defaultValidateMessages ?? {}) as Messages,
      ),
    [locale],
  );
  return (
    // The mark tells antd this is its own provider (no deprecation warning in development).
    <LocaleProvider locale={locale} {...{ _ANT_MARK__: ANT_MARK }}>
      <ValidateMessagesContext.Provider value={validateMessages}>{children}</ValidateMessagesContext.Provider>
    </LocaleProvider>
  );
}
