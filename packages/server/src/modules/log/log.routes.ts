import { log as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { LogService } from './log.service.ts';

export function logRoutes(bind: Bind, service: LogService) {
  bind(calls.signInLog, async ({ tenant, body, lang }) => service.signIns(tenant.companyId, body, lang));
  bind(calls.adminLog, async ({ tenant, body }) => service.adminEvents(tenant.companyId, body));
  bind(calls.adminLogActions, async ({ tenant }) => service.adminActions(tenant.companyId));
  bind(calls.exportLog, async ({ session, tenant, body, ip }) =>
    service.exportRows({ accountId: session.accountId, ip }, tenant.companyId, body),
  );
  bind(calls.logSettings, async ({ tenant }) => service.settings(tenant.companyId));
  bind(calls.updateLogSettings, async ({ session, tenant, body, ip }) =>
    service.updateSettings({ accountId: session.accountId, ip }, tenant.companyId, body.retentionDays),
  );
}
