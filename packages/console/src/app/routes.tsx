import type { ParseKeys } from 'i18next';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { CREATE_COMPANY_PATH, HOME_PATH } from '../session/navigation.guard.ts';
import { FullPageSpinner } from './full-page-spinner.tsx';

/** What a route tells the shell about itself: its spec route name and its title phrase. */
export interface RouteHandle {
  name: string;
  title: ParseKeys;
}

const handle = (name: string, title: ParseKeys): RouteHandle => ({ name, title });

/**
 * The route table (spec §2). Every screen is its own chunk. The root route holds the session
 * guard, which wraps every route, redirects included, so it sees the authorization response
 * before anything else does.
 */
export const routes: RouteObject[] = [
  {
    path: '/',
    lazy: async () => ({ Component: (await import('./console-root.tsx')).ConsoleRoot }),
    HydrateFallback: () => <FullPageSpinner />,
    children: [
      {
        lazy: async () => ({ Component: (await import('../layout/console.layout.tsx')).ConsoleLayout }),
        children: [
          { index: true, element: <Navigate to={HOME_PATH} replace /> },
          {
            path: HOME_PATH,
            handle: handle('dashboard', 'dashboard.title'),
            lazy: async () => ({
              Component: (await import('../pages/dashboard/dashboard.page.tsx')).DashboardPage,
            }),
          },
          {
            path: CREATE_COMPANY_PATH,
            handle: handle('createCompany', 'company.createTitle'),
            lazy: async () => ({
              Component: (await import('../pages/create-company/create-company.page.tsx')).CreateCompanyPage,
            }),
          },
          {
            path: '/404',
            handle: handle('notFound', 'status.notFoundTitle'),
            lazy: async () => ({
              Component: (await import('../pages/status/not-found.page.tsx')).NotFoundPage,
            }),
          },
          {
            path: '/200',
            handle: handle('ok', 'status.okTitle'),
            lazy: async () => ({ Component: (await import('../pages/status/ok.page.tsx')).OkPage }),
          },
        ],
      },
      { path: '*', element: <Navigate to="/404" replace /> },
    ],
  },
];

export const createConsoleRouter = (basename: string) => createBrowserRouter(routes, { basename });
