import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useMatches } from 'react-router';
import type { RouteHandle } from '../app/routes.tsx';

const isRouteHandle = (value: unknown): value is RouteHandle =>
  typeof value === 'object' && value !== null && 'title' in value && 'name' in value;

/** Page title: the deepest route's title phrase, then the product name. */
export function useDocumentTitle() {
  const { t } = useTranslation();
  const matches = useMatches();
  const handle = matches
    .map((match) => match.handle)
    .filter(isRouteHandle)
    .at(-1);
  const title = handle ? `${t(handle.title)} - ${t('common.productName')}` : t('common.productName');
  useEffect(() => {
    document.title = title;
  }, [title]);
}
