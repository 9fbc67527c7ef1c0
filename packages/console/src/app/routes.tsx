import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { NOT_FOUND_PATH } from '../session/navigation.guard.ts';
import { FullPageSpinner } from './full-page-spinner.tsx';
import { redirectsOf, routedScreens, routeSetOf } from './route-set.ts';
import type { RouteName, RouteSet } from './route-table.ts';

/** What a route tells the shell about itself: its spec route name. */
export interface RouteHandle {
  name: RouteName;
}

export { NOT_FOUND_PATH };

const RootFallback = () => <FullPageSpinner />;

/**
 * The router's routes for one route set, derived from the route table (route-table.ts). Every
 * screen is its own chunk, and so are the session root and the layout. The root route holds the
 * session guard, which wraps every route, redirects included, so it sees the authorization
 * response before anything else does. Unknown paths, and declared screens that are not built
 * yet, end on /404.
 */
export function consoleRoutes(set: RouteSet): RouteObject[] {
  const redirects = redirectsOf(set);
  const index = redirects.find((redirect) => redirect.from === '/');
  return [
    {
      path: '/',
      lazy: async () => ({ Component: (await import('./console-root.tsx')).ConsoleRoot }),
      HydrateFallback: RootFallback,
      children: [
        {
          lazy: async () => ({ Component: (await import('../layout/console.layout.tsx')).ConsoleLayout }),
          children: [
            ...(index ? [{ index: true, element: <Navigate to={index.to} replace /> }] : []),
            ...redirects
              .filter((redirect) => redirect.from !== '/')
              .map(({ from, to }) => ({ path: from, element: <Navigate to={to} replace /> })),
            ...routedScreens(set).map(({ route }) => ({
              path: route.path,
              handle: { name: route.name } satisfies RouteHandle,
              lazy: async () => ({ Component: await route.screen() }),
            })),
          ],
        },
        { path: '*', element: <Navigate to={NOT_FOUND_PATH} replace /> },
      ],
    },
  ];
}

export const createConsoleRouter = (basename: string) =>
  createBrowserRouter(consoleRoutes(routeSetOf(basename)), { basename });
