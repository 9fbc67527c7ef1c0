import { Provider as MotionProvider } from '@rc-component/motion';
import { useTranslation } from 'react-i18next';
import type { DataRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { antdLocaleOf } from '../i18n/i18n.ts';
import { usePrefersReducedMotion } from '../lib/use-media-query.ts';
import { AntdLocale } from './antd-locale.tsx';

/**
 * antd follows the console language (spec §2 language switch), and the system's "reduce motion"
 * setting: antd's dialogs, drawers, menus and messages then appear and go without animating
 * (the motion context antd's ConfigProvider would set, without the rest of ConfigProvider).
 */
export function ConsoleApp({ router }: { router: DataRouter }) {
  const { i18n } = useTranslation();
  const reduceMotion = usePrefersReducedMotion();
  return (
    <AntdLocale locale={antdLocaleOf(i18n.language)}>
      <MotionProvider motion={!reduceMotion}>
        <RouterProvider router={router} />
      </MotionProvider>
    </AntdLocale>
  );
}
