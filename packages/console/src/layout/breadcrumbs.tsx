import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { useSession } from '../app/console-context.ts';
import { breadcrumbOf, grantedPermissions } from '../app/route-set.ts';
import type { RouteSet } from '../app/route-table.ts';

/** Breadcrumbs derived from the route table (antd's Breadcrumb look, styled in layout.css). */
export function Breadcrumbs({ set }: { set: RouteSet }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const { grants } = useSession();
  const crumbs = breadcrumbOf(set, pathname, undefined, grantedPermissions(grants));
  if (crumbs.length === 0) return null;
  return (
    <nav aria-label={t('layout.breadcrumb')} style={{ marginBottom: 16 }}>
      <ol className="tl-crumbs">
        {crumbs.map((crumb, index) => {
          const last = index === crumbs.length - 1;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a crumb's place is its identity (groups have no path).
            <Fragment key={index}>
              <li className="tl-crumb" aria-current={last ? 'page' : undefined}>
                {crumb.path && !last ? <Link to={crumb.path}>{t(crumb.title)}</Link> : t(crumb.title)}
              </li>
              {last ? null : (
                <li className="tl-crumb-separator" aria-hidden="true">
                  /
                </li>
              )}
            </Fragment>
          );
        })}
      </ol>
    </nav>
  );
}
