import { common } from './common.ts';
import { company } from './company.ts';
import { dashboard } from './dashboard.ts';
import { http } from './http.ts';
import { layout } from './layout.ts';
import { route } from './route.ts';
import { session } from './session.ts';
import { status } from './status.ts';

/**
 * The English shell phrases: what shows before any screen but the dashboard is loaded (session
 * root, layout, top bar, menu and route names, HTTP client messages, status pages, the
 * dashboard). They are in the first load; every other namespace comes with its screen (see
 * `withPhrases` in ../i18n.ts).
 */
export const enShell = { common, company, dashboard, http, layout, route, session, status };
export type ShellPhrases = typeof enShell;
