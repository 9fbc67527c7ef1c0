import { useConsole } from '../app/console-context.ts';
import { routeSetOf } from '../app/route-set.ts';
import type { RouteSet } from '../app/route-table.ts';
import { basenameOf } from '../app/variant.ts';

/** The route set of this page's prefix (spec §2). */
export const useRouteSet = (): RouteSet => routeSetOf(basenameOf(useConsole().variant));
