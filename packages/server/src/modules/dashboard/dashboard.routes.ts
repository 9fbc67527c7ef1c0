import { dashboard as calls, grantsAllow, logReadAccess } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { DashboardService } from './dashboard.service.ts';

export function dashboardRoutes(bind: Bind, service: DashboardService) {
  bind(calls.userDataOverview, async ({ tenant }) => service.userDataOverview(tenant.companyId));
  bind(calls.userLoginTrend, async ({ tenant, body }) => service.userLoginTrend(tenant.companyId, body));
  bind(calls.userMfaInfo, async ({ tenant }) => service.userMfaInfo(tenant.companyId));
  bind(calls.appLoginCount, async ({ tenant, body }) => service.appLoginCount(tenant.companyId, body));
  bind(calls.appLoginTrend, async ({ tenant, body }) => service.appLoginTrend(tenant.companyId, body));
  bind(calls.appLoginCountRatio, async ({ tenant, body }) =>
    service.appLoginCountRatio(tenant.companyId, body),
  );
  bind(calls.newFailList, async ({ tenant, body, lang }) =>
    service.newFailList(tenant.companyId, body.limit, lang),
  );
  bind(calls.newLoginList, async ({ tenant, body, lang }) =>
    service.newLoginList(tenant.companyId, body.limit, lang),
  );
  bind(calls.failTrend, async ({ tenant, body, lang }) =>
    service.failTrend(tenant.companyId, body, lang, { alerts: grantsAllow(tenant.grants, logReadAccess) }),
  );
  bind(calls.loginHotspot, async ({ tenant, body }) => service.loginHotspot(tenant.companyId, body));
}
