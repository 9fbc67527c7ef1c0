import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { findScreen } from '../app/route-set.ts';
import type { RouteSet } from '../app/route-table.ts';
import { documentTitleOf } from '../app/settings.ts';

/** Page title: the screen's title phrase, ' - ', then the settings title (spec §9). */
export function useDocumentTitle(set: RouteSet) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const found = findScreen(set, pathname);
  const title = documentTitleOf(found ? t(found.route.title) : undefined);
  useEffect(() => {
    document.title = title;
  }, [title]);
}
