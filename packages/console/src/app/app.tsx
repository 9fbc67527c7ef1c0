import { useTranslation } from 'react-i18next';
import type { DataRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { antdLocaleOf } from '../i18n/i18n.ts';
import { AntdLocale } from './antd-locale.tsx';

/** antd follows the console language (spec §2 language switch). */
export function ConsoleApp({ router }: { router: DataRouter }) {
  const { i18n } = useTranslation();
  return (
    <AntdLocale locale={antdLocaleOf(i18n.language)}>
      <RouterProvider router={router} />
    </AntdLocale>
  );
}
