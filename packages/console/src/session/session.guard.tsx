import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { ApiError } from '../api/http-client.ts';
import { useConsole, useSession } from '../app/console-context.ts';
import { FullPageSpinner } from '../app/full-page-spinner.tsx';
import { grantedPermissions, isPermitted } from '../app/route-set.ts';
import { useRouteSet } from '../layout/use-route-set.ts';
import { decideNavigation, returnAddress } from './navigation.guard.ts';
import { SignInStateMismatch } from './sso.service.ts';

const SessionProblemPage = lazy(() =>
  import('../pages/session-problem/session-problem.page.tsx').then((m) => ({
    default: m.SessionProblemPage,
  })),
);

interface Problem {
  /** `sign-in`: signing in did not complete; `load`: the company list could not be loaded. */
  kind: 'sign-in' | 'load';
  message: string;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Spec §4: runs the navigation guard on every route change and renders the route once allowed. */
export function SessionGuard() {
  const services = useConsole();
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const { t } = useTranslation();
  const [problem, setProblem] = useState<Problem | null>(null);
  const started = useRef('');
  /** Set while a code is exchanged and the router moves to the return address. */
  const exchanging = useRef(false);

  const set = useRouteSet();
  const action = decideNavigation({
    token: session.token,
    companies: session.companies,
    grantsLoaded: session.grants !== undefined,
    permitted: (path) => isPermitted(set, path, grantedPermissions(session.grants)),
    path: location.pathname,
    search: location.search,
  });
  // One guard run per route change and session step, also under StrictMode's double effects.
  const runKey = `${action.kind}|${location.key}|${session.token ?? ''}|${session.companies === undefined}|${session.company?.companyId ?? ''}|${session.grants === undefined}`;

  useEffect(() => {
    if (session.leaving || problem || exchanging.current || started.current === runKey) return;
    started.current = runKey;
    const { sso, store } = services;
    switch (action.kind) {
      case 'redirect':
        navigate(action.to, { replace: true });
        return;
      case 'load-companies':
        services.session.loadCompanies().catch((error: unknown) => {
          // A 401 shows the "Login Again" alert and reloads; anything else stays on screen.
          if (!(error instanceof ApiError && error.code === 401))
            setProblem({ kind: 'load', message: messageOf(error) });
        });
        return;
      case 'sign-in':
        sso.startSignIn(action.returnTo).catch((error: unknown) => {
          setProblem({ kind: 'sign-in', message: messageOf(error) });
        });
        return;
      case 'exchange-code':
        exchanging.current = true;
        sso
          .completeSignIn(action.code, action.state)
          .then(async (result) => {
            // Move to the return address first (the code leaves the address bar), then hold the
            // token: the guard never sees the token together with the callback address, where
            // the index route would redirect on its own.
            await navigate(result.returnTo, { replace: true });
            exchanging.current = false;
            store.signedIn(result);
          })
          .catch((error: unknown) => {
            exchanging.current = false;
            // A stale or foreign answer: start a fresh sign-in rather than trusting it.
            if (error instanceof SignInStateMismatch) {
              return sso.startSignIn(returnAddress(location.pathname, location.search));
            }
            setProblem({ kind: 'sign-in', message: messageOf(error) });
          })
          .catch((error: unknown) => setProblem({ kind: 'sign-in', message: messageOf(error) }));
        return;
      case 'sso-error':
        setProblem({ kind: 'sign-in', message: action.description ?? action.error });
        return;
      case 'proceed':
        return;
    }
  }, [runKey, action, problem, session.leaving, services, navigate, location.pathname, location.search]);

  if (problem) {
    return (
      <Suspense fallback={<FullPageSpinner />}>
        <SessionProblemPage
          kind={problem.kind}
          message={problem.message}
          onRetry={() => {
            if (problem.kind === 'load') window.location.reload();
            else {
              setProblem(null);
              services.sso.startSignIn('/').catch((error: unknown) => {
                setProblem({ kind: 'sign-in', message: messageOf(error) });
              });
            }
          }}
        />
      </Suspense>
    );
  }
  if (action.kind === 'proceed' && !session.leaving) return <Outlet />;
  const waiting =
    action.kind === 'exchange-code' || exchanging.current
      ? t('session.signingIn')
      : action.kind === 'sign-in'
        ? t('session.redirecting')
        : t('common.loading');
  return <FullPageSpinner text={waiting} />;
}
