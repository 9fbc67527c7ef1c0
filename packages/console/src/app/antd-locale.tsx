import LoadingOutlined from '@ant-design/icons/LoadingOutlined';
import { ConfigContext } from 'antd/es/config-provider/context';
import ValidateMessagesContext from 'antd/es/form/validateMessagesContext';
import type { Locale } from 'antd/es/locale';
import LocaleProvider, { ANT_MARK } from 'antd/es/locale';
import enUS from 'antd/es/locale/en_US';
import { type ReactNode, useContext, useMemo } from 'react';

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
 * ConfigProvider, which would add 13 KiB (gzip) to the first load. The console's other button
 * settings go straight into antd's config context:
 * - buttons keep their labels as written (antd would otherwise print two-character Chinese
 *   labels as "删 除");
 * - a busy button's spinner comes and goes at once. antd's own spinner slides in and out, and it
 *   is removed only when its slide ends; on a busy machine that end was sometimes never signalled,
 *   and a dialog's button, done saving, went on holding an invisible spinner: screen readers (and
 *   the browser tests) then named it "loading Add".
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
  const config = useContext(ConfigContext);
  const withButtons = useMemo(
    () => ({
      ...config,
      button: { ...config.button, autoInsertSpace: false, loadingIcon: <LoadingOutlined /> },
    }),
    [config],
  );
  return (
    // The mark tells antd this is its own provider (no deprecation warning in development).
    <ConfigContext.Provider value={withButtons}>
      <LocaleProvider locale={locale} {...{ _ANT_MARK__: ANT_MARK }}>
        <ValidateMessagesContext.Provider value={validateMessages}>
          {children}
        </ValidateMessagesContext.Provider>
      </LocaleProvider>
    </ConfigContext.Provider>
  );
}
