import { Breadcrumb } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { breadcrumbOf } from '../app/route-set.ts';
import type { RouteSet } from '../app/route-table.ts';

/** Breadcrumbs derived from the route table. */
export function Breadcrumbs({ set }: { set: RouteSet }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const crumbs = breadcrumbOf(set, pathname);
  if (crumbs.length === 0) return null;
  return (
    <nav aria-label={t('layout.breadcrumb')} style={{ marginBottom: 16 }}>
      <Breadcrumb
        items={crumbs.map((crumb, index) => ({
          key: `${index}`,
          title:
            crumb.path && index < crumbs.length - 1 ? (
              <Link to={crumb.path}>{t(crumb.title)}</Link>
            ) : (
              t(crumb.title)
            ),
        }))}
      />
    </nav>
  );
}
