import type { CompanyListItem } from './session-storage.ts';

export const CREATE_COMPANY_PATH = '/create-company';
export const HOME_PATH = '/dashboard';
export const NOT_FOUND_PATH = '/404';
/** The platform console's setup page (platform administrators set the installation up before any company exists). */
export const SETUP_PATH = '/setting/setup';
/** Screens a signed-in person without a company may open. */
const COMPANYLESS_PATHS = new Set([CREATE_COMPANY_PATH, SETUP_PATH, '/404', '/200']);
/** Query parameters of the authorization response; they never belong in a return address. */
const SSO_PARAMS = ['code', 'state', 'error', 'error_description', 'error_uri', 'iss', 'session_state'];

export interface GuardInput {
  token: string | null;
  /** undefined: not loaded; null: loaded and the person has no company. */
  companies: readonly CompanyListItem[] | null | undefined;
  /** Whether the person's permission groups in the selected company are known. */
  grantsLoaded: boolean;
  /** Whether the person's permission groups allow the screen at `path`. */
  permitted(path: string): boolean;
  /** Path inside the console (without the /dev or /admin prefix). */
  path: string;
  search: string;
}

export type GuardAction =
  | { kind: 'proceed' }
  | { kind: 'load-companies' }
  | { kind: 'redirect'; to: string }
  | { kind: 'exchange-code'; code: string; state: string | null }
  | { kind: 'sso-error'; error: string; description: string | null }
  | { kind: 'sign-in'; returnTo: string };

/** The address to come back to after signing in: the target without the SSO parameters. */
export function returnAddress(path: string, search: string): string {
  const query = new URLSearchParams(search);
  for (const name of SSO_PARAMS) query.delete(name);
  const rest = query.toString();
  return rest ? `${path}?${rest}` : path;
}

/** Spec §4: what the navigation guard does for one route change. Pure, so it is tested alone. */
export function decideNavigation(input: GuardInput): GuardAction {
  if (!input.token) {
    const query = new URLSearchParams(input.search);
    const code = query.get('code');
    if (code) return { kind: 'exchange-code', code, state: query.get('state') };
    const error = query.get('error');
    if (error) return { kind: 'sso-error', error, description: query.get('error_description') };
    return { kind: 'sign-in', returnTo: returnAddress(input.path, input.search) };
  }
  if (input.companies === undefined) return { kind: 'load-companies' };
  if (input.companies === null || input.companies.length === 0) {
    const path = input.path.length > 1 ? input.path.replace(/\/+$/, '') : input.path;
    return COMPANYLESS_PATHS.has(path) ? { kind: 'proceed' } : { kind: 'redirect', to: CREATE_COMPANY_PATH };
  }
  // Step 2: the allowed routes come from the permission groups of the selected company.
  if (!input.grantsLoaded) return { kind: 'load-companies' };
  if (!input.permitted(input.path)) return { kind: 'redirect', to: NOT_FOUND_PATH };
  return { kind: 'proceed' };
}
